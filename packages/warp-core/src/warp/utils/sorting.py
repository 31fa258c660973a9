"""``radix_sort_pairs`` and ``segmented_sort_pairs``: stable in-place sorts of (key, value) pairs."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from warp.arrays.array import array
from warp.types.scalars import (
    float32,
    float64,
    int32,
    int64,
    is_scalar_type,
    type_size_in_bytes,
    uint32,
    uint64,
)
from warp.utils import _access
from warp.utils._access import check_same_device, type_name

_SORT_KEYS = (int32, uint32, int64, uint64, float32, float64)
#: key and value types of ``segmented_sort_pairs`` (as in NVIDIA Warp)
_SEGMENTED_KEYS = (int32, float32)
_INT32_MAX = 2**31 - 1


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
    check_same_device(keys, values)
    vtype = values.dtype
    value_ok = is_scalar_type(vtype) and vtype._bits_ in (32, 64) and vtype._kind_ != "bool"
    types = f"{type_name(keys.dtype)}, {type_name(values.dtype)}"
    if keys.dtype not in _SORT_KEYS or not value_ok:
        raise RuntimeError(f"{what}: Unsupported keys and values data types: {types}")
    if keys.ndim != 1 or values.ndim != 1:
        raise RuntimeError(
            f"{what}: keys and values must be 1-D arrays, got shapes {keys.shape} and {values.shape}"
        )
    _require_contiguous(
        {"keys": keys, "values": values},
        what,
        f", got non-contiguous {{name}} with data types: {types}",
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
    impl = _access.device_impl(keys)
    if impl is not None and impl.radix_sort_pairs(keys, values, count, begin_bit, end):
        return
    k, v = _access.read(keys), _access.read(values)
    order = np.argsort(_radix_digits(k[:count], begin_bit, end), kind="stable")
    new_k, new_v = k[:count][order], v[:count][order]
    if _access.on_host(keys):
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
    check_same_device(keys, values, *segments.values())
    if keys.dtype not in _SEGMENTED_KEYS or values.dtype is not int32:
        # named by the key type, as NVIDIA Warp reports it
        raise RuntimeError(f"{what}: Unsupported data type: {type_name(keys.dtype)}")
    _check_count(count, what)
    for name, a in segments.items():
        if a.dtype is not int32:
            raise RuntimeError(f"{what}: {name} must be an int32 array, got {type_name(a.dtype)}")
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
    impl = _access.device_impl(keys)
    if impl is not None and impl.segmented_sort_pairs(keys, values, count, start_view, end_view):
        return
    starts, ends = _access.read(start_view), _access.read(end_view)
    _check_segments(starts, ends, count, what)
    k, v = np.array(_access.read(keys)), np.array(_access.read(values))
    for s, e in zip(starts.tolist(), ends.tolist()):
        order = np.argsort(k[s:e], kind="stable")
        k[s:e], v[s:e] = k[s:e][order], v[s:e][order]
    _access.write(keys, k)
    _access.write(values, v)


def _check_segments(starts: np.ndarray, ends: np.ndarray, count: int, what: str) -> None:
    """Raise ``ValueError`` for the first segment outside ``[0, count]`` (or ending before it
    starts)."""
    for index, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
        if not 0 <= s <= e <= count:
            raise ValueError(
                f"{what}: Invalid segment range at index {index}: [{s}, {e}) is not within [0, {count}]"
            )
