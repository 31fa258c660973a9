"""Memory layout helpers for arrays: shapes, strides, element descriptions and CPU allocation.

Element types are described generically so that composite types (vectors, matrices, structs)
work without special cases here. A dtype may provide:

- ``_shape_``: trailing NumPy dimensions of one element (``(3,)`` for ``vec3``);
- ``_wp_scalar_type_``: the scalar type of its components;
- ``numpy_dtype()``: a (structured) NumPy dtype describing one element (structs);
- ``_size_in_bytes_``: the element size (see :func:`warp.types.scalars.type_size_in_bytes`).
"""

from __future__ import annotations

import math
import typing
from dataclasses import dataclass
from typing import Any

import numpy as np

from warp.errors import ArrayViewError, IncompatibleDataTypeError
from warp.types.array_type import MAX_DIMS
from warp.types.scalars import (
    ScalarBase,
    canonical_type,
    dtype_from_numpy,
    dtype_to_numpy,
    is_scalar_type,
    type_repr,
    type_size_in_bytes,
)

#: Largest extent of one dimension (shapes are stored as int32 in kernel descriptors).
MAX_EXTENT = 2**31 - 1


@dataclass(frozen=True)
class ElementInfo:
    """How one array element maps to NumPy: component dtype, trailing shape and byte size."""

    np_dtype: np.dtype
    inner_shape: tuple[int, ...]
    inner_strides: tuple[int, ...]
    itemsize: int

    @property
    def inner_size(self) -> int:
        """Number of NumPy components in one element."""
        return math.prod(self.inner_shape)


_element_cache: dict[Any, ElementInfo] = {}


def resolve_dtype(dtype: Any) -> Any:
    """Canonicalize a dtype: Python ``float``/``int``/``bool`` and NumPy dtypes map to warp types."""
    dtype = canonical_type(dtype)
    if isinstance(dtype, np.dtype) or (isinstance(dtype, type) and issubclass(dtype, np.generic)):
        return dtype_from_numpy(dtype)
    return dtype


def is_generic_dtype(dtype: Any) -> bool:
    """True for placeholders that have no storage (``Any``, ``wp.Float``, ...)."""
    if dtype is typing.Any:
        return True
    if is_scalar_type(dtype):
        return False
    try:
        type_size_in_bytes(dtype)
    except TypeError:
        return True
    return False


