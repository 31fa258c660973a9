"""The stand-in driver's state, declared once, and what every driver area of it shares.

:class:`FakeDriverBase` holds every record of the stand-in (allocations, streams, events,
captures, graphs, modules, links) as typed attributes, and the machinery the areas' mixins
(``fake_driver_*`` modules) run their calls through: issuing work on a stream (at once, recorded
into a capture, or kept pending in deferred mode), invalidating captures, and the lookups several
areas need (allocations, pools, events, streams). :class:`fake_driver.FakeDriver` assembles the
mixins.
"""

from __future__ import annotations

import ctypes
import itertools
from typing import Any, Callable

from cuda.bindings import driver as real
from fake_memory import DeviceArena

OK = real.CUresult.CUDA_SUCCESS
ERR = real.CUresult
#: the legacy default stream: handle 0 (NULL) or ``CU_STREAM_LEGACY``
LEGACY_HANDLES = (0, int(real.CU_STREAM_LEGACY))


class FakeDriverBase:
    """The stand-in's state and shared machinery; the driver calls live in the area mixins."""

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
        if handle in LEGACY_HANDLES and self.capturing:
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

    # -- lookups several driver areas share ---------------------------------------------------
    def _pinned(self, address: int) -> bool:
        found = self.allocation_of(address)
        return found is not None and found[2] == "host"

    def allocation_of(self, address: int) -> tuple[int, int, str] | None:
        """(base, size, kind) of the live allocation holding ``address``, or None."""
        for base, (size, kind) in self.memory.items():
            if base <= address < base + size:
                return base, size, kind
        return None

    def _check_stream(self, call: str, stream: Any) -> bool:
        """False (and a violation recorded) for a destroyed stream: the driver would crash."""
        if int(stream) in self.destroyed_streams:
            self.violations.append(f"{call} on destroyed stream {int(stream)}")
            return False
        return True

    def _pool(self, pool: Any) -> dict[str, int]:
        return self.pool_attrs.setdefault(
            int(pool),
            {
                "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD": 0,
                "CU_MEMPOOL_ATTR_USED_MEM_CURRENT": 0,
                "CU_MEMPOOL_ATTR_USED_MEM_HIGH": 0,
            },
        )

    def _device_of_context(self) -> int:
        assert self.current_context is not None, "no current context"
        return self.current_context - 0x100

    def _event(self, event: Any) -> dict[str, Any] | None:
        assert isinstance(event, real.CUevent)
        return self.events.get(int(event))
