"""``warp.utils``: array reductions, scans, sorts and run-length encoding from Python scope.

These mirror NVIDIA Warp's ``warp.utils`` functions (same names, parameters, results and
errors). CPU arrays are computed on the host with NumPy, read and written in place (zero-copy).
Arrays on another device are computed there in kernels when a plugin provides them (the
``warp_device_array_utils`` hook; warp-builtins does for CUDA devices: ``radix_sort_pairs``,
``segmented_sort_pairs``, ``array_cast``, ``array_scan`` of int32/float32, ``runlength_encode``,
``array_sum``/``array_inner`` of float32/float64 without ``axis``): graph capture records those.
Otherwise they are staged through host memory, which graph capture refuses.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from warp.arrays.array import array
from warp.arrays.capture_guard import refuse_while_capturing
from warp.arrays.conversion import is_bfloat16_element
from warp.plugins.array_utils import device_array_utils
from warp.types import bfloat16_bits
from warp.types.composite_values import is_composite
from warp.types.helpers import types_equal
from warp.types.scalars import (
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    is_scalar_type,
    type_size_in_bytes,
    uint8,
    uint16,
    uint32,
    uint64,
)

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
    components as float32 values, not their bit patterns).

    Raises ``NotImplementedError`` while a graph capture records ``a``'s device: the host
    computation would run once, on values not computed yet, and never on replay."""
    if a.device is not None:
        refuse_while_capturing(a.device, "wp.utils functions (they compute on the host)")
    if is_bfloat16_element(a.dtype):
        return bfloat16_bits.from_bits(a._storage())
    return a._storage()


def _on_host(a: array) -> bool:
    """True when ``a``'s memory is host memory (a NumPy view of it writes through)."""
    if a.device is None:
        raise TypeError("expected a warp array with data, got an array annotation")
    return a.device.is_cpu


def _write(a: array, values: np.ndarray) -> None:
    """Store ``values`` (shaped like ``a.numpy()``, as values) into ``a`` (bfloat16: rounded to nearest)."""
    if is_bfloat16_element(a.dtype):
        values = bfloat16_bits.to_bits(values)
    if _on_host(a):
        a._storage()[...] = values
    else:
        host = np.array(a._storage())
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


def _check_axis(values: array, axis: int, what: str) -> int:
    if not -values.ndim <= axis < values.ndim:
        raise IndexError(f"{what}() axis {axis} is out of bounds for an array of {values.ndim} dimensions")
    return axis % values.ndim


def _check_out(out: array, values: array, dtype: Any, shape: tuple[int, ...], what: str) -> None:
    _check_same_device(values, out)
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


def _first(flat: np.ndarray, count: int | None, size: int, what: str) -> np.ndarray:
    return flat[: _first_count(count, size, what)]


def _device_total(values: array, other: array | None, out: array | None, count: int) -> Any:
    """The sum of the first ``count`` elements of ``values`` (or of ``values * other``) computed
    on their device by a plugin, stored into ``out`` (then returned) or returned as a Python
    value; None when no plugin computes it there."""
    impl = device_array_utils(values.device)
    if impl is None:
        return None
    scalar = _scalar_type(values.dtype)
    target = out if out is not None else array(shape=(1,), dtype=scalar, device=values.device)
    if not impl.array_inner(values, other, target, count):
        return None
    return out if out is not None else target.numpy()[0].item()


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
        raise RuntimeError(f"array_sum: Unsupported data type: {dtype.__name__}")
    if axis is None:
        if out is not None:
            _check_out(out, values, dtype, (1,), "array_sum")
        count = _first_count(value_count, values.size, "array_sum")
        total = _device_total(values, None, out, count)
        if total is not None:
            return total
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
    axis = _check_axis(values, axis, "array_sum")
    shape = _reduced_shape(values.shape, axis)
    if out is None:
        out = array(shape=shape, dtype=dtype, device=values.device)
    _check_out(out, values, dtype, shape, "array_sum")
    data = _leading(data, axis, value_count, values.shape[axis], "array_sum")
    _write(out, data.sum(axis=axis, keepdims=True, dtype=np_type))
    return out


