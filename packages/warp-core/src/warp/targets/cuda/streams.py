"""CUDA streams and events: ``wp.Stream``, ``wp.Event`` and the current stream of each device.

Every CUDA device has a current stream (created on first use, :func:`current_stream`) on which
launches, copies and allocations are issued when no stream is named. The Python-scope functions
that take device arguments (``wp.get_stream``, ``wp.set_stream``, ``wp.ScopedStream``, ...) are
in :mod:`warp.runtime.streams`; cross-stream ordering uses events (``wait_event``/
``wait_stream``), as in CUDA. A device argument given to ``Stream``/``Event`` is resolved with
the runtime's device table (:func:`warp.targets.registry.resolve_device`).

Streams of other libraries are named by their raw ``CUstream`` handle, with the driver's special
values :data:`LEGACY_STREAM` (1) and :data:`PER_THREAD_STREAM` (2) for the default streams of
the current context (the conventions of DLPack and the CUDA array interface):
:func:`make_handle_wait` orders such a stream after a warp stream (an export), and
:func:`wait_handle` the other way round (an import).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from warp.targets.cuda import driver as drv
from warp.targets.cuda import ipc as cuda_ipc
from warp.targets.cuda.context import make_current
from warp.targets.registry import resolve_device

#: ``CU_STREAM_LEGACY``: the legacy default stream of the current context
LEGACY_STREAM = 1
#: ``CU_STREAM_PER_THREAD``: the per-thread default stream of the current context
PER_THREAD_STREAM = 2

def handle_is_capturing(handle: int, ordinal: int) -> bool:
    """Whether the stream with raw handle ``handle`` (of device ``ordinal``; 1 and 2 name its
    default streams) is capturing a CUDA graph. The legacy stream, which cannot capture, reads
    False even while a blocking stream captures (the driver's ``CUDA_ERROR_STREAM_CAPTURE_IMPLICIT``)."""
    make_current(ordinal)
    cu = drv.driver()
    err, status = cu.cuStreamIsCapturing(cu.CUstream(int(handle)))
    if int(err) == int(cu.CUresult.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT):
        return False
    drv.check((err,), "cuStreamIsCapturing")
    return int(status) != int(cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE)


def cuda_device(device: Any) -> Any:
    """The CUDA device named by a device argument (None: the current default device); raises
    ``RuntimeError`` for any other device."""
    return require_cuda(resolve_device(device))


def require_cuda(dev: Any) -> Any:
    """``dev`` (a device) if it is a CUDA device, else ``RuntimeError``."""
    if not dev.is_cuda:
        raise RuntimeError(
            f"device '{dev}' is not a CUDA device: streams and events exist only on CUDA devices"
        )
    return dev


def _destroy(call: str, handle: Any, ordinal: int) -> None:
    try:  # at interpreter exit the driver may be gone already
        make_current(ordinal)
        getattr(drv.driver(), call)(handle)
    except Exception:
        pass


class Event:
    """A CUDA event: a marker in a stream that other streams or the host can wait for."""

    def __init__(self, device: Any = None, enable_timing: bool = False, interprocess: bool = False) -> None:
        self.device = cuda_device(device)
        self.enable_timing = bool(enable_timing)
        self.interprocess = bool(interprocess)
        cu = drv.driver()
        flags = 0 if enable_timing else int(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        if interprocess:
            if enable_timing:
                raise ValueError("interprocess events cannot have timing enabled")
            flags |= int(cu.CUevent_flags.CU_EVENT_INTERPROCESS)
        make_current(self.device.ordinal)
        self.handle = drv.check(cu.cuEventCreate(flags), "cuEventCreate")

    def __del__(self) -> None:
        handle = getattr(self, "handle", None)  # None: __init__ failed or never ran
        if handle is not None:
            self.handle = None
            _destroy("cuEventDestroy", handle, self.device.ordinal)

    @property
    def cuda_event(self) -> int:
        """The ``CUevent`` handle as an integer."""
        return int(self.handle)

    @property
    def is_complete(self) -> bool:
        """Whether all work before the event's last record has finished."""
        err = drv.driver().cuEventQuery(self.handle)[0]
        if int(err) == int(drv.driver().CUresult.CUDA_ERROR_NOT_READY):
            return False
        drv.check((err,), "cuEventQuery")
        return True

    def synchronize(self) -> None:
        """Block the host until the event completes (not allowed while its device captures a graph)."""
        refuse_sync_while_capturing(self.device, "event")
        drv.check(drv.driver().cuEventSynchronize(self.handle), "cuEventSynchronize")

    def ipc_handle(self) -> bytes:
        """The 64-byte handle another process opens with ``wp.event_from_ipc_handle`` (the
        event must have been created with ``interprocess=True``)."""
        if not self.interprocess:
            raise RuntimeError(
                "Event.ipc_handle: the event was not created with interprocess=True, so other "
                "processes cannot use it (create it with wp.Event(device, interprocess=True))"
            )
        return cuda_ipc.event_handle(self.device.ordinal, self.handle)

    def __repr__(self) -> str:
        return f"Event(device='{self.device}', cuda_event={self.cuda_event:#x})"


def event_from_handle(device: Any, handle: Any, *, interprocess: bool = False) -> Event:
    """An :class:`Event` owning the ``CUevent`` ``handle`` of CUDA device ``device`` made
    elsewhere (an event opened from an IPC handle): destroyed with the object."""
    event = Event.__new__(Event)
    event.device = require_cuda(device)
    event.enable_timing = False
    event.interprocess = interprocess
    event.handle = handle
    return event


def refuse_sync_while_capturing(device: Any, what: str) -> None:
    """``RuntimeError`` if a graph capture runs on ``device``: synchronizing a capturing stream,
    event or context is illegal and would make the driver invalidate the capture."""
    if device.is_capturing:
        raise RuntimeError(
            f"Cannot synchronize {what} while graph capture is active on device '{device}' "
            "(synchronize before wp.capture_begin or after wp.capture_end)"
        )


#: every live Stream object (for joining the streams a graph capture forked, at its end)
_streams: weakref.WeakSet = weakref.WeakSet()


def device_streams(ordinal: int) -> list["Stream"]:
    """The live :class:`Stream` objects of CUDA device ``ordinal``."""
    return [
        s for s in list(_streams) if s.device.ordinal == ordinal and getattr(s, "handle", None) is not None
    ]


class Stream:
    """A CUDA stream: work issued to it runs in order; different streams may overlap."""

    def __init__(self, device: Any = None, priority: int = 0, *, cuda_stream: int | None = None) -> None:
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise TypeError(f"Stream priority must be an integer, got {type(priority).__name__} {priority!r}")
        self.device = cuda_device(device)
        cu = drv.driver()
        make_current(self.device.ordinal)
        self._sync_event: Event | None = None
        if cuda_stream is not None:  # wrap a stream made elsewhere (not owned)
            self.handle = cu.CUstream(int(cuda_stream))
            self.owned = False
            #: whether the stream synchronizes with the legacy default stream (None: not asked yet)
            self._is_blocking: bool | None = None
            _streams.add(self)
            return
        # NVIDIA Warp's priorities: -1 (high) or 0 (low, the default); the driver clamps to
        # what the device supports and :attr:`priority` reports the effective value
        priority = min(0, max(-1, priority))
        flags = int(cu.CUstream_flags.CU_STREAM_DEFAULT)  # blocking: ordered with the legacy stream
        if priority:
            self.handle = drv.check(
                cu.cuStreamCreateWithPriority(flags, priority), "cuStreamCreateWithPriority"
            )
        else:
            self.handle = drv.check(cu.cuStreamCreate(flags), "cuStreamCreate")
        self.owned = True
        self._is_blocking = True
        _streams.add(self)

    def __del__(self) -> None:
        if getattr(self, "owned", False) and getattr(self, "handle", None) is not None:
            handle, self.handle = self.handle, None
            _destroy("cuStreamDestroy", handle, self.device.ordinal)

    @property
    def priority(self) -> int:
        """The stream's effective priority (lower is higher; 0 is the default)."""
        make_current(self.device.ordinal)
        return int(drv.check(drv.driver().cuStreamGetPriority(self.handle), "cuStreamGetPriority"))

    @property
    def is_blocking(self) -> bool:
        """Whether the stream is ordered with the legacy default stream (streams warp creates are;
        a wrapped stream is asked once, ``cuStreamGetFlags``)."""
        if self._is_blocking is None:
            cu = drv.driver()
            handle = int(self.handle)
            if handle in (0, LEGACY_STREAM):
                self._is_blocking = True
            else:
                make_current(self.device.ordinal)
                flags = int(drv.check(cu.cuStreamGetFlags(self.handle), "cuStreamGetFlags"))
                self._is_blocking = not flags & int(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)
        return self._is_blocking

    @property
    def cuda_stream(self) -> int:
        """The ``CUstream`` handle as an integer."""
        return int(self.handle)

    @property
    def is_capturing(self) -> bool:
        """Whether the stream is capturing a CUDA graph (warp's capture or another library's)."""
        return handle_is_capturing(self.cuda_stream, self.device.ordinal)

    @property
    def is_complete(self) -> bool:
        """Whether all work issued to the stream has finished."""
        err = drv.driver().cuStreamQuery(self.handle)[0]
        if int(err) == int(drv.driver().CUresult.CUDA_ERROR_NOT_READY):
            return False
        drv.check((err,), "cuStreamQuery")
        return True

    def record_event(self, event: Event | None = None, external: bool = False) -> Event:
        """Record ``event`` (a new one if None) at the current end of this stream.

        While the stream captures a graph, ``external=True`` (implied for timing events) records
        it as a node of the graph, so that replays record it (for other graphs or streams to
        wait on, or to time); otherwise it only orders work within the capture.
        """
        if event is None:
            event = Event(self.device)
        elif event.device != self.device:
            raise RuntimeError(
                f"event of device '{event.device}' cannot be recorded on a stream of '{self.device}'"
            )
        cu = drv.driver()
        if (external or event.enable_timing) and self.is_capturing:
            flags = int(cu.CUevent_record_flags.CU_EVENT_RECORD_EXTERNAL)
            drv.check(cu.cuEventRecordWithFlags(event.handle, self.handle, flags), "cuEventRecordWithFlags")
        else:
            drv.check(cu.cuEventRecord(event.handle, self.handle), "cuEventRecord")
        return event

    def wait_event(self, event: Event, external: bool = False) -> None:
        """Make later work on this stream wait until ``event`` completes (``external=True``
        during a capture: the graph waits on the event's record made outside it)."""
        cu = drv.driver()
        flags = int(cu.CUevent_wait_flags.CU_EVENT_WAIT_EXTERNAL) if external and self.is_capturing else 0
        drv.check(cu.cuStreamWaitEvent(self.handle, event.handle, flags), "cuStreamWaitEvent")

    def wait_stream(self, other: Stream, event: Event | None = None) -> None:
        """Make later work on this stream wait for the work issued to ``other`` so far."""
        if event is None:
            event = other._own_event()
        other.record_event(event)
        self.wait_event(event)

    def _own_event(self) -> Event:
        """The event this stream reuses to mark its end for others (a later record on the same
        stream covers at least the work an earlier one did, so sharing it is safe)."""
        if self._sync_event is None:
            self._sync_event = Event(self.device)
        return self._sync_event

    def synchronize(self) -> None:
        """Block the host until all work issued to the stream has finished (not allowed while
        its device captures a graph)."""
        refuse_sync_while_capturing(self.device, "stream")
        drv.check(drv.driver().cuStreamSynchronize(self.handle), "cuStreamSynchronize")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and int(self.handle) == int(other.handle)

    def __hash__(self) -> int:
        return hash(int(self.handle))

    def __repr__(self) -> str:
        return f"Stream(device='{self.device}', cuda_stream={self.cuda_stream:#x})"


_lock = threading.Lock()
_current: dict[int, Stream] = {}


def make_handle_wait(stream: Stream, handle: int) -> bool:
    """Make the stream with raw handle ``handle`` wait for the work issued to ``stream`` so far.

    ``handle`` is a ``CUstream`` of ``stream``'s device or :data:`LEGACY_STREAM` /
    :data:`PER_THREAD_STREAM` (that device's default streams). Records ``stream``'s event and
    issues ``cuStreamWaitEvent`` on ``handle``; nothing when ``handle`` is ``stream`` itself.
    Returns whether a wait was issued.
    """
    if int(handle) == stream.cuda_stream:
        return False
    make_current(stream.device.ordinal)  # the special handles name the current context's streams
    event = stream.record_event(stream._own_event())
    cu = drv.driver()
    drv.check(cu.cuStreamWaitEvent(cu.CUstream(int(handle)), event.handle, 0), "cuStreamWaitEvent")
    return True


def wait_handle(stream: Stream, handle: int) -> bool:
    """Make later work on ``stream`` wait for the work issued so far to the stream ``handle``.

    ``handle`` is as for :func:`make_handle_wait`. A fresh event is recorded on ``handle`` (one
    per call: a shared one could be re-recorded on another thread's stream before ``stream``
    waits). Returns whether a wait was issued.
    """
    if int(handle) == stream.cuda_stream:
        return False
    make_current(stream.device.ordinal)
    event = Event(stream.device)
    cu = drv.driver()
    drv.check(cu.cuEventRecord(event.handle, cu.CUstream(int(handle))), "cuEventRecord")
    stream.wait_event(event)
    return True


_null: dict[int, Stream] = {}


def null_stream(device: Any) -> Stream:
    """The legacy default stream of the CUDA device ``device`` (a device): work issued to it
    starts after, and finishes before, the work of every blocking stream of the device (all
    streams warp creates), so a copy to the host on it sees all of that work."""
    stream = _null.get(require_cuda(device).ordinal)
    if stream is None:
        stream = _null.setdefault(device.ordinal, Stream(device, cuda_stream=LEGACY_STREAM))
    return stream


def current_stream(device: Any) -> Stream:
    """The current stream of the CUDA device ``device`` (a device, not a device argument),
    created on first use."""
    stream = _current.get(require_cuda(device).ordinal)
    if stream is None:
        with _lock:
            stream = _current.get(device.ordinal)
            if stream is None:
                stream = _current[device.ordinal] = Stream(device)
    return stream


def set_current_stream(stream: Stream, device: Any = None, sync: bool = False) -> None:
    """Make ``stream`` the current stream of its device (``device``, a device, must be that one
    when given); ``sync`` first orders it after the old one."""
    if device is not None and require_cuda(device) != stream.device:
        raise RuntimeError(f"stream of device '{stream.device}' cannot be made current on '{device}'")
    if sync:
        stream.wait_stream(current_stream(stream.device))
    _current[stream.device.ordinal] = stream
