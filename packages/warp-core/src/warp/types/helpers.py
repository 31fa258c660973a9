"""Type introspection helpers of ``warp.types`` that user code reaches for.

Two families, as in NVIDIA Warp: ``type_is_*``/``type_*`` take a *type* (``wp.vec3``,
``float``, ``wp.array(dtype=float)``), ``is_*`` take a *value* (``wp.vec3(1.0)``, ``1.5``, a
``wp.array``). Python's ``float``/``int``/``bool`` count as ``float32``/``int32``/``bool``.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from warp.types.array_type import ArrayType
from warp.types.composite_generic import GenericComposite
from warp.types.composite_values import CompositeBase
from warp.types.composite_values import is_composite as _is_composite_type
from warp.types.scalars import (
    Float,
    Int,
    Scalar,
    ScalarBase,
    canonical_type,
    float_types,
    int_types,
    is_scalar_type,
    scalar_and_bool_types,
    scalar_types,
    type_size_in_bytes,
)
from warp.types.struct import StructBase

#: NumPy dtype -> warp scalar type, and back.
np_dtype_to_warp_type: dict[np.dtype, type] = {
    t._np_dtype_: t for t in scalar_and_bool_types if t.__name__ != "bfloat16"  # its dtype is uint16 bits
}
warp_type_to_np_dtype: dict[type, np.dtype] = {t: t._np_dtype_ for t in scalar_and_bool_types}


def _kind(t: Any) -> str:
    t = canonical_type(t)
    if is_scalar_type(t):
        return t._kind_
    if _is_composite_type(t):
        return t._wp_kind_
    return ""


def type_to_warp(t: Any) -> Any:
    """Map Python ``float``/``int``/``bool`` to ``float32``/``int32``/``bool``; other types pass through."""
    return canonical_type(t)


def type_is_int(t: Any) -> builtins.bool:
    """True for the signed and unsigned integer scalar types (and Python ``int``)."""
    return _kind(t) in ("int", "uint")


def type_is_float(t: Any) -> builtins.bool:
    """True for ``float16``/``float32``/``float64`` (and Python ``float``)."""
    return _kind(t) == "float"


def type_is_scalar(t: Any) -> builtins.bool:
    """True for the concrete scalar types, ``bool`` included."""
    return is_scalar_type(canonical_type(t))


def type_is_vector(t: Any) -> builtins.bool:
    """True for vector types (``wp.vec3``, ``wp.types.vector(5, wp.float64)``, spatial vectors)."""
    return _kind(t) == "vector"


def type_is_matrix(t: Any) -> builtins.bool:
    """True for matrix types."""
    return _kind(t) == "matrix"


def type_is_quaternion(t: Any) -> builtins.bool:
    """True for quaternion types."""
    return _kind(t) == "quaternion"


def type_is_transformation(t: Any) -> builtins.bool:
    """True for transform types."""
    return _kind(t) == "transform"


def type_is_composite(t: Any) -> builtins.bool:
    """True for vector, matrix, quaternion and transform types."""
    return _is_composite_type(canonical_type(t))


def type_is_value(t: Any) -> builtins.bool:
    """True for the value types: scalars and composites (Python ``float``/``int``/``bool`` too)."""
    return type_is_scalar(t) or type_is_composite(t)


def type_is_struct(t: Any) -> builtins.bool:
    """True for ``@wp.struct`` types."""
    return isinstance(t, type) and issubclass(t, StructBase) and t is not StructBase


def _array_type(t: Any) -> ArrayType | None:
    """The compiler's array type for an array annotation/instance or an ArrayType (else None)."""
    if isinstance(t, ArrayType):
        return t
    if getattr(type(t), "_wp_array_class_", False):
        return ArrayType(t.dtype, t.ndim)
    return None


def type_is_array(t: Any) -> builtins.bool:
    """True for array types: ``wp.array(dtype=float)`` annotations, the array classes themselves
    and the compiler's array type."""
    if isinstance(t, type):
        return builtins.bool(getattr(t, "_wp_array_class_", False))
    return _array_type(t) is not None


def type_scalar_type(t: Any) -> Any:
    """The scalar type of a type's components (``vec3d`` -> ``float64``; a scalar maps to itself)."""
    array_t = _array_type(t)
    if array_t is not None:
        return type_scalar_type(array_t.dtype)
    t = canonical_type(t)
    return getattr(t, "_wp_scalar_type_", None) or t


def type_length(t: Any) -> int:
    """Number of scalar components of a value type (1 for scalars, rows*cols for matrices)."""
    t = canonical_type(t)
    if t is Any or is_scalar_type(t) or type_is_struct(t):
        return 1
    if _is_composite_type(t):
        return t._length_
    raise TypeError(f"type_length: {t!r} is not a warp value type")


def type_size(t: Any) -> int:
    """Number of scalar components of a value type (same as :func:`type_length`)."""
    return type_length(t)


def type_ctype(t: Any) -> Any:
    """The ctypes type of ``t``'s scalar components (``c_float`` for ``float`` and ``vec3``)."""
    scalar = type_scalar_type(t)
    if not is_scalar_type(scalar):
        raise TypeError(f"type_ctype: {t!r} is not a warp scalar or composite type")
    return scalar._ctype_


def type_typestr(t: Any) -> str:
    """The NumPy array-interface type string of ``t``'s components (``'<f4'``, ``'|b1'``)."""
    scalar = type_scalar_type(t)
    if not is_scalar_type(scalar):
        raise TypeError(f"type_typestr: {t!r} is not a warp scalar or composite type")
    return scalar._np_dtype_.str


