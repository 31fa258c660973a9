"""Prefix sums and a stable radix sort of (key, value) pairs in kernels, on the arrays' device.

Used by ``wp.utils`` on CUDA devices (:mod:`warp_builtins.device_utils`) and by the device BVH
builder (:mod:`warp_geometry.bvh_device_build`): nothing goes through the host, so graph capture
records them. Both work on contiguous chunks of the input, one thread per chunk:

- scan (int32 or float32, exclusive or inclusive): every chunk's sum, an exclusive scan of the
  chunk sums (the same scan in place when there are more than ``CHUNK`` chunks, else serial in
  one thread), then every chunk writes its prefixes;
- radix sort, ``RADIX_BITS`` bits per pass from the lowest: every chunk counts its digits
  (``counts[digit * chunks + chunk]``), an exclusive scan of those counts gives every (digit,
  chunk) its first output slot, and every chunk scatters its pairs in order. Chunks in input
  order inside each digit make every pass, hence the sort, stable.
"""

from __future__ import annotations

from typing import Any

import warp as wp

#: items per thread of the scans, and at most per thread of the sorting passes
CHUNK = 128
#: threads the sorting passes aim for (fewer items per thread for small inputs)
SORT_THREADS = 32768
#: key bits per sorting pass (16 digits)
RADIX_BITS = 4
_RADIX = 1 << RADIX_BITS


@wp.kernel
def _chunk_sums(values: wp.array(dtype=wp.int32), n: int, chunk: int, sums: wp.array(dtype=wp.int32)):
    c = wp.tid()
    first = c * chunk
    last = wp.min(first + chunk, n)
    s = int(0)
    for j in range(first, last):
        s += values[j]
    sums[c] = s


@wp.kernel
def _serial_exclusive_scan(sums: wp.array(dtype=wp.int32), n: int, total: wp.array(dtype=wp.int32)):
    running = int(0)
    for c in range(n):
        s = sums[c]
        sums[c] = running
        running += s
    total[0] = running


@wp.kernel
def _chunk_prefixes(
    values: wp.array(dtype=wp.int32),
    n: int,
    chunk: int,
    inclusive: int,
    offsets: wp.array(dtype=wp.int32),
    out: wp.array(dtype=wp.int32),
):
    c = wp.tid()
    first = c * chunk
    last = wp.min(first + chunk, n)
    running = offsets[c]
    for j in range(first, last):
        v = values[j]
        if inclusive != 0:
            running += v
            out[j] = running
        else:
            out[j] = running
            running += v


@wp.kernel
def _chunk_sums_f32(values: wp.array(dtype=wp.float32), n: int, chunk: int, sums: wp.array(dtype=wp.float32)):
    c = wp.tid()
    first = c * chunk
    last = wp.min(first + chunk, n)
    s = wp.float32(0.0)
    for j in range(first, last):
        s += values[j]
    sums[c] = s


@wp.kernel
def _serial_exclusive_scan_f32(sums: wp.array(dtype=wp.float32), n: int, total: wp.array(dtype=wp.float32)):
    running = wp.float32(0.0)
    for c in range(n):
        s = sums[c]
        sums[c] = running
        running += s
    total[0] = running


@wp.kernel
def _chunk_prefixes_f32(
    values: wp.array(dtype=wp.float32),
    n: int,
    chunk: int,
    inclusive: int,
    offsets: wp.array(dtype=wp.float32),
    out: wp.array(dtype=wp.float32),
):
    c = wp.tid()
    first = c * chunk
    last = wp.min(first + chunk, n)
    running = offsets[c]
    for j in range(first, last):
        v = values[j]
        if inclusive != 0:
            running += v
            out[j] = running
        else:
            out[j] = running
            running += v


#: dtype -> (chunk sums, serial scan of the sums, chunk prefixes) kernels
_SCAN_KERNELS = {
    wp.int32: (_chunk_sums, _serial_exclusive_scan, _chunk_prefixes),
    wp.float32: (_chunk_sums_f32, _serial_exclusive_scan_f32, _chunk_prefixes_f32),
}

#: element types :func:`scan` handles
SCAN_TYPES = tuple(_SCAN_KERNELS)


