"""Generic composite annotations (``wp.vector(length=Any, dtype=Float)``) and the signature
patterns of composite parameters (``VectorOf(3)``, ``MatrixOf(dtype=Float)``, ...): both match
concrete composite types (:mod:`warp.types.composite_values`) by kind, shape and scalar type."""

from __future__ import annotations

from typing import Any

from warp.types.composite_values import is_composite
from warp.types.patterns import match_type
from warp.types.scalars import Float, Scalar, canonical_type, is_scalar_type, type_repr


def is_placeholder(dtype: Any) -> bool:
    """True for the generic scalar placeholders ``Any``, ``Scalar``, ``Float`` and ``Int``."""
    return dtype is Any or (isinstance(dtype, type) and issubclass(dtype, Scalar))


class GenericComposite:
    """Base of generic composite annotations such as ``wp.vector(length=Any, dtype=Float)``.

    Such a class is an annotation only (no storage, not a value type): a generic parameter
    that matches every vector/matrix/quaternion/transform of its kind whose shape and scalar
    type fit the placeholders. Functions and kernels using it are specialized per argument type.
    """

    _wp_generic_ = True
    _wp_kind_ = ""
    _shape_: tuple[Any, ...] = ()
    _dtype_: Any = Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            f"{type(self).__name__} is a generic annotation and has no values; use a concrete type"
        )

    @classmethod
    def __match_type__(cls, actual: Any, bindings: dict[str, Any]) -> bool:
        if not is_composite(actual) or actual._wp_kind_ != cls._wp_kind_:
            return False
        if len(actual._shape_) != len(cls._shape_):
            return False
        if any(want is not Any and want != got for want, got in zip(cls._shape_, actual._shape_)):
            return False
        return match_type(cls._dtype_, actual._wp_scalar_type_, bindings)


_generic_cache: dict[tuple[Any, ...], type] = {}

#: ``_wp_generic_type_str_`` of each composite kind (NVIDIA Warp's names of the generic families)
GENERIC_TYPE_STRS = {"vector": "vec_t", "matrix": "mat_t", "quaternion": "quat_t", "transform": "transform_t"}


def generic_composite(kind: str, shape: tuple[Any, ...], dtype: Any) -> type:
    """The generic annotation of composites of ``kind`` whose shape/dtype may hold placeholders."""
    if not (is_placeholder(dtype) or is_scalar_type(canonical_type(dtype))):
        raise TypeError(f"component type must be a scalar type or a placeholder, got {type_repr(dtype)}")
    dtype = dtype if is_placeholder(dtype) else canonical_type(dtype)
    for n in shape:
        if n is not Any and (not isinstance(n, int) or n < 1):
            raise ValueError(f"{kind} dimensions must be positive integers or Any, got {shape!r}")
    key = (kind, shape, dtype)
    cls = _generic_cache.get(key)
    if cls is None:
        dims = ", ".join("Any" if n is Any else str(n) for n in shape)
        what = {"vector": f"length={dims}, ", "matrix": f"shape=({dims}), "}.get(kind, "")
        name = f"{kind}({what}dtype={'Any' if dtype is Any else dtype.__name__})"
        cls = type(name, (GenericComposite,), {"_wp_kind_": kind, "_shape_": shape, "_dtype_": dtype,
                                               "_wp_generic_type_str_": GENERIC_TYPE_STRS.get(kind, ""),
                                               "__module__": "warp.types"})
        _generic_cache[key] = cls
    return cls


class CompositePattern:
    """Signature pattern: a composite kind with optional shape and a dtype pattern."""

    def __init__(self, kind: str, shape: tuple[int | None, ...] | None = None, dtype: Any = Scalar):
        self.kind = kind
        self.shape = shape
        self.dtype = dtype

    def match(self, actual: Any, bindings: dict[str, Any]) -> bool:
        if not is_composite(actual) or actual._wp_kind_ != self.kind:
            return False
        if self.shape is not None:
            for want, got in zip(self.shape, actual._shape_):
                if want is not None and want != got:
                    return False
        return match_type(self.dtype, actual._wp_scalar_type_, bindings)

    def __repr__(self) -> str:
        shape = "" if self.shape is None else f"shape={self.shape}, "
        return f"{self.kind}({shape}dtype={type_repr(self.dtype)})"


def VectorOf(length: int | None = None, dtype: Any = Scalar) -> CompositePattern:  # noqa: N802
    """Pattern for vectors of a given length (None: any) and dtype pattern."""
    return CompositePattern("vector", None if length is None else (length,), dtype)


def MatrixOf(rows: int | None = None, cols: int | None = None, dtype: Any = Scalar) -> CompositePattern:  # noqa: N802
    """Pattern for matrices of a given shape (None: any) and dtype pattern."""
    return CompositePattern("matrix", (rows, cols), dtype)


def QuatOf(dtype: Any = Float) -> CompositePattern:  # noqa: N802
    """Pattern for quaternions of a dtype pattern."""
    return CompositePattern("quaternion", None, dtype)


def TransformOf(dtype: Any = Float) -> CompositePattern:  # noqa: N802
    """Pattern for transforms of a dtype pattern."""
    return CompositePattern("transform", None, dtype)
