"""``array_sum`` and ``array_inner``: sums of an array's elements (or of two arrays' products),
whole or along one axis."""

from __future__ import annotations

from typing import Any

import numpy as np

from warp.arrays.array import array
from warp.types.composite_values import is_composite
from warp.types.helpers import types_equal
from warp.types.scalars import float32, float64, is_scalar_type
from warp.utils import _access
from warp.utils._access import check_same_device, scalar_type


def _check_axis(values: array, axis: int, what: str) -> int:
    if not -values.ndim <= axis < values.ndim:
        raise IndexError(f"{what}() axis {axis} is out of bounds for an array of {values.ndim} dimensions")
    return axis % values.ndim


def _check_out(out: array, values: array, dtype: Any, shape: tuple[int, ...], what: str) -> None:
    check_same_device(values, out)
    if out.dtype is not dtype:
        raise RuntimeError(f"{what}: out array should have type {dtype.__name__}")
    if tuple(out.shape) != shape:
        raise RuntimeError(f"{what}: out array should have shape {shape}")


def _leading(data: np.ndarray, axis: int, count: int | None, size: int, what: str) -> np.ndarray:
    """``data`` restricted to the first ``count`` entries along ``axis`` (all when None)."""
    if count is None:
        return data
    if count < 0 or count > size:
        raise RuntimeError(f"{what}: count {count} is out of range for an axis of {size} elements")
    return data[(slice(None),) * axis + (slice(0, count),)]


def _first_count(count: int | None, size: int, what: str) -> int:
    """How many leading elements a reduction without ``axis`` covers (all when ``count`` is None)."""
    if count is None:
        return size
    if count < 0 or count > size:
        raise RuntimeError(f"{what}: count {count} is out of range for an array of {size} elements")
    return count


def _device_total(
    values: array, other: array | None, dtype: Any, out: array | None, count: int | None, what: str
) -> Any:
    """The sum of the first ``count`` elements of ``values`` (or of ``values * other``) computed
    on their device by a plugin, stored into ``out`` (then returned) or returned as a Python
    value; None when no plugin computes it there. ``out`` is checked first (type ``dtype``)."""
    if out is not None:
        _check_out(out, values, dtype, (1,), what)
    first = _first_count(count, values.size, what)
    impl = _access.device_impl(values)
    if impl is None:
        return None
    scalar = scalar_type(values.dtype)
    target = out if out is not None else array(shape=(1,), dtype=scalar, device=values.device)
    if not impl.array_inner(values, other, target, first):
        return None
    return out if out is not None else target.numpy()[0].item()


def _host_sum(
    values: array,
    terms: np.ndarray,
    dtype: Any,
    out: array | None,
    count: int | None,
    axis: int | None,
    what: str,
) -> Any:
    """Sum ``terms`` (one entry per element of ``values``, composites adding trailing dimensions)
    on the host: whole (a Python value of ``dtype``, or stored into ``out`` of shape ``(1,)``)
    or along ``axis`` (into ``out``, made when None); ``count`` limits it to the first entries."""
    np_type = scalar_type(dtype)._np_dtype_
    if axis is None:
        inner = terms.shape[values.ndim :]
        flat = terms.reshape((-1, *inner))[: _first_count(count, values.size, what)]
        total = np.asarray(flat.sum(axis=0, dtype=np_type))
        if out is None:
            return total.item() if is_scalar_type(dtype) else dtype(total)
        _check_out(out, values, dtype, (1,), what)
        _access.write(out, total.reshape((1, *inner)))
        return out
    axis = _check_axis(values, axis, what)
    shape = tuple(1 if i == axis else n for i, n in enumerate(values.shape))
    if out is None:
        out = array(shape=shape, dtype=dtype, device=values.device)
    _check_out(out, values, dtype, shape, what)
    terms = _leading(terms, axis, count, values.shape[axis], what)
    _access.write(out, terms.sum(axis=axis, keepdims=True, dtype=np_type))
    return out


def array_sum(
    values: array, out: array | None = None, value_count: int | None = None, axis: int | None = None
) -> Any:
    """Sum of the elements (float32/float64 scalars or composites of them).

    With ``axis=None`` and no ``out``, returns the sum as a Python float (or a value of the
    composite dtype); otherwise stores it into ``out`` (shape ``(1,)``, or ``values.shape`` with
    the reduced axis of size 1) and returns ``out``.
    """
    dtype = values.dtype
    if scalar_type(dtype) not in (float32, float64):
        raise RuntimeError(f"array_sum: Unsupported data type: {dtype.__name__}")
    if axis is None:
        total = _device_total(values, None, dtype, out, value_count, "array_sum")
        if total is not None:
            return total
    return _host_sum(values, _access.read(values), dtype, out, value_count, axis, "array_sum")


def array_inner(
    a: array, b: array, out: array | None = None, count: int | None = None, axis: int | None = None
) -> Any:
    """Inner product of two arrays of the same shape and dtype (composites: sum of dot products).

    With ``axis=None`` and no ``out``, returns a Python float; otherwise stores the result into
    ``out`` (scalar dtype; shape ``(1,)`` or ``a.shape`` with the reduced axis of size 1).
    With ``axis``, ``count`` limits the reduction to the first ``count`` entries along it.
    """
    check_same_device(a, b)
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"array_inner() arguments must have the same shape, got {a.shape} and {b.shape}")
    if not types_equal(a.dtype, b.dtype):
        raise RuntimeError(
            f"array_inner: A and b array data types do not match ({a.dtype.__name__} vs {b.dtype.__name__})"
        )
    scalar = scalar_type(a.dtype)
    if scalar not in (float32, float64):
        raise RuntimeError(f"array_inner: Unsupported data type: {a.dtype.__name__}")
    if axis is None:
        total = _device_total(a, b, scalar, out, count, "array_inner")
        if total is not None:
            return total
    products = _access.read(a) * _access.read(b)
    if is_composite(a.dtype):
        inner_axes = tuple(range(a.ndim, a.ndim + len(a.dtype._shape_)))
        products = products.sum(axis=inner_axes, dtype=scalar._np_dtype_)
    return _host_sum(a, products, scalar, out, count, axis, "array_inner")
