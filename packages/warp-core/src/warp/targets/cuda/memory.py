"""CUDA memory: device allocations (memory pool or plain), pinned host memory, pattern fills.

Allocations are :class:`~warp.targets.base.Allocation` objects whose finalizer frees
the memory: ``cuMemFreeAsync`` on the stream it was allocated on (pool memory is reused by later
allocations on that stream without synchronizing), ``cuMemFree``, or ``cuMemFreeHost``.
"""

from __future__ import annotations

import ctypes
import weakref
from typing import Any

from warp.targets.cuda import driver as drv
from warp.targets.cuda.context import device_info, make_current
from warp.targets.base import Allocation

#: device allocations are rounded up to this many bytes (kernels may load whole vectors)
GRANULARITY = 256


def _free(call: str, ptr: Any, ordinal: int, stream: Any = None) -> None:
    try:  # at interpreter exit the driver may already be shut down
        cu = drv.driver()
        if ordinal >= 0:
            make_current(ordinal)
        if stream is not None:
            getattr(cu, call)(ptr, stream)
        else:
            getattr(cu, call)(ptr)
    except Exception:
        pass


def allocate_device(device: Any, nbytes: int, stream: Any) -> Allocation:
    """``nbytes`` of memory on CUDA ``device`` (from its memory pool when supported)."""
    cu = drv.driver()
    info = make_current(device.ordinal)
    size = max(GRANULARITY, (nbytes + GRANULARITY - 1) // GRANULARITY * GRANULARITY)
    if info.use_mempool:
        ptr = drv.check(cu.cuMemAllocAsync(size, stream), "cuMemAllocAsync")
        mem = Allocation(int(ptr), nbytes, device)
        weakref.finalize(mem, _free, "cuMemFreeAsync", ptr, device.ordinal, stream)
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


__all__ = ["allocate_device", "allocate_pinned", "fill_pattern", "memory_info", "device_info"]
