"""``warp.utils`` in kernels on the arrays' device (the ``warp_device_array_utils`` hook; see
:class:`warp.plugins.array_utils.DeviceArrayUtils`).

Nothing is read back to the host, so graph capture records these and a replay recomputes them
on the arrays' new contents. A ``wp.Tape`` does not record their launches (``warp.utils`` has no
adjoints, as in NVIDIA Warp: the kernels update arrays in place). ``warp.utils`` has checked the
arguments before calling them.

- ``radix_sort_pairs``: every key's bits are mapped to an unsigned number ordering as the keys do
  (signed integers: sign bit flipped; floats: all bits flipped when negative, else the sign bit
  set), restricted to bits ``[begin_bit, end_bit)``; the positions ``0..count-1`` are sorted by
  those numbers with :func:`warp_builtins.device_sort.radix_sort_pairs` (64-bit keys: by the
  low word, then stably by the high word), and keys and values are gathered in that order. Keys
  and values move as bit patterns (4 or 8 bytes), whatever their type.
- ``array_scan``: :func:`warp_builtins.device_sort.scan` (int32 and float32 elements).
- ``runlength_encode``: run heads flagged, an inclusive scan numbers the runs, heads store the
  run values and starts, run tails the lengths.
- ``array_inner``: chunk sums of ``SCAN_CHUNK`` (products of) elements, chunk sums of those
  while there are more than ``SCAN_CHUNK``, then their sum in one thread.
- ``array_cast``: :func:`warp_builtins.device_cast.array_cast`.
- ``segmented_sort_pairs``: :func:`warp_builtins.device_segmented.segmented_sort_pairs`.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp_builtins import device_sort
from warp_builtins.device_cast import array_cast
from warp_builtins.device_segmented import segmented_sort_pairs

__all__ = [
    "array_cast",
    "array_inner",
    "array_scan",
    "radix_sort_pairs",
    "runlength_encode",
    "segmented_sort_pairs",
]

#: key kinds of the mapping kernels: how a key's bits become an unsigned order-preserving number
_KINDS = {"uint": device_sort.KEY_UNSIGNED, "int": device_sort.KEY_SIGNED, "float": device_sort.KEY_FLOAT}
#: storage width in bytes -> integer type the bits of keys and values move as
_BITS_TYPES = {4: wp.int32, 8: wp.int64}


@wp.kernel
def _radix_keys_32(
    bits: wp.array(dtype=wp.int32),
    kind: int,
    sign: wp.int32,
    begin: wp.int32,
    mask: wp.int32,
    digits: wp.array(dtype=wp.int32),
    positions: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    m = device_sort.radix_key(bits[i], kind, sign)
    digits[i] = (m >> begin) & mask
    positions[i] = i


@wp.kernel
def _radix_keys_64(
    bits: wp.array(dtype=wp.int64),
    kind: int,
    sign: wp.int64,
    begin: wp.int64,
    mask: wp.int64,
    low: wp.array(dtype=wp.int32),
    high: wp.array(dtype=wp.int32),
    positions: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    m = (device_sort.radix_key(bits[i], kind, sign) >> begin) & mask
    low[i] = wp.int32(m & wp.int64(4294967295))
    high[i] = wp.int32((m >> wp.int64(32)) & wp.int64(4294967295))
    positions[i] = i


@wp.kernel
def _copy(src: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = src[i]


#: plain copies (not ``wp.copy``, which a recording ``wp.Tape`` would differentiate): instances of
#: :func:`_copy` per bits type
_COPY = {
    t: wp.overload(_copy, {"src": wp.array(dtype=t), "out": wp.array(dtype=t)}) for t in _BITS_TYPES.values()
}


def _mask(width: int, bits: int) -> int:
    """The ``width`` low bits set, as a signed ``bits``-bit integer."""
    value = (1 << width) - 1
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def _sort_order(keys: Any, count: int, begin_bit: int, end_bit: int) -> Any:
    """The positions ``0..count-1`` stably sorted by the keys' bits ``[begin_bit, end_bit)`` in
    the keys' order (an int32 device array)."""
    device = keys.device
    nbits = keys.dtype._bits_
    bits = keys.view(_BITS_TYPES[nbits // 8])
    kind = _KINDS[keys.dtype._kind_]
    width = end_bit - begin_bit
    sign, mask = -(1 << (nbits - 1)), _mask(width, nbits)
    positions = wp.empty(count, dtype=wp.int32, device=device)
    low = wp.empty(count, dtype=wp.int32, device=device)
    if nbits == 32:
        inputs = [bits, kind, sign, begin_bit, mask, low, positions]
        wp.launch(_radix_keys_32, dim=count, inputs=inputs, device=device, record_tape=False)
        return device_sort.radix_sort_pairs(low, positions, count, key_bits=width)[1]
    high = wp.empty(count, dtype=wp.int32, device=device)
    inputs = [bits, kind, wp.int64(sign), wp.int64(begin_bit), wp.int64(mask), low, high, positions]
    wp.launch(_radix_keys_64, dim=count, inputs=inputs, device=device, record_tape=False)
    order = device_sort.radix_sort_pairs(low, positions, count, key_bits=min(width, 32))[1]
    if width <= 32:
        return order
    ordered_high = wp.empty(count, dtype=wp.int32, device=device)
    device_sort.gather(high, order, ordered_high, count)
    return device_sort.radix_sort_pairs(ordered_high, order, count, key_bits=width - 32)[1]


def _permute(a: Any, order: Any, count: int) -> None:
    """``a[:count] = a[order]`` (``a`` 1-D and contiguous, 4 or 8 bytes per element)."""
    itype = _BITS_TYPES[a.dtype._bits_ // 8]
    bits = a.view(itype)
    ordered = wp.empty(count, dtype=itype, device=a.device)
    device_sort.gather(bits, order, ordered, count)
    wp.launch(_COPY[itype], dim=count, inputs=[ordered, bits], device=a.device, record_tape=False)


def radix_sort_pairs(keys: Any, values: Any, count: int, begin_bit: int, end_bit: int) -> bool:
    """Stable sort of the first ``count`` (key, value) pairs by key bits ``[begin_bit, end_bit)``,
    in place, in kernels (keys: 32 or 64-bit integers or floats; values: 4 or 8 byte scalars)."""
    if keys.dtype._kind_ not in _KINDS or keys.dtype._bits_ not in (32, 64):
        return False
    if values.dtype._bits_ not in (32, 64):
        return False
    if count == 0:
        return True
    order = _sort_order(keys, count, begin_bit, end_bit)
    _permute(keys, order, count)
    _permute(values, order, count)
    return True


def _flat(a: Any) -> Any | None:
    """``a`` as a 1-D view: itself when 1-D, its flattening when contiguous, else None."""
    if a.ndim == 1:
        return a
    return a.flatten() if a.is_contiguous else None


def array_scan(in_array: Any, out_array: Any, inclusive: bool) -> bool:
    """Prefix sums of int32 or float32 arrays in kernels (other dtypes: not handled)."""
    if in_array.dtype not in device_sort.SCAN_TYPES:
        return False
    src, dst = _flat(in_array), _flat(out_array)
    if src is None or dst is None:
        return False
    if src.size:
        device_sort.scan(src, dst, src.size, inclusive=inclusive)
    return True


@wp.kernel
def _run_heads(values: wp.array(dtype=wp.int32), heads: wp.array(dtype=wp.int32)):
    i = wp.tid()
    head = 1
    if i > 0:
        if values[i] == values[i - 1]:
            head = 0
    heads[i] = head


@wp.kernel
def _run_starts(
    values: wp.array(dtype=wp.int32),
    heads: wp.array(dtype=wp.int32),
    runs: wp.array(dtype=wp.int32),
    run_values: wp.array(dtype=wp.int32),
    starts: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    if heads[i] != 0:
        r = runs[i] - 1
        run_values[r] = values[i]
        starts[r] = i


@wp.kernel
def _run_ends(
    values: wp.array(dtype=wp.int32),
    n: int,
    runs: wp.array(dtype=wp.int32),
    starts: wp.array(dtype=wp.int32),
    run_lengths: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    tail = 1
    if i + 1 < n:
        if values[i + 1] == values[i]:
            tail = 0
    if tail != 0:
        r = runs[i] - 1
        run_lengths[r] = i + 1 - starts[r]


@wp.kernel
def _store_count(total: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    out[0] = total[0]


def runlength_encode(
    values: Any, run_values: Any, run_lengths: Any, run_count: Any, value_count: int
) -> bool:
    """Run-length encoding of the first ``value_count`` int32 values in kernels; the number of
    runs goes to ``run_count[0]``."""
    src, rv, rl, cnt = (_flat(a) for a in (values, run_values, run_lengths, run_count))
    if src is None or rv is None or rl is None or cnt is None:
        return False
    device, n = values.device, value_count
    if n == 0:
        cnt.zero_()
        return True
    heads = wp.empty(n, dtype=wp.int32, device=device)
    runs = wp.empty(n, dtype=wp.int32, device=device)
    starts = wp.empty(n, dtype=wp.int32, device=device)
    wp.launch(_run_heads, dim=n, inputs=[src, heads], device=device, record_tape=False)
    total = device_sort.scan(heads, runs, n, inclusive=True)
    wp.launch(_run_starts, dim=n, inputs=[src, heads, runs, rv, starts], device=device, record_tape=False)
    wp.launch(_run_ends, dim=n, inputs=[src, n, runs, starts, rl], device=device, record_tape=False)
    wp.launch(_store_count, dim=1, inputs=[total, cnt], device=device, record_tape=False)
    return True


@wp.kernel(enable_backward=False)
def _chunk_inner(
    a: wp.array(dtype=Any),
    base: int,
    b: wp.array(dtype=Any),
    use_b: int,
    n: int,
    chunk: int,
    sums: wp.array(dtype=Any),
    sbase: int,
):
    c = wp.tid()
    first, last = device_sort.chunk_range(c, chunk, n)
    s = sums.dtype(0)
    for j in range(first, last):
        if use_b != 0:
            s += a[base + j] * b[j]
        else:
            s += a[base + j]
    sums[sbase + c] = s


@wp.kernel(enable_backward=False)
def _serial_sum(sums: wp.array(dtype=Any), base: int, n: int, out: wp.array(dtype=Any)):
    s = sums.dtype(0)
    for c in range(n):
        s += sums[base + c]
    out[0] = s


def _inner_kernels(dtype: Any) -> tuple[Any, Any]:
    """The (chunk sums, serial sum of the top level) instances for ``dtype``."""
    a = wp.array(dtype=dtype)
    return (
        wp.overload(_chunk_inner, {"a": a, "b": a, "sums": a}),
        wp.overload(_serial_sum, {"sums": a, "out": a}),
    )


#: dtype -> (chunk sums, serial sum of the top level) kernels
_INNER_KERNELS = {dtype: _inner_kernels(dtype) for dtype in (wp.float32, wp.float64)}


def array_inner(a: Any, b: Any | None, out: Any, count: int) -> bool:
    """Sum of the first ``count`` float32/float64 scalars of ``a`` (or of ``a * b``) into
    ``out[0]``, in kernels (composite dtypes: not handled)."""
    if a.dtype not in _INNER_KERNELS:
        return False
    src = _flat(a)
    other = src if b is None else _flat(b)
    dst = _flat(out)
    if src is None or other is None or dst is None:
        return False
    chunk_kernel, sum_kernel = _INNER_KERNELS[a.dtype]
    use_b = 0 if b is None else 1
    # chunk sums, then sums of chunks of those, until at most SCAN_CHUNK are left for one thread
    # (a fixed order of additions: the result does not vary between runs); every level's sums in
    # one buffer (one allocation)
    levels = device_sort.scan_levels(count)
    scratch = device_sort.ScanScratch(count, a.dtype, a.device)
    sums, offsets = scratch.buffer, scratch.offsets
    base = 0
    for level, size in enumerate(levels):
        inputs = [src, base, other, use_b, count, device_sort.SCAN_CHUNK, sums, offsets[level]]
        wp.launch(chunk_kernel, dim=size, inputs=inputs, device=a.device, record_tape=False)
        src = other = sums
        base, use_b, count = offsets[level], 0, size
    inputs = [sums, offsets[-1], levels[-1], dst]
    wp.launch(sum_kernel, dim=1, inputs=inputs, device=a.device, record_tape=False)
    return True
