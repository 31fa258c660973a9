"""Device memory of the stand-in driver: an address range the host cannot touch.

The arena is one anonymous mapping reserved ``PROT_NONE``. The fake driver opens it (read and
write) only while it runs its own operations -- copies, memsets and fake kernel launches -- and
closes it again afterwards, so host code that treats a device address as host memory (a NumPy
view of ``array.ptr``, a ``ctypes`` read, a descriptor written through a host pointer) faults at
once (pytest's faulthandler prints the Python stack) instead of silently working as it would
with device memory in ordinary host memory.

Allocation is first fit over a sorted free list with 256-byte granularity (as ``cudaMalloc``
aligns); freed ranges are handed back to the kernel (``MADV_DONTNEED``) so a long test session
does not grow. Fresh memory holds 0xCD garbage in its first :data:`GARBAGE_BYTES` (reading it
uninitialized shows); the rest of a large allocation stays untouched (zeros) so that, like
``cuMemAlloc``, it costs no host memory until used -- and opening the arena stays cheap (the
cost of ``mprotect`` grows with the pages in use).
"""

from __future__ import annotations

import bisect
import ctypes
import ctypes.util
import mmap
import threading
from contextlib import contextmanager
from typing import Iterator

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [
    ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long
]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)
ALIGN = 256
PAGE = mmap.PAGESIZE
PROT_NONE = 0
#: bytes of a fresh allocation filled with garbage
GARBAGE_BYTES = 1 << 20


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"fake device memory: {what} failed")


class DeviceArena:
    """``size`` bytes of address space, ``PROT_NONE`` except inside :meth:`opened`."""

    def __init__(self, size: int = 64 * 2**30):
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE
        base = _libc.mmap(None, size, PROT_NONE, flags, -1, 0)
        if base in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "fake device memory: mmap failed")
        self.base: int = base
        self.size = size
        #: end of the part ever handed out (the part :meth:`opened` makes accessible)
        self.top = base
        #: free ranges below ``top``: sorted starts and their sizes
        self._free_starts: list[int] = []
        self._free_sizes: dict[int, int] = {}
        self._open_depth = 0
        #: one driver operation at a time: threads launching or copying concurrently would
        #: otherwise close the arena under each other's feet (a real fault, not a test failure)
        self._lock = threading.RLock()

    def contains(self, address: int, nbytes: int = 1) -> bool:
        """True when ``[address, address + nbytes)`` lies inside the arena."""
        return self.base <= address and address + nbytes <= self.base + self.size

    def allocate(self, nbytes: int) -> int:
        """Address of ``nbytes`` (rounded up to 256) fresh bytes, the first :data:`GARBAGE_BYTES` 0xCD."""
        with self._lock:
            return self._allocate(nbytes)

    def _allocate(self, nbytes: int) -> int:
        size = -(-max(nbytes, 1) // ALIGN) * ALIGN
        address = None
        for start in self._free_starts:
            if self._free_sizes[start] >= size:
                address = start
                break
        if address is not None:
            rest = self._free_sizes.pop(address) - size
            self._free_starts.remove(address)
            if rest:
                self._add_free(address + size, rest)
        else:
            if self.top + size > self.base + self.size:
                raise MemoryError(f"fake device memory: {nbytes} bytes do not fit the {self.size}-byte arena")
            address = self.top
            self.top += size
        if self._open_depth:
            self._protect(mmap.PROT_READ | mmap.PROT_WRITE)  # the new top included
        with self.opened(address, nbytes):
            ctypes.memset(address, 0xCD, min(nbytes, GARBAGE_BYTES))  # garbage, like fresh device memory
        return address

    def release(self, address: int, nbytes: int) -> None:
        """Give ``nbytes`` at ``address`` (as allocated) back; whole pages go back to the OS."""
        with self._lock:
            self._release(address, nbytes)

    def _release(self, address: int, nbytes: int) -> None:
        size = -(-max(nbytes, 1) // ALIGN) * ALIGN
        first = -(-address // PAGE) * PAGE
        last = (address + size) // PAGE * PAGE
        if last > first:
            _check(_libc.madvise(first, last - first, mmap.MADV_DONTNEED), "madvise")
        self._add_free(address, size)

    def _add_free(self, address: int, size: int) -> None:
        i = bisect.bisect_left(self._free_starts, address)
        # merge with the following and the preceding free range
        if i < len(self._free_starts) and address + size == self._free_starts[i]:
            size += self._free_sizes.pop(self._free_starts.pop(i))
        if i > 0 and self._free_starts[i - 1] + self._free_sizes[self._free_starts[i - 1]] == address:
            prev = self._free_starts[i - 1]
            self._free_sizes[prev] += size
            return
        self._free_starts.insert(i, address)
        self._free_sizes[address] = size

    def _protect(self, prot: int, start: int | None = None, nbytes: int | None = None) -> None:
        """``mprotect`` the pages of ``[start, start + nbytes)`` (default: all handed out)."""
        if start is None or nbytes is None:
            start, nbytes = self.base, self.top - self.base
        first = start // PAGE * PAGE
        length = -(-(start + nbytes - first) // PAGE) * PAGE
        if length > 0:
            _check(_libc.mprotect(first, length, prot), "mprotect")

    @contextmanager
    def opened(self, start: int | None = None, nbytes: int | None = None) -> Iterator[None]:
        """Make the arena (or only the pages of ``[start, start + nbytes)``) readable and writable
        for the driver's own work. Nests inside an open arena; one thread at a time."""
        with self._lock:
            with self._opened(start, nbytes):
                yield

    @contextmanager
    def _opened(self, start: int | None, nbytes: int | None) -> Iterator[None]:
        if self._open_depth:  # the whole arena is open already
            self._open_depth += 1
            try:
                yield
            finally:
                self._open_depth -= 1
            return
        if start is None or nbytes is None:
            self._protect(mmap.PROT_READ | mmap.PROT_WRITE)
            self._open_depth = 1
            try:
                yield
            finally:
                self._open_depth = 0
                self._protect(PROT_NONE)
            return
        self._protect(mmap.PROT_READ | mmap.PROT_WRITE, start, nbytes)
        try:
            yield
        finally:
            self._protect(PROT_NONE, start, nbytes)
