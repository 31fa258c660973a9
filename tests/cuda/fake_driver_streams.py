"""The stand-in driver's streams and events.

Streams made by ``cuStreamCreate*`` keep their flags and (clamped) priority; a destroyed stream
is remembered so later use of it is caught. Events record a logical clock (``cuEventElapsedTime``
reports 0.25 ms a tick); waits and records take part in stream captures: waiting on an event
recorded during a capture forks the waiting stream into it, and waiting back joins it.
"""

from __future__ import annotations

from typing import Any, Callable

from cuda.bindings import driver as real
from fake_driver_base import ERR, LEGACY_HANDLES, OK, FakeDriverBase


class StreamsMixin(FakeDriverBase):
    """``cuStream*`` (but capture), ``cuEvent*`` and the context's stream priority range."""

    def cuCtxGetStreamPriorityRange(self):
        """(least, greatest): an H100's range, 0 (default) to -5 (highest)."""
        return (OK, 0, -5)

    # -- streams ------------------------------------------------------------------------------
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
        if int(stream) in self.capturing or (int(stream) in LEGACY_HANDLES and self.capturing):
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
                if handle in LEGACY_HANDLES:
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
            handle in self.capturing
            and self.events.get(int(event), {}).get("token") is not None
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

    # -- events -------------------------------------------------------------------------------
    def cuEventCreate(self, flags: int):
        assert isinstance(flags, int)
        handle = next(self._ids)
        self.events[handle] = {"flags": flags, "recorded": False, "captured": False, "time": 0}
        return (OK, real.CUevent(handle))

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
        if handle in LEGACY_HANDLES and self.capturing:
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
