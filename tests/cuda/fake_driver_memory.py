"""The stand-in driver's memory: allocations, copies, memsets, pinned host memory and pools.

Device memory comes from the :class:`fake_memory.DeviceArena` (which the host cannot touch);
pinned host memory (``cuMemHostAlloc``) is ordinary host memory the device may access. Stream
ordered allocations (``cuMemAllocAsync``) count against the device's default pool, or become
the capturing graph's own allocations. Copies and memsets run as stream work; in deferred mode a
copy from pageable memory is staged when issued and one to pageable memory returns when done.
"""

from __future__ import annotations

import contextlib
import ctypes
from typing import Any

import numpy as np
from cuda.bindings import driver as real
from fake_driver_base import ERR, OK, FakeDriverBase


class MemoryMixin(FakeDriverBase):
    """``cuMem*`` (allocation, copies, memsets, host memory) and ``cuMemPool*``."""

    # -- memory pools -------------------------------------------------------------------------
    def cuDeviceGetDefaultMemPool(self, dev: Any):
        return (OK, real.CUmemoryPool(0x200 + int(dev)))

    #: pool attributes ``cuMemPoolSetAttribute`` may set (the usage counters only to 0: a reset)
    _SETTABLE = ("CU_MEMPOOL_ATTR_RELEASE_THRESHOLD",)
    _RESETTABLE = ("CU_MEMPOOL_ATTR_USED_MEM_HIGH", "CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH")

    def cuMemPoolSetAttribute(self, pool: Any, attr: Any, value: Any):
        assert isinstance(attr, real.CUmemPool_attribute) and isinstance(pool, real.CUmemoryPool)
        assert isinstance(value, real.cuuint64_t)  # the 64-bit attributes take a cuuint64_t
        if attr.name in self._RESETTABLE:
            if int(value) != 0:
                return (ERR.CUDA_ERROR_INVALID_VALUE,)
            self._pool(pool)[attr.name] = self._pool(pool).get("CU_MEMPOOL_ATTR_USED_MEM_CURRENT", 0)
            return (OK,)
        if attr.name not in self._SETTABLE:
            return (ERR.CUDA_ERROR_INVALID_VALUE,)
        self._pool(pool)[attr.name] = int(value)
        return (OK,)

    def cuMemPoolGetAttribute(self, pool: Any, attr: Any):
        assert isinstance(attr, real.CUmemPool_attribute) and isinstance(pool, real.CUmemoryPool)
        if attr.name not in self._pool(pool):
            return (ERR.CUDA_ERROR_INVALID_VALUE, None)
        return (OK, real.cuuint64_t(self._pool(pool)[attr.name]))

    def cuMemPoolSetAccess(self, pool: Any, descs: list, count: int):
        assert count == len(descs)
        for d in descs:
            self.pool_access[(int(pool), int(d.location.id))] = int(d.flags)
        return (OK,)

    def cuMemPoolGetAccess(self, pool: Any, location: Any):
        default = int(real.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_NONE)
        return (OK, real.CUmemAccess_flags(self.pool_access.get((int(pool), int(location.id)), default)))

    # -- allocations --------------------------------------------------------------------------
    def cuMemGetInfo(self):
        return (OK, 70 * 2**30, 80 * 2**30)

    def _alloc(self, size: int, kind: str) -> int:
        if kind == "device":
            address = self.arena.allocate(size)
        else:
            buf = ctypes.create_string_buffer(size)
            address = ctypes.addressof(buf)
            self._host_buffers[address] = buf
        self.memory[address] = (size, kind)
        return address

    def _free(self, ptr: Any, kind: str):
        entry = self.memory.get(int(ptr))
        if entry is None or entry[1] != kind:
            return (ERR.CUDA_ERROR_INVALID_VALUE,)
        del self.memory[int(ptr)]
        self.freed_sizes[int(ptr)] = entry[0]
        if kind == "device":
            self.arena.release(int(ptr), entry[0])
        else:
            del self._host_buffers[int(ptr)]
        self.freed.append(int(ptr))
        return (OK,)

    def read_device(self, address: int, nbytes: int) -> bytes:
        """Bytes of device memory (for tests: the host cannot read it directly), after all work."""
        self._flush_all()
        with self.arena.opened():
            return ctypes.string_at(address, nbytes)

    def cuMemAllocAsync(self, size: int, stream: Any):
        assert isinstance(stream, real.CUstream) and size > 0
        self._log("cuMemAllocAsync")
        if not self._check_stream("cuMemAllocAsync", stream):
            return (ERR.CUDA_ERROR_INVALID_HANDLE,)
        ptr = self._alloc(size, "device")
        if int(stream) in self.capturing:
            self.graph_allocations.add(ptr)
            graph = self.capture_graph.get(int(stream))
            if graph is not None:
                self.graph_alloc_ptrs.setdefault(graph, []).append(ptr)
        else:
            pool = self._pool(0x200 + self._device_of_context())
            pool["CU_MEMPOOL_ATTR_USED_MEM_CURRENT"] += size
            high = max(pool["CU_MEMPOOL_ATTR_USED_MEM_HIGH"], pool["CU_MEMPOOL_ATTR_USED_MEM_CURRENT"])
            pool["CU_MEMPOOL_ATTR_USED_MEM_HIGH"] = high
            self.pool_memory[ptr] = 0x200 + self._device_of_context()
        return (OK, real.CUdeviceptr(ptr))

    def cuMemAlloc(self, size: int):
        self._log("cuMemAlloc")
        return (OK, real.CUdeviceptr(self._alloc(size, "device")))

    def cuMemFreeAsync(self, ptr: Any, stream: Any):
        assert isinstance(stream, real.CUstream)
        if not self._check_stream("cuMemFreeAsync", stream):
            return (ERR.CUDA_ERROR_INVALID_HANDLE,)
        if int(stream) in self.capturing and int(ptr) not in self.graph_allocations:
            self.violations.append(
                f"cuMemFreeAsync of memory the graph did not allocate, during capture ({int(ptr):#x})"
            )
            return (ERR.CUDA_ERROR_INVALID_VALUE,)
        self.graph_allocations.discard(int(ptr))
        entry = self.memory.get(int(ptr))
        if entry is None or entry[1] != "device":
            return (ERR.CUDA_ERROR_INVALID_VALUE,)

        def op() -> None:  # freed in stream order (after the work issued before it)
            self._free(ptr, "device")
            pool = self.pool_memory.pop(int(ptr), None)
            if pool is not None:
                self._pool(pool)["CU_MEMPOOL_ATTR_USED_MEM_CURRENT"] -= self.freed_sizes[int(ptr)]

        if int(stream) in self.capturing:
            op()  # a free node of the graph's own allocation: the stand-in frees it now
        else:
            self._run(stream, op)
        return (OK,)

    def cuMemFree(self, ptr: Any):
        if self.capturing:  # an unsafe call: it would invalidate the capture
            self.violations.append(f"cuMemFree during a graph capture ({int(ptr):#x})")
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        self.graph_allocations.discard(int(ptr))
        self._flush_all()  # cuMemFree waits for the device's work
        return self._free(ptr, "device")

    def cuMemHostAlloc(self, size: int, flags: int):
        return (OK, self._alloc(size, "host"))

    def cuMemFreeHost(self, ptr: Any):
        if self.capturing:
            self.violations.append(f"cuMemFreeHost during a graph capture ({int(ptr):#x})")
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        self._flush_all()
        return self._free(ptr, "host")

    # -- copies and memsets -------------------------------------------------------------------
    def _check_range(self, ptr: int, nbytes: int) -> None:
        for base, (size, _) in self.memory.items():
            if base <= ptr and ptr + nbytes <= base + size:
                return
        if not self._host_ok(ptr):
            raise AssertionError(f"access of {nbytes} bytes at {ptr:#x} outside any allocation")

    def _opened(self, address: int, nbytes: int) -> Any:
        """The arena's pages of ``[address, address + nbytes)`` opened (nothing for host memory)."""
        if self.arena.contains(address, nbytes):
            return self.arena.opened(address, nbytes)
        return contextlib.nullcontext()

    def _host_ok(self, ptr: int) -> bool:
        # pageable host memory (NumPy buffers) is legal in copies; the arena outside live
        # allocations is not
        return not self.arena.contains(ptr)

    def cuMemcpyAsync(self, dst: Any, src: Any, nbytes: int, stream: Any):
        assert isinstance(dst, real.CUdeviceptr) and isinstance(src, real.CUdeviceptr)
        assert isinstance(stream, real.CUstream)
        d, s = int(dst), int(src)
        self._check_range(d, nbytes)
        self._check_range(s, nbytes)
        if int(stream) in (0, int(real.CU_STREAM_LEGACY)) and self.capturing:
            # the legacy stream synchronizes with the (blocking) capturing stream: not allowed
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,)
        self.copies.append((d, s, nbytes, int(stream)))
        pageable_src = not self.arena.contains(s) and not self._pinned(s)
        pageable_dst = not self.arena.contains(d) and not self._pinned(d)
        staged = None
        if self.deferred and pageable_src and int(stream) not in self.capturing:
            staged = ctypes.create_string_buffer(ctypes.string_at(s, nbytes), nbytes)
            s = ctypes.addressof(staged)  # pageable memory is staged when the call is made

        def op() -> None:
            with self._opened(d, nbytes), self._opened(s, nbytes):
                ctypes.memmove(d, s, nbytes)
            del staged_ref[:]  # (the staging buffer lives until the copy ran)

        staged_ref = [staged]

        if self.deferred and pageable_dst and int(stream) not in self.capturing:
            # a copy to pageable memory returns when done: after the stream's earlier work
            self._flush(int(stream))
        result = self._run(stream, op)
        if self.deferred and pageable_dst and int(stream) not in self.capturing:
            self._flush(int(stream))
        return result

    def _memset(self, dst: Any, value: int, count: int, stream: Any, ctype: Any):
        assert isinstance(dst, real.CUdeviceptr) and isinstance(stream, real.CUstream)
        address = int(dst)
        self._check_range(address, count * ctypes.sizeof(ctype))

        def op() -> None:
            with self._opened(address, count * ctypes.sizeof(ctype)):
                np.ctypeslib.as_array((ctype * count).from_address(address))[:] = value

        return self._run(stream, op)

    def cuMemsetD8Async(self, dst: Any, value: int, count: int, stream: Any):
        return self._memset(dst, value, count, stream, ctypes.c_uint8)

    def cuMemsetD16Async(self, dst: Any, value: int, count: int, stream: Any):
        return self._memset(dst, value, count, stream, ctypes.c_uint16)

    def cuMemsetD32Async(self, dst: Any, value: int, count: int, stream: Any):
        return self._memset(dst, value, count, stream, ctypes.c_uint32)

    def _memset2d(self, dst: Any, pitch: int, value: int, width: int, height: int, stream: Any, ctype: Any):
        """``height`` rows of ``width`` values, ``pitch`` bytes apart (the driver's 2D memset)."""
        assert isinstance(dst, real.CUdeviceptr) and isinstance(stream, real.CUstream)
        size = ctypes.sizeof(ctype)
        address = int(dst)
        assert address % size == 0 and pitch % size == 0, "misaligned 2D memset"
        assert width >= 1 and height >= 1 and (height == 1 or pitch >= width * size)
        extent = (height - 1) * pitch + width * size
        self._check_range(address, extent)

        def op() -> None:
            with self._opened(address, extent):
                # every row at once: a (height, width) view with the rows ``pitch`` bytes apart (a
                # Python loop over rows took minutes for the million-row fills of wide patterns)
                words = np.ctypeslib.as_array((ctype * (extent // size)).from_address(address))
                grid = np.lib.stride_tricks.as_strided(words, shape=(height, width), strides=(pitch, size))
                grid[...] = value

        return self._run(stream, op)

    def cuMemsetD2D8Async(self, dst: Any, pitch: int, value: int, width: int, height: int, stream: Any):
        return self._memset2d(dst, pitch, value, width, height, stream, ctypes.c_uint8)

    def cuMemsetD2D16Async(self, dst: Any, pitch: int, value: int, width: int, height: int, stream: Any):
        return self._memset2d(dst, pitch, value, width, height, stream, ctypes.c_uint16)

    def cuMemsetD2D32Async(self, dst: Any, pitch: int, value: int, width: int, height: int, stream: Any):
        return self._memset2d(dst, pitch, value, width, height, stream, ctypes.c_uint32)
