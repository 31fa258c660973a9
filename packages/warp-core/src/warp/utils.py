"""``warp.utils``: array reductions, scans, sorts and run-length encoding from Python scope.

These mirror NVIDIA Warp's ``warp.utils`` functions (same names, parameters, results and
errors). They compute on the host with NumPy: CPU arrays are read and written in place
(zero-copy); arrays on another device are staged through host memory. They are not recorded
by graph capture.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from warp.arrays.array import array
from warp.arrays.conversion import is_bfloat16_element
from warp.types import bfloat16_bits
from warp.types.composite import is_composite
from warp.types.scalars import float32, float64, int32, int64, is_scalar_type, uint32, uint64

__all__ = [
    "array_cast",
    "array_inner",
    "array_scan",
    "array_sum",
    "radix_sort_pairs",
    "runlength_encode",
    "segmented_sort_pairs",
]


# -- host access ----------------------------------------------------------------------------------


def _read(a: array) -> np.ndarray:
    """The array's values as a NumPy array (composite dtypes add trailing dimensions; bfloat16
    components as float32 values, not their bit patterns)."""
    if is_bfloat16_element(a.dtype):
        return bfloat16_bits.from_bits(a.numpy())
    return a.numpy()


def _on_host(a: array) -> bool:
    """True when ``a``'s memory is host memory (a NumPy view of it writes through)."""
    if a.device is None:
        raise TypeError("expected a warp array with data, got an array annotation")
    return a.device.is_cpu


def _write(a: array, values: np.ndarray) -> None:
    """Store ``values`` (shaped like ``a.numpy()``) into ``a`` (bfloat16: rounded to nearest)."""
    if is_bfloat16_element(a.dtype):
        values = bfloat16_bits.to_bits(values)
    if _on_host(a):
        a.numpy()[...] = values
    else:
        host = np.array(a.numpy())
        host[...] = values
        a.assign(host)


def _check_same_device(*arrays: Any) -> None:
    devices = {str(a.device) for a in arrays if a is not None}
    if len(devices) > 1:
        raise RuntimeError(f"arrays live on different devices: {sorted(devices)}")


def _scalar_type(dtype: Any) -> Any:
    return dtype._wp_scalar_type_ if is_composite(dtype) else dtype


def _inner_ndim(dtype: Any) -> int:
    return len(dtype._shape_) if is_composite(dtype) else 0


def _element_value(dtype: Any, value: np.ndarray) -> Any:
    if is_scalar_type(dtype):
        return value.item()
    return dtype(value)


def _reduced_shape(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    return tuple(1 if i == axis else n for i, n in enumerate(shape))


def _check_axis(values: array, axis: int) -> int:
    if not -values.ndim <= axis < values.ndim:
        raise IndexError(f"axis {axis} is out of bounds for an array of {values.ndim} dimensions")
    return axis % values.ndim


def _check_out(out: array, values: array, dtype: Any, shape: tuple[int, ...], what: str) -> None:
    _check_same_device(values, out)
    if out.dtype is not dtype:
        raise RuntimeError(f"{what}: output array has dtype {out.dtype.__name__}, expected {dtype.__name__}")
    if tuple(out.shape) != shape:
        raise RuntimeError(f"{what}: output array has shape {out.shape}, expected {shape}")


def _first(flat: np.ndarray, count: int | None, size: int, what: str) -> np.ndarray:
    if count is None:
        return flat
    if count < 0 or count > size:
        raise RuntimeError(f"{what}: count {count} is out of range for an array of {size} elements")
    return flat[:count]


# -- reductions -----------------------------------------------------------------------------------


def array_sum(
    values: array, out: array | None = None, value_count: int | None = None, axis: int | None = None
) -> Any:
    """Sum of the elements (float32/float64 scalars or composites of them).

    With ``axis=None`` and no ``out``, returns the sum as a Python float (or a value of the
    composite dtype); otherwise stores it into ``out`` (shape ``(1,)``, or ``values.shape`` with
    the reduced axis of size 1) and returns ``out``.
    """
    dtype = values.dtype
    if _scalar_type(dtype) not in (float32, float64):
        raise RuntimeError(
            f"array_sum: unsupported data type {dtype.__name__} (float32 or float64 components)"
        )
    data = _read(values)
    np_type = _scalar_type(dtype)._np_dtype_
    inner = data.shape[values.ndim :]
    if axis is None:
        flat = _first(data.reshape((-1, *inner)), value_count, values.size, "array_sum")
        total = flat.sum(axis=0, dtype=np_type)
        if out is None:
            return _element_value(dtype, np.asarray(total))
        _check_out(out, values, dtype, (1,), "array_sum")
        _write(out, np.asarray(total).reshape((1, *inner)))
        return out
    axis = _check_axis(values, axis)
    shape = _reduced_shape(values.shape, axis)
    if out is None:
        out = array(shape=shape, dtype=dtype, device=values.device)
    _check_out(out, values, dtype, shape, "array_sum")
    _write(out, data.sum(axis=axis, keepdims=True, dtype=np_type))
    return out


def array_inner(
    a: array, b: array, out: array | None = None, count: int | None = None, axis: int | None = None
) -> Any:
    """Inner product of two arrays of the same shape and dtype (composites: sum of dot products).

    With ``axis=None`` and no ``out``, returns a Python float; otherwise stores the result into
    ``out`` (scalar dtype; shape ``(1,)`` or ``a.shape`` with the reduced axis of size 1).
    """
    _check_same_device(a, b)
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"array_inner: arrays have different shapes {a.shape} and {b.shape}")
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"array_inner: arrays have different dtypes {a.dtype.__name__} and {b.dtype.__name__}"
        )
    scalar = _scalar_type(a.dtype)
    if scalar not in (float32, float64):
        raise RuntimeError(
            f"array_inner: unsupported data type {a.dtype.__name__} (float32 or float64 components)"
        )
    np_type = scalar._np_dtype_
    products = _read(a) * _read(b)
    inner_axes = tuple(range(a.ndim, a.ndim + _inner_ndim(a.dtype)))
    if inner_axes:
        products = products.sum(axis=inner_axes, dtype=np_type)
    if axis is None:
        flat = _first(products.reshape(-1), count, a.size, "array_inner")
        total = flat.sum(dtype=np_type)
        if out is None:
            return total.item()
        _check_out(out, a, scalar, (1,), "array_inner")
        _write(out, np.asarray(total).reshape(1))
        return out
    axis = _check_axis(a, axis)
    shape = _reduced_shape(a.shape, axis)
    if out is None:
        out = array(shape=shape, dtype=scalar, device=a.device)
    _check_out(out, a, scalar, shape, "array_inner")
    _write(out, products.sum(axis=axis, keepdims=True, dtype=np_type))
    return out


