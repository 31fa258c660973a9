"""A stand-in for ``cuda.bindings.driver`` whose "devices" are the host CPU.

It lets the CUDA runtime's Python code run without a GPU: the same calls, argument types
(cuda-python's own handle types and enums) and ``(CUresult, value)`` results. Device memory is
a range of address space the host cannot touch (:mod:`fake_memory`: mapped ``PROT_NONE`` except
while the fake runs its own copies, memsets and launches), so host code that reads or writes a
device address faults, and a launch whose array arguments point at pageable host memory fails
an assertion naming the kernel and the argument. Copies are ``memmove``; streams run their work
at once, or record it while a stream capture is active (replayed by ``cuGraphLaunch``; a
capture can be paused and resumed into the same graph, ``cuStreamBeginCaptureToGraph``
checking that the new work follows the graph's last node). ``cuModuleLoadDataEx`` checks the
PTX names its entries; the JIT linker (``cuLinkCreate``/``cuLinkAddData``/``cuLinkComplete``)
makes a checksummed stand-in cubin for the GPU's compute capability and driver version, which
``cuModuleLoadData`` refuses when damaged or made for another GPU or a newer driver;
``cuLaunchKernel`` reads the argument buffer the runtime passed through
``CU_LAUNCH_PARAM_BUFFER_POINTER`` and runs the kernel's CPU build of the same entry (same
argument layout) over all threads, so results are real (whatever the grid and block sizes: the
CUDA entry's own thread mapping is checked separately, by ``grid_emulator``).

What it cannot check: that a ``uint64`` id passed to a kernel points at device memory (only
array arguments are checked), that the PTX runs on a GPU, real asynchrony, and driver-specific
limits.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import itertools
import re
import struct
from typing import Any, Callable

import numpy as np
from cuda.bindings import driver as real
from fake_memory import DeviceArena

from warp.compiler.abi import param_layout
from warp.types.array_type import ADJOINT_RETAIN_MARK, ArrayType

OK = real.CUresult.CUDA_SUCCESS
ERR = real.CUresult
#: the legacy default stream: handle 0 (NULL) or ``CU_STREAM_LEGACY``
_LEGACY_HANDLES = (0, int(real.CU_STREAM_LEGACY))

#: The stand-in's cubins: an ELF magic, then ``arch, driver version, entries`` and a checksum.
FAKE_CUBIN_MAGIC = b"\x7fELF-fake-cubin\0"


def make_fake_cubin(arch: int, driver_version: int, entries: list[str]) -> bytes:
    """The image :meth:`FakeDriver.cuLinkComplete` makes for a GPU of compute capability ``arch``."""
    body = FAKE_CUBIN_MAGIC + struct.pack("<II", arch, driver_version) + "\n".join(entries).encode()
    return body + hashlib.sha256(body).digest()


def parse_fake_cubin(image: bytes) -> tuple[int, int, list[str]] | None:
    """``(arch, driver version, entries)`` of an intact fake cubin, else None."""
    head = len(FAKE_CUBIN_MAGIC) + 8
    if len(image) < head + 32 or not image.startswith(FAKE_CUBIN_MAGIC):
        return None
    body, digest = image[:-32], image[-32:]
    if hashlib.sha256(body).digest() != digest:
        return None
    arch, driver_version = struct.unpack_from("<II", body, len(FAKE_CUBIN_MAGIC))
    text = body[head:].decode(errors="replace")
    return arch, driver_version, text.split("\n") if text else []


class FakeDriver:
    """Module-like object with the driver functions the runtime uses."""

    def __init__(
        self,
        device_count: int = 1,
        resolve_entry: Callable[[str], Any] | None = None,
        entry_params: Callable[[str], list[Any] | None] | None = None,
    ):
        self.device_count = device_count
        self.resolve_entry = resolve_entry
        #: symbol -> parameter types of the entry (None: unknown), to check array arguments
        self.entry_params = entry_params
        self.calls: list[str] = []
        #: live allocations: address -> (size, "device" | "host")
        self.memory: dict[int, tuple[int, str]] = {}
        self.arena = DeviceArena()
        #: pinned host allocations (ordinary host memory, device-accessible like cuMemHostAlloc's)
        self._host_buffers: dict[int, ctypes.Array] = {}
        self.freed: list[int] = []
        #: size of each freed allocation (by address); pool allocations: address -> pool
        self.freed_sizes: dict[int, int] = {}
        self.pool_memory: dict[int, int] = {}
        #: allocation -> how many times it is mapped from an IPC handle
        self.ipc_mapped: dict[int, int] = {}
        self.functions: dict[int, str] = {}
        self.modules: dict[int, list[str]] = {}
        #: pending JIT links (cuLinkCreate): handle -> entries added, the completed image
        self.links: dict[int, dict[str, Any]] = {}
        #: the GPUs' compute capability (major * 10 + minor) and the driver's version
        self.arch = 90
        self.driver_version = 12040
        self.launches: list[dict[str, Any]] = []
        #: cuMemcpyAsync calls: (dst, src, bytes, stream)
        self.copies: list[tuple[int, int, int, int]] = []
        self.capturing: dict[int, list[Callable[[], None]]] = {}
        self.graphs: dict[int, list[Callable[[], None]]] = {}
        #: capturing stream -> the graph it captures into
        self.capture_graph: dict[int, int] = {}
        #: instantiated graphs: a snapshot of the graph's operations when instantiated
        self.graph_execs: dict[int, list[Callable[[], None]]] = {}
        #: capturing streams whose capture a forbidden call invalidated (their end fails)
        self.invalidated: set[int] = set()
        #: events recorded on a capturing stream: event -> (graph, stream)
        self.capture_events: dict[int, tuple[int, int]] = {}
        #: streams forked into another stream's capture (by waiting on its event) -> joined back
        self.forked: dict[int, bool] = {}
        self.peer_enabled: set[tuple[int, int]] = set()
        self.pool_access: dict[tuple[int, int], int] = {}
        self.current_context: int | None = None
        self._ids = itertools.count(1000)
        #: streams made by cuStreamCreate and not destroyed; those destroyed since
        self.live_streams: set[int] = set()
        self.destroyed_streams: set[int] = set()
        #: device memory allocated on a stream while it captured a graph (graph allocations)
        self.graph_allocations: set[int] = set()
        #: graph -> device memory its capture allocated (allocation nodes); graph exec -> (graph,
        #: instantiate flags, launched before)
        self.graph_alloc_ptrs: dict[int, list[int]] = {}
        self.exec_info: dict[int, list[Any]] = {}
        #: stream -> (flags, priority) of the streams cuStreamCreate* made
        self.stream_info: dict[int, tuple[int, int]] = {}
        #: event -> {"flags", "recorded", "captured", "time"}: what cuEventRecord* did to it
        self.events: dict[int, dict[str, Any]] = {}
        self._clock = itertools.count(1)
        #: memory pool -> attribute values set (release threshold) and usage counters
        self.pool_attrs: dict[int, dict[str, int]] = {}
        #: deferred mode (off by default; a test sets it): streams keep their work pending until
        #: the host synchronizes with them, another stream waits for their events or the legacy
        #: stream (which waits for every blocking stream) is used, so missing stream ordering
        #: shows as wrong values, as on a GPU; off: work runs when issued
        self.deferred = False
        #: stream -> its pending work, in issue order (deferred mode)
        self.pending: dict[int, list[Callable[[], None]]] = {}
        #: misuses the real driver would crash on or fail, made where warp ignores the result
        #: (finalizers): the ``fake_cuda`` fixture fails the test when any is left
        self.violations: list[str] = []

    def reset(self) -> None:
        """Forget per-test records (calls, launches, captures, peer state); keep code and memory."""
        self.drain()
        self.calls.clear()
        self.launches.clear()
        self.copies.clear()
        self.capturing.clear()
        self.capture_graph.clear()
        self.invalidated.clear()
        self.capture_events.clear()
        self.forked.clear()
        self.peer_enabled.clear()
        self.pool_access.clear()
        self.current_context = None
        self.links.clear()
        self.arch, self.driver_version = 90, 12040
        self.violations.clear()

    def __getattr__(self, name: str) -> Any:  # enums, handle types, constants
        return getattr(real, name)

    def _log(self, name: str) -> None:
        self.calls.append(name)

    def _run(self, stream: Any, op: Callable[[], None]) -> tuple:
        """Run ``op`` on ``stream`` now, or record it while the stream captures a graph.

        Work on a legacy default stream while a capture runs is refused (the real driver
        invalidates the capture: the legacy stream synchronizes with every blocking stream), as
        is work on a stream whose capture was invalidated."""
        handle = int(stream)
        if handle in self.invalidated:
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,)
        if handle in _LEGACY_HANDLES and self.capturing:
            self._invalidate_captures()
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,)
        ops = self.capturing.get(handle)
        if ops is not None:
            ops.append(op)
        elif not self.deferred:
            op()
        elif int(stream) in (0, int(real.CU_STREAM_LEGACY)):
            self._flush_blocking()  # the legacy stream starts after all blocking streams' work
            op()
        else:
            self.pending.setdefault(int(stream), []).append(op)
        return (OK,)

    def _invalidate_captures(self) -> None:
        """A call not allowed during stream capture was made: every capture fails at its end
        (the stand-in runs one host thread, so thread-local captures are all of them)."""
        self.invalidated.update(self.capturing)

    def _capture_unsafe(self, call: str, *, violation: bool = False) -> bool:
        """True (and the running captures invalidated) when ``call``, which the driver does not
        allow while a stream capture runs, is made during one; ``violation`` also records it
        (calls made from finalizers, whose result warp cannot act on)."""
        if not self.capturing:
            return False
        self._invalidate_captures()
        if violation:
            self.violations.append(f"{call} during a graph capture")
        return True

    # -- deferred mode: running pending work -----------------------------------------------------
    def _flush(self, stream: int) -> None:
        queue = self.pending.get(stream)
        while queue:
            queue.pop(0)()

    def _flush_until(self, token: dict[str, Any]) -> None:
        """Run the work of ``token``'s stream up to its event record."""
        queue = self.pending.get(token["stream"])
        while not token["done"] and queue:
            queue.pop(0)()

    def _flush_blocking(self) -> None:
        non_blocking = int(real.CUstream_flags.CU_STREAM_NON_BLOCKING)
        for stream in list(self.pending):
            if not self.stream_info.get(stream, (0, 0))[0] & non_blocking:
                self._flush(stream)

    def _flush_all(self) -> None:
        for stream in list(self.pending):
            self._flush(stream)

    def drain(self) -> None:
        """Run all pending work and leave deferred mode (the fixture does at the end of a test)."""
        self._flush_all()
        self.deferred = False

    def _pinned(self, address: int) -> bool:
        found = self.allocation_of(address)
        return found is not None and found[2] == "host"

    # -- init and devices ---------------------------------------------------------------------
    def cuInit(self, flags: int):
        return (OK,)

    def cuDriverGetVersion(self):
        return (OK, self.driver_version)

    def cuDeviceGetCount(self):
        return (OK, self.device_count)

    def cuGetErrorName(self, err: Any):
        return (OK, ERR(err).name.encode())

    def cuDeviceGet(self, ordinal: int):
        if not 0 <= ordinal < self.device_count:
            return (ERR.CUDA_ERROR_INVALID_DEVICE, None)
        return (OK, real.CUdevice(ordinal))

    def cuDeviceGetName(self, length: int, dev: Any):
        return (OK, f"Fake GPU {int(dev)}".encode().ljust(length, b"\0"))

    def cuDeviceGetPCIBusId(self, length: int, dev: Any):
        return (OK, f"0000:0{int(dev) + 1}:00.0".encode().ljust(length, b"\0"))

    _ATTRIBUTES = {
        "CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED": 1,
        "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT": 132,
        "CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING": 1,
        "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 232448,
        "CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED": 1,
    }

    def cuDeviceGetAttribute(self, attrib: Any, dev: Any):
        assert isinstance(attrib, real.CUdevice_attribute)
        if attrib.name == "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR":
            return (OK, self.arch // 10)
        if attrib.name == "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR":
            return (OK, self.arch % 10)
        return (OK, self._ATTRIBUTES[attrib.name])

    def cuDeviceTotalMem(self, dev: Any):
        return (OK, 80 * 2**30)

    def cuDevicePrimaryCtxRetain(self, dev: Any):
        return (OK, real.CUcontext(0x100 + int(dev)))

    def cuCtxSetCurrent(self, ctx: Any):
        assert isinstance(ctx, real.CUcontext)
        self.current_context = int(ctx)
        return (OK,)

    def cuCtxSynchronize(self):
        # synchronizing a context with a capturing stream invalidates the capture
        if self._capture_unsafe("cuCtxSynchronize", violation=True):
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        self._log("cuCtxSynchronize")
        self._flush_all()
        return (OK,)

    def cuCtxGetStreamPriorityRange(self):
        """(least, greatest): an H100's range, 0 (default) to -5 (highest)."""
        return (OK, 0, -5)

    def cuDeviceGetDefaultMemPool(self, dev: Any):
        return (OK, real.CUmemoryPool(0x200 + int(dev)))

    def _pool(self, pool: Any) -> dict[str, int]:
        return self.pool_attrs.setdefault(int(pool), {
            "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD": 0, "CU_MEMPOOL_ATTR_USED_MEM_CURRENT": 0,
            "CU_MEMPOOL_ATTR_USED_MEM_HIGH": 0,
        })

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

    def cuMemGetInfo(self):
        return (OK, 70 * 2**30, 80 * 2**30)

    def cuDeviceCanAccessPeer(self, dev: Any, peer: Any):
        return (OK, 1)

    def cuCtxEnablePeerAccess(self, ctx: Any, flags: int):
        key = (self.current_context, int(ctx))
        if key in self.peer_enabled:
            return (ERR.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,)
        self.peer_enabled.add(key)
        return (OK,)

    def cuCtxDisablePeerAccess(self, ctx: Any):
        key = (self.current_context, int(ctx))
        if key not in self.peer_enabled:
            return (ERR.CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,)
        self.peer_enabled.discard(key)
        return (OK,)

    def cuMemPoolSetAccess(self, pool: Any, descs: list, count: int):
        assert count == len(descs)
        for d in descs:
            self.pool_access[(int(pool), int(d.location.id))] = int(d.flags)
        return (OK,)

    def cuMemPoolGetAccess(self, pool: Any, location: Any):
        default = int(real.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_NONE)
        return (OK, real.CUmemAccess_flags(self.pool_access.get((int(pool), int(location.id)), default)))

    # -- memory -------------------------------------------------------------------------------
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

    def allocation_of(self, address: int) -> tuple[int, int, str] | None:
        """(base, size, kind) of the live allocation holding ``address``, or None."""
        for base, (size, kind) in self.memory.items():
            if base <= address < base + size:
                return base, size, kind
        return None

    def read_device(self, address: int, nbytes: int) -> bytes:
        """Bytes of device memory (for tests: the host cannot read it directly), after all work."""
        self._flush_all()
        with self.arena.opened():
            return ctypes.string_at(address, nbytes)

    def _check_stream(self, call: str, stream: Any) -> bool:
        """False (and a violation recorded) for a destroyed stream: the driver would crash."""
        if int(stream) in self.destroyed_streams:
            self.violations.append(f"{call} on destroyed stream {int(stream)}")
            return False
        return True

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

    def _device_of_context(self) -> int:
        assert self.current_context is not None, "no current context"
        return self.current_context - 0x100

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
                rows = np.ctypeslib.as_array((ctypes.c_uint8 * extent).from_address(address))
                for r in range(height):
                    row = rows[r * pitch : r * pitch + width * size].view(np.dtype(ctype))
                    row[:] = value

        return self._run(stream, op)

    def cuMemsetD2D8Async(self, dst: Any, pitch: int, value: int, width: int, height: int, stream: Any):
        return self._memset2d(dst, pitch, value, width, height, stream, ctypes.c_uint8)

    def cuMemsetD2D16Async(self, dst: Any, pitch: int, value: int, width: int, height: int, stream: Any):
        return self._memset2d(dst, pitch, value, width, height, stream, ctypes.c_uint16)

    def cuMemsetD2D32Async(self, dst: Any, pitch: int, value: int, width: int, height: int, stream: Any):
        return self._memset2d(dst, pitch, value, width, height, stream, ctypes.c_uint32)

    # -- streams and events -------------------------------------------------------------------
    def cuStreamCreate(self, flags: int):
        return self.cuStreamCreateWithPriority(flags, 0)

    def cuStreamCreateWithPriority(self, flags: int, priority: int):
        assert isinstance(flags, int) and isinstance(priority, int)
        if flags & ~int(real.CUstream_flags.CU_STREAM_NON_BLOCKING):
            return (ERR.CUDA_ERROR_INVALID_VALUE, None)
        least, greatest = self.cuCtxGetStreamPriorityRange()[1:]
        handle = next(self._ids)
        self.live_streams.add(handle)
        self.stream_info[handle] = (flags, min(least, max(greatest, priority)))  # clamped, as the driver does
        return (OK, real.CUstream(handle))

    def _stream_field(self, stream: Any, index: int):
        """(OK, field ``index`` of the stream's (flags, priority)); 0 for the special streams."""
        assert isinstance(stream, real.CUstream)
        if int(stream) in (0, int(real.CU_STREAM_LEGACY), int(real.CU_STREAM_PER_THREAD)):
            return (OK, 0)
        info = self.stream_info.get(int(stream))
        if info is None or int(stream) in self.destroyed_streams:
            return (ERR.CUDA_ERROR_INVALID_HANDLE, None)
        return (OK, info[index])

    def cuStreamGetPriority(self, stream: Any):
        return self._stream_field(stream, 1)

    def cuStreamGetFlags(self, stream: Any):
        return self._stream_field(stream, 0)

    def cuStreamDestroy(self, stream: Any):
        if not self._check_stream("cuStreamDestroy", stream):
            return (ERR.CUDA_ERROR_INVALID_HANDLE,)
        self._flush(int(stream))  # its pending work still completes
        self.live_streams.discard(int(stream))
        self.destroyed_streams.add(int(stream))
        return (OK,)

    def cuStreamSynchronize(self, stream: Any):
        assert isinstance(stream, real.CUstream)
        if int(stream) in self.capturing or (int(stream) in _LEGACY_HANDLES and self.capturing):
            self._invalidate_captures()
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        self._log("cuStreamSynchronize")
        if int(stream) in (0, int(real.CU_STREAM_LEGACY)):
            self._flush_blocking()
        self._flush(int(stream))
        return (OK,)

    def cuStreamQuery(self, stream: Any):
        if int(stream) in self.capturing:
            self._invalidate_captures()
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        return (ERR.CUDA_ERROR_NOT_READY,) if self.pending.get(int(stream)) else (OK,)

    def cuStreamWaitEvent(self, stream: Any, event: Any, flags: int):
        """A stream waiting on an event recorded during a capture joins that capture (a fork);
        a capturing stream waiting on an event a forked stream recorded joins it back."""
        assert isinstance(stream, real.CUstream) and isinstance(event, real.CUevent)
        assert isinstance(flags, int)
        if flags & int(real.CUevent_wait_flags.CU_EVENT_WAIT_EXTERNAL) and int(stream) not in self.capturing:
            return (ERR.CUDA_ERROR_INVALID_VALUE,)  # the flag is invalid outside a capture
        self._log(f"wait {int(stream)} {int(event)}")
        handle = int(stream)
        captured = self.capture_events.get(int(event))
        if captured is not None:
            graph, source = captured
            if handle not in self.capturing:
                if handle in _LEGACY_HANDLES:
                    self._invalidate_captures()
                    return (ERR.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,)
                self.capturing[handle] = self.graphs[graph]
                self.capture_graph[handle] = graph
                self.forked[handle] = False
            elif self.capture_graph[handle] != graph:  # would merge two captures
                self._invalidate_captures()
                return (ERR.CUDA_ERROR_STREAM_CAPTURE_MERGE,)
            elif source in self.forked and source != handle:
                self.forked[source] = True
        elif (
            handle in self.capturing and self.events.get(int(event), {}).get("token") is not None
            and not flags & int(real.CUevent_wait_flags.CU_EVENT_WAIT_EXTERNAL)
        ):
            # a capturing stream may wait only on events of its own capture (without
            # CU_EVENT_WAIT_EXTERNAL): the dependency would cross the capture's boundary
            self._invalidate_captures()
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_ISOLATION,)
        else:
            token = self.events.get(int(event), {}).get("token")
            if token is not None and not token["done"]:
                self._run(stream, lambda: self._flush_until(token))  # the wait: the record's work first
        return (OK,)

    def cuEventCreate(self, flags: int):
        assert isinstance(flags, int)
        handle = next(self._ids)
        self.events[handle] = {"flags": flags, "recorded": False, "captured": False, "time": 0}
        return (OK, real.CUevent(handle))

    def _event(self, event: Any) -> dict[str, Any] | None:
        assert isinstance(event, real.CUevent)
        return self.events.get(int(event))

    def _record(self, state: dict[str, Any], stream: int) -> Callable[[], None]:
        token = {"done": False, "stream": stream}

        def op() -> None:
            state.update(recorded=True, captured=False, time=next(self._clock))
            token["done"] = True

        if stream not in self.capturing:
            state["token"] = token  # what waits on and synchronizations of the event reach
        return op

    def cuEventRecord(self, event: Any, stream: Any):
        return self.cuEventRecordWithFlags(event, stream, 0)

    def cuEventRecordWithFlags(self, event: Any, stream: Any, flags: int):
        assert isinstance(stream, real.CUstream) and isinstance(flags, int)
        state = self._event(event)
        if state is None:
            return (ERR.CUDA_ERROR_INVALID_HANDLE,)
        external = bool(flags & int(real.CUevent_record_flags.CU_EVENT_RECORD_EXTERNAL))
        capturing = int(stream) in self.capturing
        if external and not capturing:
            return (ERR.CUDA_ERROR_INVALID_VALUE,)  # the flag is invalid outside a capture
        self._log(f"record {int(event)} {int(stream)}")
        handle = int(stream)
        if handle in _LEGACY_HANDLES and self.capturing:
            self._invalidate_captures()
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,)
        if capturing and not external:
            self.capture_events[int(event)] = (self.capture_graph[handle], handle)
        else:
            self.capture_events.pop(int(event), None)
        if capturing and not external:
            # an internal record only orders work inside the graph: the event itself is left
            # in a captured state no host call may use
            state["captured"] = True
            return (OK,)
        self._run(stream, self._record(state, int(stream)))
        return (OK,)

    def cuEventQuery(self, event: Any):
        state = self._event(event)
        if state is None or state["captured"]:
            return (ERR.CUDA_ERROR_INVALID_VALUE if state else ERR.CUDA_ERROR_INVALID_HANDLE,)
        token = state.get("token")
        return (ERR.CUDA_ERROR_NOT_READY,) if token is not None and not token["done"] else (OK,)

    def cuEventSynchronize(self, event: Any):
        state = self._event(event)
        if state is not None and state.get("token") is not None and not state["captured"]:
            self._flush_until(state["token"])
        return self.cuEventQuery(event)

    def cuEventElapsedTime(self, start: Any, end: Any):
        states = [self._event(start), self._event(end)]
        for state in states:
            if state is None or not state["recorded"]:
                return (ERR.CUDA_ERROR_INVALID_HANDLE, None)
            if state["flags"] & int(real.CUevent_flags.CU_EVENT_DISABLE_TIMING):
                return (ERR.CUDA_ERROR_INVALID_HANDLE, None)
            if state["captured"]:
                return (ERR.CUDA_ERROR_INVALID_VALUE, None)
        return (OK, 0.25 * (states[1]["time"] - states[0]["time"]))

    def cuEventDestroy(self, event: Any):
        if self.events.pop(int(event), None) is None:
            self.violations.append(f"cuEventDestroy of an unknown or destroyed event {int(event)}")
            return (ERR.CUDA_ERROR_INVALID_HANDLE,)
        return (OK,)

    # -- inter-process handles (one process plays both sides: opening a handle maps the same
    # allocation again, counted, until cuIpcCloseMemHandle) ------------------------------------
    @staticmethod
    def _handle(kind: Any, tag: bytes, value: int) -> Any:
        handle = kind()
        data = tag + struct.pack("<Q", value)
        ctypes.memmove(handle.getPtr(), data.ljust(64, b"\0"), 64)
        return handle

    @staticmethod
    def _handle_value(handle: Any, tag: bytes) -> int | None:
        data = ctypes.string_at(handle.getPtr(), 64)
        return struct.unpack_from("<Q", data, len(tag))[0] if data.startswith(tag) else None

    def cuIpcGetMemHandle(self, ptr: Any):
        assert isinstance(ptr, real.CUdeviceptr)
        entry = self.memory.get(int(ptr))
        if entry is None or entry[1] != "device" or int(ptr) in self.pool_memory:
            return (ERR.CUDA_ERROR_INVALID_VALUE, None)  # not the start of a cuMemAlloc allocation
        return (OK, self._handle(real.CUipcMemHandle, b"fakeipcm", int(ptr)))

    def cuIpcOpenMemHandle(self, handle: Any, flags: int):
        assert isinstance(handle, real.CUipcMemHandle) and isinstance(flags, int)
        ptr = self._handle_value(handle, b"fakeipcm")
        if ptr is None or ptr not in self.memory:
            return (ERR.CUDA_ERROR_INVALID_HANDLE, None)
        self.ipc_mapped[ptr] = self.ipc_mapped.get(ptr, 0) + 1
        return (OK, real.CUdeviceptr(ptr))

    def cuIpcCloseMemHandle(self, ptr: Any):
        assert isinstance(ptr, real.CUdeviceptr)
        if not self.ipc_mapped.get(int(ptr)):
            self.violations.append(f"cuIpcCloseMemHandle of memory not opened from a handle ({int(ptr):#x})")
            return (ERR.CUDA_ERROR_INVALID_VALUE,)
        self.ipc_mapped[int(ptr)] -= 1
        return (OK,)

    def cuIpcGetEventHandle(self, event: Any):
        state = self._event(event)
        if state is None or not state["flags"] & int(real.CUevent_flags.CU_EVENT_INTERPROCESS):
            return (ERR.CUDA_ERROR_INVALID_VALUE, None)
        return (OK, self._handle(real.CUipcEventHandle, b"fakeipce", int(event)))

    def cuIpcOpenEventHandle(self, handle: Any):
        assert isinstance(handle, real.CUipcEventHandle)
        event = self._handle_value(handle, b"fakeipce")
        if event is None or event not in self.events:
            return (ERR.CUDA_ERROR_INVALID_HANDLE, None)
        opened = next(self._ids)  # a handle of its own, sharing the event's state
        self.events[opened] = self.events[event]
        return (OK, real.CUevent(opened))

    # -- modules and launches -----------------------------------------------------------------
    @staticmethod
    def _is_ptx(text: str) -> bool:
        return ".version" in text and ".target sm_" in text

    def _new_module(self, entries: list[str]):
        handle = next(self._ids)
        self.modules[handle] = entries
        return (OK, real.CUmodule(handle))

    def cuModuleLoadDataEx(self, image: bytes, count: int, options: list, values: list):
        assert isinstance(image, bytes) and image.endswith(b"\0") and count == len(options) == len(values)
        self._log("cuModuleLoadDataEx")
        text = image[:-1].decode()
        log, log_size = values[0], values[1]
        # cuda-python converts the log buffer to char*: it must be bytes-like (an int raises there)
        assert isinstance(log, (bytes, bytearray)) and isinstance(log_size, int) and log_size <= len(log)
        if not self._is_ptx(text):
            message = b"ptxas fatal: not a PTX module\0"
            log[: len(message)] = message
            return (ERR.CUDA_ERROR_INVALID_PTX, None)
        return self._new_module(re.findall(r"\.entry (\w+)\(", text))

    def cuModuleLoadData(self, image: bytes):
        """A cubin of :meth:`cuLinkComplete` (checked: intact, for this GPU and driver) or PTX."""
        assert isinstance(image, bytes) and self.current_context is not None
        self._log("cuModuleLoadData")
        if not image.startswith(FAKE_CUBIN_MAGIC):
            if not image.endswith(b"\0") or not self._is_ptx(image[:-1].decode(errors="replace")):
                return (ERR.CUDA_ERROR_INVALID_IMAGE, None)
            return self._new_module(re.findall(r"\.entry (\w+)\(", image[:-1].decode()))
        parsed = parse_fake_cubin(image)
        if parsed is None:
            return (ERR.CUDA_ERROR_INVALID_IMAGE, None)
        arch, driver_version, entries = parsed
        if arch != self.arch or driver_version > self.driver_version:
            return (ERR.CUDA_ERROR_NO_BINARY_FOR_GPU, None)
        return self._new_module(entries)

    # the driver's JIT linker: PTX in, a cubin for the current context's GPU out
    def cuLinkCreate(self, count: int, options: list, values: list):
        assert isinstance(count, int) and count == len(options) == len(values)
        assert all(isinstance(o, real.CUjit_option) for o in options)
        if self.current_context is None:
            return (ERR.CUDA_ERROR_INVALID_CONTEXT, None)
        handle = next(self._ids)
        self.links[handle] = {"entries": [], "image": None}
        return (OK, real.CUlinkState(handle))

    def cuLinkAddData(self, state, kind, data, size, name, count, options, values):
        assert isinstance(state, real.CUlinkState) and isinstance(kind, real.CUjitInputType)
        assert isinstance(data, bytes) and size == len(data) and isinstance(name, bytes)
        assert count == len(options) == len(values)
        link = self.links.get(int(state))
        if link is None or link["image"] is not None:
            return (ERR.CUDA_ERROR_INVALID_HANDLE,)
        if kind != real.CUjitInputType.CU_JIT_INPUT_PTX or not data.endswith(b"\0"):
            return (ERR.CUDA_ERROR_INVALID_VALUE,)
        text = data[:-1].decode(errors="replace")
        if not self._is_ptx(text):
            return (ERR.CUDA_ERROR_INVALID_PTX,)
        link["entries"] += re.findall(r"\.entry (\w+)\(", text)
        return (OK,)

    def cuLinkComplete(self, state):
        """``(CUresult, address, size)``: the image lives in the link state until cuLinkDestroy."""
        assert isinstance(state, real.CUlinkState)
        self._log("cuLinkComplete")
        link = self.links.get(int(state))
        if link is None:
            return (ERR.CUDA_ERROR_INVALID_HANDLE, None, None)
        if not link["entries"]:
            return (ERR.CUDA_ERROR_INVALID_VALUE, None, None)
        blob = make_fake_cubin(self.arch, self.driver_version, link["entries"])
        link["image"] = ctypes.create_string_buffer(blob, len(blob))
        return (OK, ctypes.addressof(link["image"]), len(blob))

    def cuLinkDestroy(self, state):
        assert isinstance(state, real.CUlinkState)
        link = self.links.pop(int(state), None)
        if link is None:
            return (ERR.CUDA_ERROR_INVALID_HANDLE,)
        if link["image"] is not None:  # what a late reader of the image would find
            ctypes.memset(link["image"], 0, len(link["image"]))
        return (OK,)

    def cuModuleGetFunction(self, module: Any, name: bytes):
        symbol = name.decode()
        if symbol not in self.modules.get(int(module), []):
            return (ERR.CUDA_ERROR_NOT_FOUND, None)
        handle = next(self._ids)
        self.functions[handle] = symbol
        return (OK, real.CUfunction(handle))

    def cuModuleUnload(self, module: Any):
        if self._capture_unsafe("cuModuleUnload", violation=True):
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        self.modules.pop(int(module), None)
        return (OK,)

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        assert isinstance(f, real.CUfunction) and isinstance(stream, real.CUstream)
        assert int(stream) not in self.destroyed_streams, f"launch on destroyed stream {int(stream)}"
        assert params in (0, None) and isinstance(extra, int)
        assert 1 <= gx < 2**31 and gy == gz == 1 and 1 <= bx <= 1024 and by == bz == 1
        words = (ctypes.c_void_p * 5).from_address(extra)
        assert words[0] == 1 and words[2] == 2 and not words[4]  # BUFFER_POINTER, BUFFER_SIZE, END
        size = ctypes.c_size_t.from_address(words[3]).value
        args = ctypes.string_at(words[1], size)
        symbol = self.functions[int(f)]
        dims = [int.from_bytes(args[8 * k : 8 * k + 8], "little", signed=True) for k in range(4)]
        n = dims[0] * dims[1] * dims[2] * dims[3]
        # no block without work; a smaller grid is fine: the entry's grid-stride loop covers the
        # rest on a GPU (tests/cuda/grid_emulator.py runs the entry's code for a given grid)
        assert gx <= max(1, -(-n // bx)), "more blocks than the launch needs"
        self.launches.append({"symbol": symbol, "grid": gx, "block": bx, "n": n, "args": args})
        entry = self.resolve_entry(symbol)
        self._check_arguments(symbol, args)

        def op() -> None:
            with self.arena.opened():
                entry(args, 0, n)

        return self._run(stream, op)

    def _check_arguments(self, symbol: str, args: bytes) -> None:
        """Every array argument's data (and gradient) pointer is null or device-accessible memory:
        a live device allocation or pinned host memory, never pageable host memory (an adjoint
        argument's gradient field may hold the retain mark instead)."""
        params = self.entry_params(symbol) if self.entry_params is not None else None
        if params is None:
            return
        for index, (t, slot) in enumerate(zip(params, param_layout(params))):
            if not isinstance(t, ArrayType):
                continue
            shape = struct.unpack_from(f"<{t.ndim}i", args, slot.offset + 16)
            if 0 in shape:
                continue  # an empty array's pointer is never used
            for what, offset in (("data", 0), ("grad", 8)):
                ptr = int.from_bytes(args[slot.offset + offset : slot.offset + offset + 8], "little")
                if what == "grad" and ptr == ADJOINT_RETAIN_MARK:
                    continue  # an adjoint argument's mark (never dereferenced), not an address
                if ptr and self.allocation_of(ptr) is None:
                    where = "freed device memory" if self.arena.contains(ptr) else "host memory"
                    raise AssertionError(
                        f"kernel {symbol}: array argument {index} has its {what} pointer {ptr:#x} in "
                        f"{where}, which the device cannot access"
                    )

    # -- graphs -------------------------------------------------------------------------------
    def cuStreamBeginCapture(self, stream: Any, mode: Any):
        assert isinstance(mode, real.CUstreamCaptureMode)
        if int(stream) in self.capturing:
            return (ERR.CUDA_ERROR_ILLEGAL_STATE,)
        if int(stream) in _LEGACY_HANDLES:
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        graph = next(self._ids)
        self.graphs[graph] = self.capturing[int(stream)] = []
        self.capture_graph[int(stream)] = graph
        return (OK,)

    @staticmethod
    def _node(graph: int, index: int) -> real.CUgraphNode:
        """Handle of the ``index``-th operation of ``graph`` (operations form a chain)."""
        return real.CUgraphNode(graph * 1_000_000 + index + 1)

    def cuStreamIsCapturing(self, stream: Any):
        """(status,) like the driver's; the legacy stream while a blocking stream captures is
        ``CUDA_ERROR_STREAM_CAPTURE_IMPLICIT`` (the stand-in's streams are all blocking)."""
        assert isinstance(stream, real.CUstream)
        status = real.CUstreamCaptureStatus
        if int(stream) == int(real.CU_STREAM_LEGACY) and self.capturing:
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, status.CU_STREAM_CAPTURE_STATUS_NONE)
        if int(stream) in self.capturing:
            return (OK, status.CU_STREAM_CAPTURE_STATUS_ACTIVE)
        return (OK, status.CU_STREAM_CAPTURE_STATUS_NONE)

    def cuStreamGetCaptureInfo(self, stream: Any):
        """(status, id, graph, dependencies, edge data, count) as cuda-python 13 returns them."""
        assert isinstance(stream, real.CUstream)
        status = real.CUstreamCaptureStatus
        if int(stream) not in self.capturing:
            return (OK, status.CU_STREAM_CAPTURE_STATUS_NONE, real.cuuint64_t(0), None, [], [], 0)
        graph = self.capture_graph[int(stream)]
        ops = self.capturing[int(stream)]
        deps = [self._node(graph, len(ops) - 1)] if ops else []
        return (OK, status.CU_STREAM_CAPTURE_STATUS_ACTIVE, real.cuuint64_t(graph), real.CUgraph(graph), deps,
                [], len(deps))

    def cuStreamBeginCaptureToGraph(
        self, stream: Any, graph: Any, deps: Any, edge_data: Any, count: int, mode: Any
    ):
        assert isinstance(stream, real.CUstream) and isinstance(graph, real.CUgraph)
        assert isinstance(mode, real.CUstreamCaptureMode) and edge_data is None
        deps = list(deps or [])
        assert count == len(deps) and all(isinstance(d, real.CUgraphNode) for d in deps)
        if int(stream) in self.capturing or int(graph) not in self.graphs:
            return (ERR.CUDA_ERROR_ILLEGAL_STATE,)
        ops = self.graphs[int(graph)]
        # new work must follow the graph's last operation, or the replay order would be undefined
        expected = [self._node(int(graph), len(ops) - 1)] if ops else []
        follows = [int(d) for d in deps] == [int(d) for d in expected]
        assert follows, "the resumed capture does not follow the graph's last node"
        self.capturing[int(stream)] = ops
        self.capture_graph[int(stream)] = int(graph)
        self._log("cuStreamBeginCaptureToGraph")
        return (OK,)

    def cuStreamEndCapture(self, stream: Any):
        ops = self.capturing.pop(int(stream), None)
        if ops is None:
            return (ERR.CUDA_ERROR_ILLEGAL_STATE, None)
        graph = self.capture_graph.pop(int(stream))
        if int(stream) in self.forked:  # only the stream that began a capture can end it
            self.capturing[int(stream)], self.capture_graph[int(stream)] = ops, graph
            self._invalidate_captures()
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, None)
        unjoined = False
        for other in [h for h, g in self.capture_graph.items() if g == graph]:
            unjoined = unjoined or not self.forked.pop(other, True)
            self.capturing.pop(other, None)
            self.capture_graph.pop(other, None)
            self.invalidated.discard(other)
        for event in [e for e, (g, _) in self.capture_events.items() if g == graph]:
            del self.capture_events[event]
        if unjoined and int(stream) not in self.invalidated:
            self.graphs.pop(graph, None)
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_UNJOINED, None)
        if int(stream) in self.invalidated:
            self.invalidated.discard(int(stream))
            self.graphs.pop(graph, None)
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, None)
        return (OK, real.CUgraph(graph))

    def cuGraphInstantiate(self, graph: Any, flags: int):
        if int(graph) in self.capture_graph.values():
            return (ERR.CUDA_ERROR_ILLEGAL_STATE, None)  # still being captured into
        handle = next(self._ids)
        self.graph_execs[handle] = list(self.graphs[int(graph)])
        self.exec_info[handle] = [int(graph), int(flags), False]
        return (OK, real.CUgraphExec(handle))

    def cuGraphLaunch(self, graph_exec: Any, stream: Any):
        ops = self.graph_execs.get(int(graph_exec))
        if ops is None:
            return (ERR.CUDA_ERROR_INVALID_VALUE,)  # destroyed
        info = self.exec_info.get(int(graph_exec))
        if info is not None:
            graph, flags, launched = info
            auto_free = flags & int(
                real.CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH
            )
            live = [p for p in self.graph_alloc_ptrs.get(graph, []) if p in self.memory]
            if launched and live and not auto_free:
                # the allocations of the previous launch were not freed: the driver refuses
                return (ERR.CUDA_ERROR_INVALID_VALUE,)
            info[2] = True
        for op in ops:
            result = self._run(stream, op)
            if result[0] != OK:
                return result
        return (OK,)

    def cuGraphExecDestroy(self, graph_exec: Any):
        # it waits for the graph's launches to finish: the driver refuses it during a capture
        if self._capture_unsafe(f"cuGraphExecDestroy ({int(graph_exec)})", violation=True):
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        self.graph_execs.pop(int(graph_exec), None)
        return (OK,)

    def cuGraphDestroy(self, graph: Any):
        if self._capture_unsafe(f"cuGraphDestroy ({int(graph)})", violation=True):
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        return (OK,)
