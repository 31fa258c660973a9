"""The classes of concrete composite types, made once per (kind, shape, scalar type) and cached,
and their names as NVIDIA Warp gives them (``vec3f``, ``vec2ub``, ``mat33d``, ``quath``,
``spatial_vectorf``, ``transformd``); see :mod:`warp.types.composite_values` for their attributes."""

from __future__ import annotations

import math
from typing import Any

from warp.types import scalars as _s
from warp.types.scalars import canonical_type, float16, float32, float64, is_scalar_type, type_repr

_cache: dict[tuple[Any, ...], type] = {}

#: name suffixes of the float component types (matrices, quaternions, transforms, spatial vectors)
_SUFFIX = {float16: "h", float32: "f", float64: "d"}
#: name suffixes of vectors' component types: float and integer families
_VEC_SUFFIX: dict[Any, str] = {
    _s.float16: "h", _s.float32: "f", _s.float64: "d", _s.int8: "b", _s.uint8: "ub", _s.int16: "s",
    _s.uint16: "us", _s.int32: "i", _s.uint32: "ui", _s.int64: "l", _s.uint64: "ul",
}


def component_type(dtype: Any) -> Any:
    """``dtype`` as the scalar type of a composite's components (TypeError if it is not one)."""
    dtype = canonical_type(dtype)
    if not is_scalar_type(dtype):
        raise TypeError(f"component type must be a scalar type, got {type_repr(dtype)}")
    return dtype


def composite_class(base: type, key: tuple[Any, ...], name: str, shape: tuple[int, ...], dtype: Any) -> type:
    """The class ``name`` deriving from ``base`` with components of ``shape`` and ``dtype``, made
    the first time ``key`` is asked for."""
    cls = _cache.get(key)
    if cls is None:
        attrs = {
            "__slots__": (),
            "__module__": "warp.types",
            "_shape_": shape,
            "_length_": math.prod(shape),  # number of components, as in NVIDIA Warp (rows*cols)
            "_wp_scalar_type_": dtype,
            "_type_": dtype._ctype_,
            "_size_in_bytes_": math.prod(shape) * (dtype._bits_ // 8),
            "_wp_alignment_": max(1, dtype._bits_ // 8),
        }
        cls = type(name, (base,), attrs)
        _cache[key] = cls
    return cls


def vector_name(length: int, dtype: Any) -> str:
    """``vec3f``, ``spatial_vectord``, or ``vector(length=5, dtype=float32)``."""
    suffix = _VEC_SUFFIX.get(dtype)
    if suffix and 2 <= length <= 4:
        name = f"vec{length}{suffix}"
    elif length == 6 and dtype in _SUFFIX:  # the type of wp.spatial_vectorf & co., named as in Warp
        name = f"spatial_vector{_SUFFIX[dtype]}"
    else:
        name = f"vector(length={length}, dtype={dtype.__name__})"
    return name


def matrix_name(rows: int, cols: int, dtype: Any) -> str:
    """``mat33f``, ``spatial_matrixd``, or ``matrix(shape=(2, 3), dtype=float32)``."""
    suffix = _SUFFIX.get(dtype)
    if suffix and rows == cols and 2 <= rows <= 4:
        name = f"mat{rows}{cols}{suffix}"
    elif suffix and rows == cols == 6:  # the type of wp.spatial_matrixf & co., named as in Warp
        name = f"spatial_matrix{suffix}"
    else:
        name = f"matrix(shape=({rows}, {cols}), dtype={dtype.__name__})"
    return name


def quaternion_name(dtype: Any) -> str:
    """``quatf``, ``quatd``, ``quath`` (``quat_<name>`` for other component types)."""
    return f"quat{_SUFFIX.get(dtype, '_' + dtype.__name__)}"


def transform_name(dtype: Any) -> str:
    """``transformf``, ``transformd``, ``transformh`` (``transform_<name>`` for other component types)."""
    return f"transform{_SUFFIX.get(dtype, '_' + dtype.__name__)}"