def array_inner(
    a: array, b: array, out: array | None = None, count: int | None = None, axis: int | None = None
) -> Any:
    """Inner product of two arrays of the same shape and dtype (composites: sum of dot products).

    With ``axis=None`` and no ``out``, returns a Python float; otherwise stores the result into
    ``out`` (scalar dtype; shape ``(1,)`` or ``a.shape`` with the reduced axis of size 1).
    With ``axis``, ``count`` limits the reduction to the first ``count`` entries along it.
    """
    _check_same_device(a, b)
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"array_inner() arguments must have the same shape, got {a.shape} and {b.shape}")
    if not types_equal(a.dtype, b.dtype):
        raise RuntimeError(
            f"array_inner: A and b array data types do not match ({a.dtype.__name__} vs {b.dtype.__name__})"
        )
    scalar = _scalar_type(a.dtype)
    if scalar not in (float32, float64):
        raise RuntimeError(f"array_inner: Unsupported data type: {a.dtype.__name__}")
    if axis is None:
        if out is not None:
            _check_out(out, a, scalar, (1,), "array_inner")
        first = _first_count(count, a.size, "array_inner")
        total = _device_total(a, b, out, first)
        if total is not None:
            return total
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
    axis = _check_axis(a, axis, "array_inner")
    shape = _reduced_shape(a.shape, axis)
    if out is None:
        out = array(shape=shape, dtype=scalar, device=a.device)
    _check_out(out, a, scalar, shape, "array_inner")
    products = _leading(products, axis, count, a.shape[axis], "array_inner")
    _write(out, products.sum(axis=axis, keepdims=True, dtype=np_type))
    return out


#: component types ``array_scan`` sums (scalars, or vectors of them)
_SCAN_COMPONENTS = (int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64)


def _scannable(dtype: Any) -> bool:
    if is_composite(dtype):
        return len(dtype._shape_) == 1 and dtype._wp_scalar_type_ in _SCAN_COMPONENTS
    return dtype in _SCAN_COMPONENTS


def array_scan(in_array: array, out_array: array, inclusive: bool = True) -> None:
    """Prefix sum of an array into ``out_array`` in row-major order (inclusive:
    ``out[i] = in[0] + ... + in[i]``; exclusive: ``out[0] = 0``, ``out[i] = in[0] + ... + in[i-1]``).

    Elements are integer or float32/float64 scalars or vectors of them (vectors are summed
    component-wise); strided views are read and written through their strides.
    """
    _check_same_device(in_array, out_array)
    if not types_equal(in_array.dtype, out_array.dtype):
        raise RuntimeError(
            "array_scan: In and out array data types do not match "
            f"({in_array.dtype.__name__} vs {out_array.dtype.__name__})"
        )
    dtype = in_array.dtype
    if not _scannable(dtype):
        raise RuntimeError(f"array_scan: Unsupported data type: {dtype.__name__}")
    if in_array.size != out_array.size:
        raise RuntimeError(
            f"array_scan: In and out array storage sizes do not match ({in_array.size} vs {out_array.size})"
        )
    impl = device_array_utils(in_array.device)
    if impl is not None and impl.array_scan(in_array, out_array, inclusive):
        return
    np_type = _scalar_type(dtype)._np_dtype_
    inner = tuple(dtype._shape_) if is_composite(dtype) else ()
    data = _read(in_array).reshape((-1, *inner))
    result = np.cumsum(data, axis=0, dtype=np_type)
    if not inclusive and result.shape[0]:
        result = np.concatenate([np.zeros((1, *inner), dtype=np_type), result[:-1]])
    _write(out_array, result.reshape(tuple(out_array.shape) + inner))


