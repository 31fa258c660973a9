"""The stand-in driver's stream capture and graphs.

A capture records the operations issued on the capturing stream (and on streams forked into it)
as the graph's chain of operations; ``cuGraphLaunch`` replays an instantiated graph's snapshot of
them on a stream. A capture can be paused and resumed into the same graph
(``cuStreamBeginCaptureToGraph``, checked to follow the graph's last node). Ending a capture
fails when a forked stream was not joined back or a forbidden call invalidated it.
"""

from __future__ import annotations

from typing import Any

from cuda.bindings import driver as real
from fake_driver_base import ERR, LEGACY_HANDLES, OK, FakeDriverBase


class GraphsMixin(FakeDriverBase):
    """Stream capture (``cuStreamBeginCapture*``, ``cuStreamEndCapture``, capture status) and
    ``cuGraph*``."""

    def cuStreamBeginCapture(self, stream: Any, mode: Any):
        assert isinstance(mode, real.CUstreamCaptureMode)
        if int(stream) in self.capturing:
            return (ERR.CUDA_ERROR_ILLEGAL_STATE,)
        if int(stream) in LEGACY_HANDLES:
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
        return (
            OK,
            status.CU_STREAM_CAPTURE_STATUS_ACTIVE,
            real.cuuint64_t(graph),
            real.CUgraph(graph),
            deps,
            [],
            len(deps),
        )

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