_GENERIC_KINDS = {Scalar: ("int", "uint", "float"), Float: ("float",), Int: ("int", "uint")}


def _generic_match(want: Any, got: Any) -> builtins.bool:
    if want is Any:
        return True
    kinds = _GENERIC_KINDS.get(want)
    if kinds is not None:
        return _kind(got) in kinds
    return False


def types_equal(a: Any, b: Any, match_generic: builtins.bool = False) -> builtins.bool:
    """True if ``a`` and ``b`` denote the same warp type (``float`` equals ``float32``).

    With ``match_generic=True``, ``Any``/``Scalar``/``Float``/``Int`` and generic composites
    (``wp.types.vector(length=Any, dtype=Any)``) on either side match the concrete types they cover.
    """
    a = _array_type(a) or canonical_type(a)
    b = _array_type(b) or canonical_type(b)
    if a is b or a == b:
        return True
    if match_generic:
        if _generic_match(a, b) or _generic_match(b, a):
            return True
        for want, got in ((a, b), (b, a)):
            if isinstance(want, type) and issubclass(want, GenericComposite):
                return builtins.bool(want.__match_type__(got, {}))
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return a.ndim == b.ndim and types_equal(a.dtype, b.dtype, match_generic)
    if _is_composite_type(a) and _is_composite_type(b):
        return (
            a._wp_kind_ == b._wp_kind_
            and a._shape_ == b._shape_
            and types_equal(a._wp_scalar_type_, b._wp_scalar_type_, match_generic)
        )
    return False


def type_is_tile(t: Any) -> builtins.bool:
    """True for tile types; this project has no tiles (``wp.tile*`` is not provided), so never."""
    return False


# -- value predicates -----------------------------------------------------------------------


def is_tile(x: Any) -> builtins.bool:
    """True for tile values; this project has no tiles, so never."""
    return False



def is_array(a: Any) -> builtins.bool:
    """True for ``wp.array`` instances (not annotations, not NumPy arrays)."""
    return getattr(type(a), "_wp_array_class_", False) and not getattr(a, "_is_annotation", False)


def is_scalar(x: Any) -> builtins.bool:
    """True for a scalar value: a Python number or bool, a NumPy scalar or a boxed warp scalar."""
    return isinstance(x, (ScalarBase, builtins.int, builtins.float, builtins.bool, np.number, np.bool_))


def is_int(x: Any) -> builtins.bool:
    """True for an integer value (Python ``int``, NumPy integer, or a warp integer scalar)."""
    if isinstance(x, ScalarBase):
        return type(x)._kind_ in ("int", "uint")
    return isinstance(x, (builtins.int, np.integer)) and not isinstance(x, builtins.bool)


def is_float(x: Any) -> builtins.bool:
    """True for a floating point value (Python ``float``, NumPy float, or a warp float scalar)."""
    if isinstance(x, ScalarBase):
        return type(x)._kind_ == "float"
    return isinstance(x, (builtins.float, np.floating))


def is_vector(x: Any) -> builtins.bool:
    """True for a vector instance."""
    return type_is_vector(type(x))


def is_matrix(x: Any) -> builtins.bool:
    """True for a matrix instance."""
    return type_is_matrix(type(x))


def is_quaternion(x: Any) -> builtins.bool:
    """True for a quaternion instance."""
    return type_is_quaternion(type(x))


def is_transformation(x: Any) -> builtins.bool:
    """True for a transform instance."""
    return type_is_transformation(type(x))


def is_composite_value(x: Any) -> builtins.bool:
    """True for a vector, matrix, quaternion or transform instance."""
    return isinstance(x, CompositeBase) and _is_composite_type(type(x))


def is_composite(x: Any) -> builtins.bool:
    """True for a vector, matrix, quaternion or transform instance (a type gives False)."""
    return is_composite_value(x)


def is_value(x: Any) -> builtins.bool:
    """True for a value-type instance: scalar or composite."""
    return is_scalar(x) or is_composite_value(x)


def is_struct(x: Any) -> builtins.bool:
    """True for an instance of a ``@wp.struct`` type."""
    return isinstance(x, StructBase)


def strides_from_shape(shape: tuple[int, ...], dtype: Any) -> tuple[int, ...]:
    """Row-major (C order) byte strides of a contiguous array of ``shape`` and element ``dtype``."""
    strides = [0] * len(shape)
    step = type_size_in_bytes(dtype)
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = step
        step *= int(shape[i])
    return tuple(strides)


__all__ = [
    "float_types",
    "int_types",
    "is_array",
    "is_composite",
    "is_float",
    "is_int",
    "is_matrix",
    "is_quaternion",
    "is_scalar",
    "is_struct",
    "is_tile",
    "is_transformation",
    "is_value",
    "is_vector",
    "np_dtype_to_warp_type",
    "scalar_and_bool_types",
    "scalar_types",
    "strides_from_shape",
    "type_ctype",
    "type_is_array",
    "type_is_composite",
    "type_is_float",
    "type_is_int",
    "type_is_matrix",
    "type_is_quaternion",
    "type_is_scalar",
    "type_is_struct",
    "type_is_tile",
    "type_is_transformation",
    "type_is_value",
    "type_is_vector",
    "type_length",
    "type_scalar_type",
    "type_size",
    "type_to_warp",
    "type_typestr",
    "types_equal",
    "warp_type_to_np_dtype",
]