def array_cast(in_array: array, out_array: array, count: int | None = None) -> None:
    """Element-wise conversion of ``in_array`` into ``out_array``'s dtype (C casts: floats to
    integers truncate). Arrays whose dtypes have different component shapes are cast flattened,
    component by component; ``count`` (1-D arrays only) limits the cast to the first ``count``
    input elements.

    On CUDA devices the conversion runs in kernels (warp-builtins), so graph capture records it
    (except for strided views of more than four dimensions counting the components, which are
    staged through the host). Where C leaves a conversion undefined (NaN or out-of-range floats
    to integers, negative floats to unsigned integers) the device saturates (NaN gives 0, others
    the type's limits) and the host gives what NumPy gives.
    """
    _check_same_device(in_array, out_array)
    if count is not None and (in_array.ndim > 1 or out_array.ndim > 1):
        raise RuntimeError(
            "array_cast: Partial cast is not supported for arrays with more than one dimension"
        )
    if in_array.ndim == out_array.ndim > 1 and tuple(in_array.shape) != tuple(out_array.shape):
        raise RuntimeError(f"array_cast: Array shapes do not match ({in_array.shape} vs {out_array.shape})")
    n = _cast_components(in_array, out_array, count)
    impl = device_array_utils(in_array.device)
    if impl is not None and impl.array_cast(in_array, out_array, n):
        return
    src = _read(in_array)
    dst = np.array(_read(out_array))
    if is_bfloat16_element(out_array.dtype):  # one rounding to bfloat16 (as the device does)
        dst = dst.astype(np.float64)
    flat_dst = dst.reshape(-1)
    flat_dst[:n] = _cast(src.reshape(-1)[:n], dst.dtype)
    _write(out_array, dst)


def _components(a: array) -> int:
    """Scalar components of one element of ``a`` (1 for scalars)."""
    return math.prod(a.dtype._shape_) if is_composite(a.dtype) else 1


def _cast_components(in_array: array, out_array: array, count: int | None) -> int:
    """How many scalar components (row-major) ``array_cast`` converts: all of them, or those of
    the first ``count`` input elements; ``RuntimeError`` when they exceed either array."""
    # counts are in input elements; arrays whose dtypes differ in components are cast flattened
    elements = in_array.size if count is None else count
    per_element = _components(in_array)
    n = elements * per_element
    if elements < 0 or n > in_array.size * per_element or n > out_array.size * _components(out_array):
        raise RuntimeError(
            f"array_cast: Cast count ({elements}) exceeds the input size ({in_array.size}) "
            f"or output size ({out_array.size})"
        )
    return n


def _cast(values: np.ndarray, np_type: np.dtype) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return values.astype(np_type)


# -- sorting and run-length encoding ------------------------------------------------------------

_SORT_KEYS = (int32, uint32, int64, uint64, float32, float64)
#: key and value types of ``segmented_sort_pairs`` (as in NVIDIA Warp)
_SEGMENTED_KEYS = (int32, float32)
_INT32_MAX = 2**31 - 1


def _name(dtype: Any) -> str:
    return getattr(dtype, "__name__", str(dtype))


def _check_count(count: Any, what: str) -> None:
    """``count`` is a Python (or NumPy) integer in [0, 2**31 - 1]."""
    if isinstance(count, (bool, np.bool_)) or not isinstance(count, (builtins.int, np.integer)):
        raise TypeError(f"{what}: count must be an integer, got {type(count).__name__} {count!r}")
    if count < 0:
        raise ValueError(f"{what}: count must be non-negative, got {count}")
    if count > _INT32_MAX:
        raise ValueError(f"{what}: count must not exceed {_INT32_MAX}, got {count}")


def _require_contiguous(arrays: dict[str, array], what: str, detail: str = "") -> None:
    for name, a in arrays.items():
        # strict for 1-D views: a strided one-element view is refused too, as NVIDIA Warp does
        packed = a.ndim != 1 or tuple(a.strides) == (type_size_in_bytes(a.dtype),)
        if not a.is_contiguous or not packed:
            raise RuntimeError(f"{what}() requires a contiguous {name} array{detail.format(name=name)}")


