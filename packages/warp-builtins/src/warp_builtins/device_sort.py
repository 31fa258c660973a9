"""Prefix sums and a stable radix sort of (key, value) pairs in kernels, on the arrays' device.

Used by ``wp.utils`` on CUDA devices (:mod:`warp_builtins.device_utils`), by the device BVH,
hash-grid and volume builders of warp-geometry: nothing goes through the host, so graph capture
records them. Both work on contiguous chunks of the input, one thread per chunk:

- scan (int32 or float32, exclusive or inclusive): every chunk of ``SCAN_CHUNK`` items gets its
  sum, the chunk sums are summed by chunks in turn until at most ``SCAN_CHUNK`` are left (levels),
  one thread scans those, and every level's chunks then write their prefixes, from the top level
  down. The chunk sums of every level live in one :class:`ScanScratch` buffer (made once per
  scan, or once for the many scans of a sort): allocating is the costly part of a small pass;
- radix sort, ``RADIX_BITS`` bits per pass from the lowest: every chunk counts its digits
  (``counts[digit * chunks + chunk]``), an exclusive scan of those counts gives every (digit,
  chunk) its first output slot, and every chunk scatters its pairs in order. Chunks in input
  order inside each digit make every pass, hence the sort, stable.

The scan kernels and :func:`gather` are generic over the element type (``dtype=Any``); the
instances used are declared with ``wp.overload`` and launched as concrete kernels, with the same
machine code as one kernel written per type. :func:`radix_key` (a ``@wp.func``) maps the bits of
signed integer and float keys to numbers that sort as the keys do, for the sorts built on this one.

Short loops per thread and few allocations are what make these fast on a GPU (measured on an
H200 with benchmarks/bench_device_sort_tuning.py): a thread's loop over its chunk runs at memory
latency, so a level's time grows with its chunk length, and every ``wp.empty`` costs about 20 us
of host time, more than a level's kernels.
"""

from __future__ import annotations

from typing import Any

import warp as wp

#: items per thread of the scans' levels
SCAN_CHUNK = 32
#: at most items per thread of the sorting passes (and of warp_builtins.device_utils' sums)
CHUNK = 128
#: threads the sorting passes aim for (fewer items per thread for small inputs)
SORT_THREADS = 32768
#: key bits per sorting pass (16 digits)
RADIX_BITS = 4
_RADIX = 1 << RADIX_BITS


@wp.func
def chunk_range(c: int, chunk: int, n: int):
    """The items ``[first, last)`` of chunk ``c``: ``chunk`` items from ``c * chunk``, cut at ``n``."""
    first = c * chunk
    return first, wp.min(first + chunk, n)


@wp.kernel(enable_backward=False)
def _chunk_sums(
    values: wp.array(dtype=Any),
    base: int,
    n: int,
    chunk: int,
    sums: wp.array(dtype=Any),
    sbase: int,
):
    c = wp.tid()
    first, last = chunk_range(c, chunk, n)
    s = sums.dtype(0)
    for j in range(first, last):
        s += values[base + j]
    sums[sbase + c] = s


@wp.kernel(enable_backward=False)
def _serial_exclusive_scan(sums: wp.array(dtype=Any), sbase: int, n: int, total_index: int):
    running = sums.dtype(0)
    for c in range(n):
        s = sums[sbase + c]
        sums[sbase + c] = running
        running += s
    sums[total_index] = running


@wp.kernel(enable_backward=False)
def _chunk_prefixes(
    values: wp.array(dtype=Any),
    base: int,
    n: int,
    chunk: int,
    inclusive: int,
    offsets: wp.array(dtype=Any),
    obase: int,
    out: wp.array(dtype=Any),
    out_base: int,
):
    c = wp.tid()
    first, last = chunk_range(c, chunk, n)
    running = offsets[obase + c]
    for j in range(first, last):
        v = values[base + j]
        if inclusive != 0:
            running += v
            out[out_base + j] = running
        else:
            out[out_base + j] = running
            running += v


def _scan_kernels(dtype: Any) -> tuple[Any, Any, Any]:
    """The (chunk sums, serial scan of the top level, chunk prefixes) instances for ``dtype``."""
    a = wp.array(dtype=dtype)
    return (
        wp.overload(_chunk_sums, {"values": a, "sums": a}),
        wp.overload(_serial_exclusive_scan, {"sums": a}),
        wp.overload(_chunk_prefixes, {"values": a, "offsets": a, "out": a}),
    )


#: dtype -> (chunk sums, serial scan of the top level, chunk prefixes) kernels, declared instances
#: of the generic kernels (launched as concrete kernels: no per-launch type inference)
_SCAN_KERNELS = {dtype: _scan_kernels(dtype) for dtype in (wp.int32, wp.float32)}

#: element types :func:`scan` handles
SCAN_TYPES = tuple(_SCAN_KERNELS)