def element_info(dtype: Any) -> ElementInfo:
    """The :class:`ElementInfo` of a concrete element type (cached)."""
    try:
        return _element_cache[dtype]
    except (KeyError, TypeError):
        pass
    try:
        itemsize = type_size_in_bytes(dtype)
    except TypeError:
        raise TypeError(f"{type_repr(dtype)} is not a valid array dtype") from None
    np_dtype = np.dtype(dtype_to_numpy(dtype))
    inner_shape = tuple(int(d) for d in getattr(dtype, "_shape_", ()) or ())
    if np_dtype.fields is None and not inner_shape and np_dtype.itemsize != itemsize:
        inner_shape = (itemsize // np_dtype.itemsize,)
    inner_strides = contiguous_strides(inner_shape, np_dtype.itemsize) if inner_shape else ()
    info = ElementInfo(np_dtype, inner_shape, inner_strides, itemsize)
    try:
        _element_cache[dtype] = info
    except TypeError:
        pass
    return info


def normalize_shape(shape: Any) -> tuple[int, ...]:
    """A shape as a tuple of ints (an int ``n`` means ``(n,)``); at most 4 dimensions."""
    if isinstance(shape, (int, np.integer)):
        dims: tuple[int, ...] = (int(shape),)
    else:
        try:
            dims = tuple(int(d) for d in shape)
        except TypeError:
            raise TypeError(f"invalid array shape {shape!r}: expected an int or a tuple of ints") from None
    if not 1 <= len(dims) <= MAX_DIMS:
        raise ValueError(
            f"invalid array shape {shape!r}: arrays have 1 to {MAX_DIMS} dimensions, not {len(dims)}"
        )
    for d in dims:
        if d < 0:
            raise ValueError(f"Array shapes must be non-negative, got {shape!r}")
        if d > MAX_EXTENT:
            raise ValueError(f"invalid array shape {shape!r}: dimension {d} exceeds {MAX_EXTENT}")
    return dims


def contiguous_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """Row-major (C order) byte strides for ``shape`` (as NVIDIA Warp computes them: the
    dimensions in front of an empty one get stride 0)."""
    strides = [0] * len(shape)
    step = itemsize
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = step
        step *= shape[i]
    return tuple(strides)


def is_contiguous_layout(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> bool:
    """True if the elements are packed in row-major order (dimensions of extent 1 ignored)."""
    expected = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n == 0:
            return True
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def span_in_bytes(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> int:
    """Bytes addressable from the first element (0 for empty arrays)."""
    if any(n == 0 for n in shape):
        return 0
    return sum((n - 1) * abs(s) for n, s in zip(shape, strides)) + itemsize


def infer_scalar_dtype(value: Any) -> Any:
    """The warp scalar type of a Python/NumPy/warp scalar value (``1.0`` -> ``float32``)."""
    if isinstance(value, bool) or isinstance(value, np.bool_):
        return canonical_type(bool)
    if isinstance(value, ScalarBase):
        return type(value)
    if isinstance(value, np.generic):
        return dtype_from_numpy(value.dtype)
    if isinstance(value, int):
        return canonical_type(int)
    if isinstance(value, float):
        return canonical_type(float)
    return None


def same_size_integers(a: np.dtype, b: np.dtype) -> bool:
    """Whether data of component type ``b`` may be viewed as ``a``: equal types, or integer/bool
    types of the same size (signed as unsigned, bool as int8)."""
    if a == b:
        return True
    return a.kind in "iub" and b.kind in "iub" and a.itemsize == b.itemsize


def fold_element_dims(shape: tuple[int, ...], strides: tuple[int, ...], scalar: Any, target: Any,
                      what: str, source: str | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Fold trailing dimensions of ``scalar`` data into ``target`` elements.

    ``(n, 3)`` float32 data with ``target=vec3`` becomes ``n`` vec3 elements, and so does a
    flat contiguous last dimension of whole elements (``(4 n,)`` data as ``n`` mat22f, as for
    NumPy data); ``shape`` and ``strides`` (bytes) describe the scalar data. Raises TypeError
    naming ``what`` when the component types differ
    (:class:`~warp.errors.IncompatibleDataTypeError`, naming the data's type as ``source``
    spells it, e.g. "DLPack bool8") or the trailing dimensions are not the element's,
    contiguous. Integer and bool components of one size view each other (int32 data as
    uint32, bool as int8), as a NumPy ``view`` does.
    """
    info = element_info(target)
    if not same_size_integers(np.dtype(info.np_dtype), np.dtype(dtype_to_numpy(scalar))):
        source = source or f"data of type {type_repr(scalar)}"
        raise IncompatibleDataTypeError(
            f"{what}: Incompatible data types: {source} and Warp {type_repr(target)} "
            f"(cannot view {type_repr(scalar)} data as {type_repr(target)}: the component types differ)"
        )
    k = len(info.inner_shape)
    if not k:
        return shape, strides
    trailing_shape, trailing_strides = tuple(shape[len(shape) - k:]), tuple(strides[len(strides) - k:])
    length = int(np.prod(info.inner_shape))
    scalar_size = info.inner_strides[-1]
    if (trailing_shape != info.inner_shape and shape and shape[-1] % length == 0
            and strides[-1] == scalar_size):
        # a flat, contiguous last dimension holding whole elements (4 floats as one mat22f), as
        # NumPy data is taken
        outer = (*shape[:-1], shape[-1] // length)
        return outer, (*strides[:-1], info.itemsize)
    if trailing_shape != info.inner_shape or trailing_strides != info.inner_strides:
        raise TypeError(
            f"{what}: data of shape {tuple(shape)} cannot be viewed as an array of {type_repr(target)}: "
            f"expected contiguous trailing dimensions {info.inner_shape}"
        )
    outer = tuple(shape[: len(shape) - k])
    return (outer or (1,)), (tuple(strides[: len(strides) - k]) or (info.itemsize,))


def view_layout(shape: tuple[int, ...], strides: tuple[int, ...], src: Any, dst: Any) -> tuple[
        tuple[int, ...], tuple[int, ...]]:
    """(shape, byte strides) of a view of elements of dtype ``src`` as dtype ``dst``.

    Same-size dtypes keep the layout; a vector/matrix viewed as its scalar size gains its
    component dimensions; scalars viewed as a vector/matrix of their size fold the trailing
    (contiguous) dimensions that match its shape. Anything else raises :class:`ArrayViewError`.
    """
    src_size, dst_size = type_size_in_bytes(src), type_size_in_bytes(dst)
    if src_size == dst_size:
        return shape, strides
    where = f"cannot create an array view with dtype {type_repr(dst)} from source dtype {type_repr(src)}"
    src_inner = tuple(getattr(src, "_shape_", ()) or ())
    dst_inner = tuple(getattr(dst, "_shape_", ()) or ())
    if src_inner and is_scalar_type(dst):
        scalar = src._wp_scalar_type_
        if type_size_in_bytes(scalar) != dst_size:
            raise ArrayViewError(
                f"{where}: source scalar dtype {type_repr(scalar)} has size {type_size_in_bytes(scalar)} "
                f"bytes, but target dtype has size {dst_size} bytes"
            )
        new_shape = shape + src_inner
        if len(new_shape) > MAX_DIMS:
            raise ArrayViewError(
                f"{where}: the view would have {len(new_shape)} dimensions (at most {MAX_DIMS})"
            )
        return new_shape, strides + contiguous_strides(src_inner, dst_size)
    if dst_inner and is_scalar_type(src):
        scalar = dst._wp_scalar_type_
        if type_size_in_bytes(scalar) != src_size:
            raise ArrayViewError(
                f"{where}: source dtype has size {src_size} bytes, but target scalar dtype "
                f"{type_repr(scalar)} has size {type_size_in_bytes(scalar)} bytes"
            )
        k = len(dst_inner)
        packed = contiguous_strides(dst_inner, src_size)
        if len(shape) < k or shape[-k:] != dst_inner or strides[-k:] != packed:
            raise ArrayViewError(
                f"{where}: the trailing dimensions must be contiguous and of shape {dst_inner}, "
                f"got shape {shape}"
            )
        if len(shape) == k:  # a single element: arrays have at least one dimension
            return (1,), (dst_size,)
        return shape[:-k], strides[:-k]
    raise ArrayViewError(
        f"{where}: source dtype has size {src_size} bytes, but target dtype has size {dst_size} bytes"
    )