def scan(values: Any, out: Any, n: int, inclusive: bool = False) -> Any:
    """Prefix sums of the first ``n`` elements of ``values`` into ``out`` (1-D int32 or float32
    arrays of one dtype on one device; ``out`` may be ``values``): exclusive ``out[i] =
    values[0] + ... + values[i - 1]``, inclusive up to ``values[i]``. Returns a 1-element device
    array holding the total."""
    sums_kernel, serial_kernel, prefixes_kernel = _SCAN_KERNELS[values.dtype]
    device = values.device
    chunks = max(1, (n + CHUNK - 1) // CHUNK)
    sums = wp.empty(chunks, dtype=values.dtype, device=device)
    wp.launch(sums_kernel, dim=chunks, inputs=[values, n, CHUNK, sums], device=device, record_tape=False)
    if chunks > CHUNK:  # the chunk sums scanned the same way (in place): no long serial loop
        total = scan(sums, sums, chunks, inclusive=False)
    else:
        total = wp.empty(1, dtype=values.dtype, device=device)
        wp.launch(serial_kernel, dim=1, inputs=[sums, chunks, total], device=device, record_tape=False)
    flag = 1 if inclusive else 0
    inputs = [values, n, CHUNK, flag, sums, out]
    wp.launch(prefixes_kernel, dim=chunks, inputs=inputs, device=device, record_tape=False)
    return total


def exclusive_scan(values: Any, out: Any, n: int) -> Any:
    """``out[i] = values[0] + ... + values[i - 1]`` for ``i < n`` (int32 arrays on one device;
    ``out`` may be ``values``). Returns a 1-element device array holding the total."""
    return scan(values, out, n, inclusive=False)


@wp.kernel
def _count_digits(
    keys: wp.array(dtype=wp.int32),
    n: int,
    shift: int,
    chunk: int,
    chunks: int,
    counts: wp.array(dtype=wp.int32),
):
    c = wp.tid()
    first = c * chunk
    last = wp.min(first + chunk, n)
    local = wp.zeros(shape=16, dtype=wp.int32)  # the chunk's digit counts, thread-local
    for j in range(first, last):
        d = (keys[j] >> shift) & 15
        local[d] += 1
    for d in range(16):
        counts[d * chunks + c] = local[d]


@wp.kernel
def _scatter_digits(
    keys: wp.array(dtype=wp.int32),
    values: wp.array(dtype=wp.int32),
    n: int,
    shift: int,
    chunk: int,
    chunks: int,
    slots: wp.array(dtype=wp.int32),
    keys_out: wp.array(dtype=wp.int32),
    values_out: wp.array(dtype=wp.int32),
):
    c = wp.tid()
    first = c * chunk
    last = wp.min(first + chunk, n)
    next_slot = wp.zeros(shape=16, dtype=wp.int32)  # the chunk's next output slot per digit
    for d in range(16):
        next_slot[d] = slots[d * chunks + c]
    for j in range(first, last):
        k = keys[j]
        d = (k >> shift) & 15
        slot = next_slot[d]
        next_slot[d] = slot + 1
        keys_out[slot] = k
        values_out[slot] = values[j]


def sort_chunk(n: int) -> int:
    """Items per thread of a sorting pass over ``n`` items: a power of two in [16, CHUNK] giving
    about ``SORT_THREADS`` threads."""
    chunk = 16
    while chunk < CHUNK and chunk * SORT_THREADS < n:
        chunk *= 2
    return chunk


def radix_sort_pairs(keys: Any, values: Any, n: int, key_bits: int = 32) -> tuple[Any, Any]:
    """Stable sort of ``n`` int32 (key, value) pairs by the low ``key_bits`` bits of the key,
    read as an unsigned number. Returns new (keys, values) arrays; the inputs are left as they
    were."""
    device = keys.device
    chunk = sort_chunk(n)
    chunks = max(1, (n + chunk - 1) // chunk)
    counts = wp.empty(_RADIX * chunks, dtype=wp.int32, device=device)
    buffers = [(wp.empty(n, dtype=wp.int32, device=device), wp.empty(n, dtype=wp.int32, device=device))]
    if key_bits > RADIX_BITS:
        buffers.append(
            (wp.empty(n, dtype=wp.int32, device=device), wp.empty(n, dtype=wp.int32, device=device))
        )
    src_k, src_v = keys, values
    for p, shift in enumerate(range(0, key_bits, RADIX_BITS)):
        dst_k, dst_v = buffers[p % len(buffers)]
        count_args = [src_k, n, shift, chunk, chunks, counts]
        wp.launch(_count_digits, dim=chunks, inputs=count_args, device=device, record_tape=False)
        exclusive_scan(counts, counts, _RADIX * chunks)
        scatter = [src_k, src_v, n, shift, chunk, chunks, counts, dst_k, dst_v]
        wp.launch(_scatter_digits, dim=chunks, inputs=scatter, device=device, record_tape=False)
        src_k, src_v = dst_k, dst_v
    return src_k, src_v