def scan_levels(n: int) -> list[int]:
    """The number of chunk sums of every level of a scan of ``n`` items: ``ceil(n / SCAN_CHUNK)``,
    then ``ceil`` of that over ``SCAN_CHUNK``, ..., down to at most ``SCAN_CHUNK`` (at least one
    level, of at least one sum)."""
    levels = []
    m = n
    while True:
        m = max(1, (m + SCAN_CHUNK - 1) // SCAN_CHUNK)
        levels.append(m)
        if m <= SCAN_CHUNK:
            return levels


class ScanScratch:
    """Device memory for the chunk sums of every level of the scans of up to ``capacity`` items of
    ``dtype`` on ``device``, and their total (the last element). One buffer serves many scans in
    turn (a sort's passes); the total a scan returns lives there until the next scan."""

    def __init__(self, capacity: int, dtype: Any, device: Any) -> None:
        levels = scan_levels(capacity)
        #: where every level's chunk sums start in :attr:`buffer`
        self.offsets = [sum(levels[:k]) for k in range(len(levels))]
        self.total_index = sum(levels)
        self.capacity = capacity
        self.dtype = dtype
        self.buffer = wp.empty(self.total_index + 1, dtype=dtype, device=device)


def scan(values: Any, out: Any, n: int, inclusive: bool = False, scratch: ScanScratch | None = None) -> Any:
    """Prefix sums of the first ``n`` elements of ``values`` into ``out`` (1-D int32 or float32
    arrays of one dtype on one device; ``out`` may be ``values``): exclusive ``out[i] =
    values[0] + ... + values[i - 1]``, inclusive up to ``values[i]``. ``scratch`` (for at least
    ``n`` items of the dtype, on the device) saves an allocation. Returns a 1-element device
    array holding the total (a view of the scratch buffer)."""
    sums_kernel, serial_kernel, prefixes_kernel = _SCAN_KERNELS[values.dtype]
    device = values.device
    if scratch is None:
        scratch = ScanScratch(n, values.dtype, device)
    elif scratch.capacity < n or scratch.dtype is not values.dtype:
        raise ValueError(
            f"scan scratch for {scratch.capacity} {scratch.dtype} items cannot scan {n} {values.dtype}"
        )
    buf, offsets = scratch.buffer, scratch.offsets
    levels = scan_levels(n)

    def launch(kernel: Any, dim: int, inputs: list[Any]) -> None:
        wp.launch(kernel, dim=dim, inputs=inputs, device=device, record_tape=False)

    # up: every level's chunk sums, from the items to the top
    src, base, count = values, 0, n
    for level, size in enumerate(levels):
        launch(sums_kernel, size, [src, base, count, SCAN_CHUNK, buf, offsets[level]])
        src, base, count = buf, offsets[level], size
    launch(serial_kernel, 1, [buf, offsets[len(levels) - 1], levels[-1], scratch.total_index])
    # down: every level's items get their prefixes from the (now scanned) sums above them
    for level in reversed(range(len(levels))):
        if level == 0:
            inputs = [values, 0, n, SCAN_CHUNK, 1 if inclusive else 0, buf, offsets[0], out, 0]
        else:
            below = offsets[level - 1]
            inputs = [buf, below, levels[level - 1], SCAN_CHUNK, 0, buf, offsets[level], buf, below]
        launch(prefixes_kernel, levels[level], inputs)
    return buf[scratch.total_index : scratch.total_index + 1]


def exclusive_scan(values: Any, out: Any, n: int, scratch: ScanScratch | None = None) -> Any:
    """``out[i] = values[0] + ... + values[i - 1]`` for ``i < n`` (int32 arrays on one device;
    ``out`` may be ``values``). Returns a 1-element device array holding the total."""
    return scan(values, out, n, inclusive=False, scratch=scratch)


@wp.kernel(enable_backward=False)
def _gather(src: wp.array(dtype=Any), order: wp.array(dtype=wp.int32), out: wp.array(dtype=Any)):
    j = wp.tid()
    out[j] = src[order[j]]


#: element type -> instance of :func:`_gather` (int32: indices, keys; int64: 8-byte bit patterns)
_GATHER = {
    t: wp.overload(_gather, {"src": wp.array(dtype=t), "out": wp.array(dtype=t)})
    for t in (wp.int32, wp.int64)
}


def gather(src: Any, order: Any, out: Any, n: int) -> None:
    """``out[j] = src[order[j]]`` for ``j < n`` (``src`` and ``out`` int32 or int64 arrays, ``order``
    int32, on one device), in a kernel."""
    kernel = _GATHER.get(src.dtype)
    if kernel is None:
        raise TypeError(f"gather moves int32 or int64 elements, not {src.dtype.__name__}")
    wp.launch(kernel, dim=n, inputs=[src, order, out], device=src.device, record_tape=False)


#: how :func:`radix_key` reads a key's bits
KEY_UNSIGNED = wp.constant(0)
KEY_SIGNED = wp.constant(1)
KEY_FLOAT = wp.constant(2)


@wp.func
def radix_key(b: Any, kind: int, sign: Any):
    """The bits ``b`` (int32 or int64) of a key of ``kind`` as a number ordering, read unsigned, as
    the keys do: unsigned keys as they are, signed ones with the sign bit ``sign`` flipped, floats
    with every bit flipped when negative, else with the sign bit set."""
    m = b
    if kind == KEY_SIGNED:
        m = b ^ sign
    elif kind == KEY_FLOAT:
        if b < type(b)(0):
            m = ~b
        else:
            m = b ^ sign
    return m


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
    first, last = chunk_range(c, chunk, n)
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
    first, last = chunk_range(c, chunk, n)
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
    scratch = ScanScratch(_RADIX * chunks, wp.int32, device)  # shared by every pass's scan
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
        exclusive_scan(counts, counts, _RADIX * chunks, scratch)
        scatter = [src_k, src_v, n, shift, chunk, chunks, counts, dst_k, dst_v]
        wp.launch(_scatter_digits, dim=chunks, inputs=scatter, device=device, record_tape=False)
        src_k, src_v = dst_k, dst_v
    return src_k, src_v