def array_scan(in_array: array, out_array: array, inclusive: bool = True) -> None:
    """Prefix sum of a 1-D array into ``out_array`` (inclusive: ``out[i] = in[0] + ... + in[i]``;
    exclusive: ``out[0] = 0``, ``out[i] = in[0] + ... + in[i-1]``)."""
    _check_same_device(in_array, out_array)
    if in_array.dtype is not out_array.dtype:
        raise RuntimeError("array_scan: input and output arrays must have the same dtype")
    dtype = in_array.dtype
    if not is_scalar_type(dtype) or dtype._kind_ == "bool" or is_bfloat16_element(dtype):
        raise RuntimeError(f"array_scan: unsupported data type {in_array.dtype.__name__}")
    if in_array.size != out_array.size:
        raise RuntimeError(f"array_scan: arrays have different sizes {in_array.size} and {out_array.size}")
    np_type = in_array.dtype._np_dtype_
    data = _read(in_array).reshape(-1)
    result = np.cumsum(data, dtype=np_type)
    if not inclusive:
        result = np.concatenate([np.zeros(1, dtype=np_type), result[:-1]]) if result.size else result
    _write(out_array, result.reshape(out_array.shape))


def array_cast(in_array: array, out_array: array, count: int | None = None) -> None:
    """Element-wise conversion of ``in_array`` into ``out_array``'s dtype (C casts: floats to
    integers truncate). Arrays whose dtypes have different component shapes are cast flattened,
    component by component."""
    _check_same_device(in_array, out_array)
    if count is not None and in_array.ndim > 1:
        raise RuntimeError("array_cast: partial casting (count) of multi-dimensional arrays is not supported")
    src = _read(in_array)
    dst = np.array(_read(out_array))
    if count is None and src.shape == dst.shape:
        _write(out_array, _cast(src, dst.dtype))
        return
    flat_src, flat_dst = src.reshape(-1), dst.reshape(-1)
    per_element = src[0].size if in_array.size else 1
    n = flat_src.size if count is None else count * per_element
    if n > flat_src.size or n > flat_dst.size:
        raise RuntimeError(f"array_cast: {n} components do not fit both arrays")
    flat_dst[:n] = _cast(flat_src[:n], dst.dtype)
    _write(out_array, dst)


def _cast(values: np.ndarray, np_type: np.dtype) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return values.astype(np_type)


# -- sorting and run-length encoding ------------------------------------------------------------

_SORT_KEYS = (int32, uint32, int64, uint64, float32, float64)


