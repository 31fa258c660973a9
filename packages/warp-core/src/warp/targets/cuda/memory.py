"""CUDA memory: device allocations (memory pool or plain), pinned host memory, pattern fills.

Allocations are :class:`~warp.targets.base.Allocation` objects whose finalizer frees
the memory: ``cuMemFreeAsync`` on the stream it was allocated on (pool memory is reused by later
allocations on that stream without synchronizing), ``cuMemFree``, or ``cuMemFreeHost``.

Finalizers run whenever Python's garbage collector does, so two cases need care:

* the stream an allocation was made on may be gone by then: the finalizer holds the
  :class:`~warp.targets.cuda.streams.Stream` object, so a stream lives as long as memory
  allocated on it (a destroyed ``CUstream`` handle crashes the driver);
* a graph capture may be running on the device: freeing memory the graph did not allocate is
  not allowed while capturing (``cuMemFreeAsync`` would become a graph node, ``cuMemFree``
  invalidates the capture), so such frees wait in a list until the capture ends
  (:func:`capture_started` / :func:`capture_ended`, called by the CUDA target).
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from typing import Any, Callable

from warp.targets.cuda import driver as drv
from warp.targets.cuda.context import device_info, make_current
from warp.targets.base import Allocation

#: device allocations are rounded up to this many bytes (kernels may load whole vectors)
GRANULARITY = 256


_lock = threading.Lock()
#: device ordinal -> graph captures running on it
_captures: dict[int, int] = {}
#: device ordinal -> number of the latest capture begun on it (graph allocations remember it)
_epochs: dict[int, int] = {}
#: frees that came while a capture ran on their device: (call, pointer, ordinal, stream object)
_deferred: list[tuple[str, Any, int, Any]] = []
#: other releases (graph destruction) waiting for the captures on a device: (ordinal, callable)
_deferred_calls: list[tuple[int, Callable[[], None]]] = []


def capture_started(ordinal: int) -> None:
    """A graph capture began on device ``ordinal``: frees of device memory wait until it ends."""
    with _lock:
        _captures[ordinal] = _captures.get(ordinal, 0) + 1
        _epochs[ordinal] = _epochs.get(ordinal, 0) + 1


def capture_ended(ordinal: int) -> None:
    """A graph capture on device ``ordinal`` ended (or failed): do the frees that waited for it."""
    with _lock:
        count = _captures.get(ordinal, 0) - 1
        if count > 0:
            _captures[ordinal] = count
        else:
            _captures.pop(ordinal, None)
    release_deferred()


def release_deferred() -> None:
    """Free the deferred allocations (and run the deferred releases) of devices no capture runs
    on any more."""
    with _lock:
        ready = [item for item in _deferred if not _waits(item[2])]
        calls = [fn for ordinal, fn in _deferred_calls if not _waits(ordinal)]
        if not ready and not calls:
            return
        _deferred[:] = [item for item in _deferred if _waits(item[2])]
        _deferred_calls[:] = [item for item in _deferred_calls if _waits(item[0])]
    for call, ptr, ordinal, stream in ready:
        _free(call, ptr, ordinal, stream)  # no capture runs on ``ordinal`` now: freed at once
    for fn in calls:
        fn()


def defer_while_capturing(ordinal: int, release: Callable[[], None]) -> None:
    """Run ``release`` (a finalizer's driver call that would invalidate a running capture, such
    as destroying a graph) now, or once the captures on device ``ordinal`` have ended."""
    with _lock:
        if _waits(ordinal):
            _deferred_calls.append((ordinal, release))
            return
    release()


def _waits(ordinal: int) -> bool:
    return ordinal in _captures or (ordinal < 0 and bool(_captures))


def deferred_count() -> int:
    """How many frees wait for a capture to end (for tests and diagnostics)."""
    with _lock:
        return len(_deferred)


def _capturing(stream: Any) -> bool:
    err, status = drv.driver().cuStreamIsCapturing(stream.handle)
    return int(err) == 0 and int(status) != 0  # CU_STREAM_CAPTURE_STATUS_NONE is 0


def _free(call: str, ptr: Any, ordinal: int, stream: Any = None, epoch: int | None = None) -> None:
    """Finalizer of an allocation: ``call`` (``cuMemFreeAsync`` on the stream object ``stream``,
    ``cuMemFree``, ``cuMemFreeHost``) now, or once the captures on ``ordinal`` have ended.

    Memory the running capture allocated (``epoch``: the capture's number) is freed at once, by
    the graph: a free node on its still-capturing stream."""
    with _lock:  # (pinned host memory, ordinal -1, waits for every capture)
        waits = _waits(ordinal)
        in_graph = waits and epoch is not None and epoch == _epochs.get(ordinal)
    if waits:
        try:
            in_graph = in_graph and _capturing(stream)
        except Exception:
            in_graph = False
        if not in_graph:
            with _lock:
                _deferred.append((call, ptr, ordinal, stream))
            return
    try:  # at interpreter exit the driver may already be shut down
        cu = drv.driver()
        if ordinal >= 0:
            make_current(ordinal)
        if stream is not None:
            getattr(cu, call)(ptr, stream.handle)
        else:
            getattr(cu, call)(ptr)
    except Exception:
        pass


def allocate_device(device: Any, nbytes: int, stream: Any) -> Allocation:
    """``nbytes`` of memory on CUDA ``device`` (from its memory pool when supported), in the
    order of ``stream`` (a :class:`~warp.targets.cuda.streams.Stream`, kept alive until the
    memory is freed on it)."""
    cu = drv.driver()
    info = make_current(device.ordinal)
    size = max(GRANULARITY, (nbytes + GRANULARITY - 1) // GRANULARITY * GRANULARITY)
    if _deferred:
        release_deferred()
    if info.use_mempool:
        ptr = drv.check(cu.cuMemAllocAsync(size, stream.handle), "cuMemAllocAsync")
        mem = Allocation(int(ptr), nbytes, device, owner="mempool")
        epoch = _epochs.get(device.ordinal) if _captures and _capturing(stream) else None
        weakref.finalize(mem, _free, "cuMemFreeAsync", ptr, device.ordinal, stream, epoch)
    else:
        ptr = drv.check(cu.cuMemAlloc(size), "cuMemAlloc")
        mem = Allocation(int(ptr), nbytes, device)
        weakref.finalize(mem, _free, "cuMemFree", ptr, device.ordinal)
    return mem


def allocate_pinned(device: Any, nbytes: int, *, zero: bool = False) -> Allocation:
    """``nbytes`` of page-locked host memory (reachable from every CUDA device)."""
    cu = drv.driver()
    make_current(0)  # pinned memory needs a current context; portable makes it valid in all
    flags = int(cu.CU_MEMHOSTALLOC_PORTABLE) if hasattr(cu, "CU_MEMHOSTALLOC_PORTABLE") else 1
    ptr = drv.check(cu.cuMemHostAlloc(max(nbytes, 1), flags), "cuMemHostAlloc")
    address = int(ptr)
    if zero and nbytes:
        ctypes.memset(address, 0, nbytes)
    mem = Allocation(address, nbytes, device, owner="pinned")
    weakref.finalize(mem, _free, "cuMemFreeHost", ptr, -1)
    return mem


def fill_pattern(ptr: int, pattern: bytes, count: int, stream: Any) -> None:
    """Write ``pattern`` ``count`` times from device address ``ptr`` on ``stream``.

    1-, 2- and 4-byte patterns (and longer ones made of one repeated 4-byte word) use the
    driver's memset; others are written once from the host and doubled with device copies.
    """
    cu = drv.driver()
    size = len(pattern)
    dst = cu.CUdeviceptr(ptr)
    if size == 1:
        drv.check(cu.cuMemsetD8Async(dst, pattern[0], count, stream), "cuMemsetD8Async")
        return
    if size == 2:
        value = int.from_bytes(pattern, "little")
        drv.check(cu.cuMemsetD16Async(dst, value, count, stream), "cuMemsetD16Async")
        return
    if size % 4 == 0 and pattern == pattern[:4] * (size // 4):
        value = int.from_bytes(pattern[:4], "little")
        drv.check(cu.cuMemsetD32Async(dst, value, count * size // 4, stream), "cuMemsetD32Async")
        return
    host = ctypes.create_string_buffer(pattern, size)
    drv.check(cu.cuMemcpyAsync(dst, cu.CUdeviceptr(ctypes.addressof(host)), size, stream), "cuMemcpyAsync")
    drv.check(cu.cuStreamSynchronize(stream), "cuStreamSynchronize")  # host buffer is temporary
    done = 1
    while done < count:
        n = min(done, count - done)
        target = cu.CUdeviceptr(ptr + done * size)
        drv.check(cu.cuMemcpyAsync(target, dst, n * size, stream), "cuMemcpyAsync")
        done += n


def memory_info(device: Any) -> tuple[int, int]:
    """(free, total) bytes of CUDA ``device``."""
    make_current(device.ordinal)
    free, total = drv.check(drv.driver().cuMemGetInfo(), "cuMemGetInfo")
    return int(free), int(total)


__all__ = [
    "allocate_device", "allocate_pinned", "capture_ended", "capture_started", "defer_while_capturing",
    "deferred_count", "device_info",
    "fill_pattern", "memory_info", "release_deferred",
]