def _radix_digits(keys: np.ndarray, begin_bit: int, end_bit: int) -> np.ndarray:
    """Bits ``[begin_bit, end_bit)`` of the keys mapped to unsigned integers that order as the keys
    do (signed integers: sign bit flipped; floats: IEEE order, -0.0 before +0.0), as a radix sort
    over those bits sees them."""
    bits = keys.dtype.itemsize * 8
    unsigned = np.dtype(f"uint{bits}")
    sign = unsigned.type(1 << (bits - 1))
    u = keys.view(unsigned)
    if keys.dtype.kind == "i":
        u = u ^ sign
    elif keys.dtype.kind == "f":
        u = np.where(u & sign, ~u, u | sign)
    width = end_bit - begin_bit
    if width < bits:
        u = (u >> unsigned.type(begin_bit)) & unsigned.type((1 << width) - 1)
    return u


def radix_sort_pairs(
    keys: array, values: array, count: int, begin_bit: int = 0, end_bit: int | None = None
) -> None:
    """Stable sort of the first ``count`` (key, value) pairs by key, in place.

    Keys are int32, uint32, int64, uint64, float32 or float64; values are 4 or 8 byte scalars.
    Only key bits ``[begin_bit, end_bit)`` take part (``end_bit`` None: the key's width), in
    the order of the keys' values (signed and float keys as a radix sort orders them). As in
    NVIDIA Warp, both arrays must hold at least ``2 * count`` elements; the second half is
    scratch space whose contents are unspecified afterwards.
    """
    what = "radix_sort_pairs"
    _check_same_device(keys, values)
    vtype = values.dtype
    value_ok = is_scalar_type(vtype) and vtype._bits_ in (32, 64) and vtype._kind_ != "bool"
    if keys.dtype not in _SORT_KEYS or not value_ok:
        raise RuntimeError(
            f"{what}: Unsupported keys and values data types: {_name(keys.dtype)}, {_name(values.dtype)}"
        )
    if keys.ndim != 1 or values.ndim != 1:
        raise RuntimeError(
            f"{what}: keys and values must be 1-D arrays, got shapes {keys.shape} and {values.shape}"
        )
    _require_contiguous(
        {"keys": keys, "values": values},
        what,
        f", got non-contiguous {{name}} with data types: {_name(keys.dtype)}, {_name(values.dtype)}",
    )
    _check_count(count, what)
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError(
            f"{what}: Keys and values array storage must be large enough to contain 2*count elements"
        )
    bits = keys.dtype._bits_
    end = bits if end_bit is None else end_bit
    if not 0 <= begin_bit < end <= bits:
        raise RuntimeError(f"{what}: Invalid radix sort bit range [{begin_bit}, {end}) for {bits}-bit keys")
    impl = device_array_utils(keys.device)
    if impl is not None and impl.radix_sort_pairs(keys, values, count, begin_bit, end):
        return
    k, v = _read(keys), _read(values)
    order = np.argsort(_radix_digits(k[:count], begin_bit, end), kind="stable")
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

    Keys are int32 or float32 (ordered as NumPy sorts them: -0.0 equal to +0.0, NaNs last),
    values int32, segment indices int32 (1-D, contiguous). Without ``segment_end_indices`` the
    segment ends are ``segment_start_indices[1:]``. Pairs outside every segment keep their place.
    Keys and values need room for ``2 * count``.

    On the CPU a segment outside ``[0, count]`` (or ending before it starts) raises
    ``ValueError`` naming its index, and overlapping segments are sorted one after another, in
    their order. On CUDA devices the sort runs in kernels (warp-builtins) and, as in NVIDIA Warp,
    the segment indices are never copied to the host: an invalid segment is empty (its pairs keep
    their place), and pairs covered by more than one segment keep their place.
    """
    what = "segmented_sort_pairs"
    segments = {"segment_start_indices": segment_start_indices}
    if segment_end_indices is not None:
        segments["segment_end_indices"] = segment_end_indices
    _check_same_device(keys, values, *segments.values())
    if keys.dtype not in _SEGMENTED_KEYS or values.dtype is not int32:
        # named by the key type, as NVIDIA Warp reports it
        raise RuntimeError(f"{what}: Unsupported data type: {_name(keys.dtype)}")
    _check_count(count, what)
    for name, a in segments.items():
        if a.dtype is not int32:
            raise RuntimeError(f"{what}: {name} must be an int32 array, got {_name(a.dtype)}")
        if a.ndim != 1:
            raise RuntimeError(f"{what}: {name} must be one-dimensional, got shape {a.shape}")
    _require_contiguous({"keys": keys, "values": values, **segments}, what)
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError(f"{what}: Array storage must be large enough to contain 2*count elements")
    if segment_end_indices is not None and segment_end_indices.size != segment_start_indices.size:
        raise RuntimeError(
            f"{what}: segment_start_indices and segment_end_indices must have the same size "
            f"({segment_start_indices.size} vs {segment_end_indices.size})"
        )
    if segment_end_indices is None:
        n = max(segment_start_indices.size - 1, 0)
        start_view, end_view = segment_start_indices[:n], segment_start_indices[1 : n + 1]
    else:
        start_view, end_view = segment_start_indices, segment_end_indices
    impl = device_array_utils(keys.device)
    if impl is not None and impl.segmented_sort_pairs(keys, values, count, start_view, end_view):
        return
    starts, ends = _read(start_view), _read(end_view)
    _check_segments(starts, ends, count, what)
    k, v = np.array(_read(keys)), np.array(_read(values))
    for s, e in zip(starts.tolist(), ends.tolist()):
        order = np.argsort(k[s:e], kind="stable")
        k[s:e], v[s:e] = k[s:e][order], v[s:e][order]
    _write(keys, k)
    _write(values, v)


def _check_segments(starts: np.ndarray, ends: np.ndarray, count: int, what: str) -> None:
    """Raise ``ValueError`` for the first segment outside ``[0, count]`` (or ending before it
    starts)."""
    for index, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
        if not 0 <= s <= e <= count:
            raise ValueError(
                f"{what}: Invalid segment range at index {index}: [{s}, {e}) is not within [0, {count}]"
            )


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
    if str(values.device) != str(run_values.device) or str(values.device) != str(run_lengths.device):
        raise RuntimeError(
            "runlength_encode: run_values, run_lengths and values storage devices do not match"
        )
    if run_count is not None and str(run_count.device) != str(values.device):
        raise RuntimeError("runlength_encode: run_count storage device does not match other arrays")
    if not types_equal(values.dtype, run_values.dtype):
        raise RuntimeError(
            "runlength_encode: values and run_values data types do not match "
            f"({_name(values.dtype)} vs {_name(run_values.dtype)})"
        )
    if values.dtype is not int32:
        raise RuntimeError(f"runlength_encode: Unsupported data type: {_name(values.dtype)}")
    if run_lengths.dtype is not int32:
        raise RuntimeError("runlength_encode: run_lengths array must be of type int32")
    if run_count is not None and run_count.dtype is not int32:
        raise RuntimeError("runlength_encode: run_count array must be of type int32")
    n = values.size if value_count is None else value_count
    if n < 0:
        raise RuntimeError(f"runlength_encode: value_count must be non-negative, got {n}")
    if n > values.size:
        raise RuntimeError(f"runlength_encode: value_count ({n}) exceeds the size of values ({values.size})")
    if run_values.size < n or run_lengths.size < n:
        raise RuntimeError(
            f"runlength_encode: Output array storage sizes must be at least equal to value_count ({n})"
        )
    impl = device_array_utils(values.device)
    if impl is not None:
        counter = run_count if run_count is not None else array(shape=(1,), dtype=int32, device=values.device)
        if impl.runlength_encode(values, run_values, run_lengths, counter, n):
            return run_count if run_count is not None else builtins.int(counter.numpy().reshape(-1)[0])
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
    cnt = np.array(_read(run_count))
    cnt.reshape(-1)[0] = runs
    _write(run_count, cnt)
    return run_count