def _check_pairs(keys: array, values: array, count: int, what: str) -> None:
    _check_same_device(keys, values)
    if keys.dtype not in _SORT_KEYS:
        raise RuntimeError(f"{what}: unsupported key type {getattr(keys.dtype, '__name__', keys.dtype)}")
    if not is_scalar_type(values.dtype) or values.dtype._bits_ not in (32, 64):
        raise RuntimeError(f"{what}: values must be 4 or 8 byte scalars")
    if keys.ndim != 1 or values.ndim != 1 or not keys.is_contiguous or not values.is_contiguous:
        raise RuntimeError(f"{what}: keys and values must be contiguous 1-D arrays")
    if count < 0:
        raise RuntimeError(f"{what}: count must not be negative, got {count}")
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError(
            f"{what}: keys and values need room for 2*count = {2 * count} elements "
            f"(scratch space), have {keys.size} and {values.size}"
        )


def radix_sort_pairs(keys: array, values: array, count: int) -> None:
    """Stable sort of the first ``count`` (key, value) pairs by key, in place.

    As in NVIDIA Warp, both arrays must hold at least ``2 * count`` elements; the second half is
    scratch space whose contents are unspecified afterwards.
    """
    _check_pairs(keys, values, count, "radix_sort_pairs")
    k, v = _read(keys), _read(values)
    order = np.argsort(k[:count], kind="stable")
    new_k, new_v = k[:count][order], v[:count][order]
    if _on_host(keys):
        k[:count], v[:count] = new_k, new_v
    else:
        hk, hv = np.array(k), np.array(v)
        hk[:count], hv[:count] = new_k, new_v
        keys.assign(hk)
        values.assign(hv)


def segmented_sort_pairs(
    keys: array,
    values: array,
    count: int,
    segment_start_indices: array,
    segment_end_indices: array | None = None,
) -> None:
    """Stable sort of (key, value) pairs within each segment ``[start, end)``, in place.

    Without ``segment_end_indices`` the segment ends are ``segment_start_indices[1:]``. Pairs
    outside every segment keep their place. Keys and values need room for ``2 * count``.
    """
    _check_pairs(keys, values, count, "segmented_sort_pairs")
    starts = _read(segment_start_indices).reshape(-1)
    if segment_start_indices.dtype is not int32:
        raise RuntimeError("segmented_sort_pairs: segment_start_indices must be an int32 array")
    if segment_end_indices is None:
        ends = starts[1:]
        starts = starts[:-1]
    else:
        if segment_end_indices.dtype is not int32:
            raise RuntimeError("segmented_sort_pairs: segment_end_indices must be an int32 array")
        ends = _read(segment_end_indices).reshape(-1)[: starts.size]
        starts = starts[: ends.size]
    k, v = np.array(_read(keys)), np.array(_read(values))
    for s, e in zip(starts.tolist(), ends.tolist()):
        if not 0 <= s <= e <= count:
            raise ValueError(f"segmented_sort_pairs: segment [{s}, {e}) is not within [0, {count}]")
        order = np.argsort(k[s:e], kind="stable")
        k[s:e], v[s:e] = k[s:e][order], v[s:e][order]
    _write(keys, k)
    _write(values, v)


def runlength_encode(
    values: array,
    run_values: array,
    run_lengths: array,
    run_count: array | None = None,
    value_count: int | None = None,
) -> Any:
    """Run-length encode ``values`` (int32): ``[1, 1, 1, 2, 2, 3]`` gives run values ``[1, 2, 3]``
    and run lengths ``[3, 2, 1]``. Returns the number of runs, or stores it in ``run_count[0]``
    and returns ``run_count``."""
    _check_same_device(values, run_values, run_lengths, run_count)
    for name, a in (("values", values), ("run_values", run_values), ("run_lengths", run_lengths)):
        if a.dtype is not int32:
            raise RuntimeError(f"runlength_encode: {name} must be an int32 array")
    n = values.size if value_count is None else value_count
    if n < 0 or n > values.size:
        raise RuntimeError(f"runlength_encode: value_count {value_count} is out of range")
    if run_values.size < n or run_lengths.size < n:
        raise RuntimeError("runlength_encode: output arrays must hold at least value_count elements")
    data = _read(values).reshape(-1)[:n]
    if n:
        starts = np.flatnonzero(np.concatenate([[True], data[1:] != data[:-1]]))
        lengths = np.diff(np.append(starts, n))
        runs = builtins.int(starts.size)
        rv, rl = np.array(_read(run_values)), np.array(_read(run_lengths))
        rv[:runs], rl[:runs] = data[starts], lengths
        _write(run_values, rv)
        _write(run_lengths, rl)
    else:
        runs = 0
    if run_count is None:
        return runs
    if run_count.dtype is not int32:
        raise RuntimeError("runlength_encode: run_count must be an int32 array")
    cnt = np.array(_read(run_count))
    cnt.reshape(-1)[0] = runs
    _write(run_count, cnt)
    return run_count
