"""The Python-scope stream API: ``wp.get_stream``, ``wp.set_stream``, ``wp.ScopedStream`` and the
event helpers that act on the current stream of a device.

These take device arguments (``"cuda:1"``, a ``Device``, None for the default device), which the
runtime's device table resolves; the streams, events and each device's current stream are
:mod:`warp.targets.cuda.streams`.
"""

from __future__ import annotations

from typing import Any

from warp.runtime.devices import Devicelike, ScopedDevice, get_device
from warp.targets.cuda import driver as drv
from warp.targets.cuda.streams import (
    Event,
    Stream,
    current_stream,
    require_cuda,
    set_current_stream,
)


def get_stream(device: Devicelike = None) -> Stream:
    """The current stream of a CUDA device (the default device if None)."""
    return current_stream(get_device(device))


def set_stream(stream: Stream, device: Devicelike = None, sync: bool = False) -> None:
    """Make ``stream`` the current stream of its device; ``sync`` first orders it after the old one."""
    if device is not None and require_cuda(get_device(device)) != stream.device:
        raise RuntimeError(f"stream of device '{stream.device}' cannot be made current on '{device}'")
    set_current_stream(stream, sync=sync)


def wait_event(event: Event, external: bool = False) -> None:
    """Make the current stream of the default CUDA device wait for ``event`` (see
    :meth:`Stream.wait_event` for ``external``)."""
    get_stream().wait_event(event, external)


def record_event(event: Event | None = None, external: bool = False) -> Event:
    """Record ``event`` (a new one if None) on the current stream of the default CUDA device
    (see :meth:`Stream.record_event` for ``external``)."""
    return get_stream().record_event(event, external)


def wait_stream(other: Stream, event: Event | None = None) -> None:
    """Make the current stream of the default CUDA device wait for the work issued to ``other``."""
    get_stream().wait_stream(other, event)


def synchronize_stream(stream: Stream | Devicelike = None) -> None:
    """Wait until all work on ``stream`` (or the current stream of a device) has finished; a
    no-op for the CPU, whose work is done on return."""
    if not isinstance(stream, Stream):
        device = get_device(stream)
        if device.is_cpu:
            return
        stream = get_stream(device)
    stream.synchronize()


def synchronize_event(event: Event) -> None:
    """Wait until ``event`` has completed."""
    event.synchronize()


def get_event_elapsed_time(start: Event, end: Event, synchronize: bool = True) -> float:
    """Milliseconds between two recorded events (both created with ``enable_timing=True``)."""
    if synchronize:
        end.synchronize()
    return float(drv.check(drv.driver().cuEventElapsedTime(start.handle, end.handle), "cuEventElapsedTime"))


class ScopedStream:
    """``with wp.ScopedStream(s):`` makes ``s`` the current stream (and its device the default)."""

    def __init__(self, stream: Stream | None, sync_enter: bool = True, sync_exit: bool = False) -> None:
        self.stream = stream
        self.sync_enter, self.sync_exit = sync_enter, sync_exit
        self._saved: Stream | None = None
        self._device_scope: ScopedDevice | None = None

    def __enter__(self) -> Stream | None:
        if self.stream is None:
            return None
        self._device_scope = ScopedDevice(self.stream.device)
        self._device_scope.__enter__()
        self._saved = current_stream(self.stream.device)
        set_current_stream(self.stream, sync=self.sync_enter)
        return self.stream

    def __exit__(self, *exc: Any) -> None:
        if self.stream is None:
            return
        assert self._saved is not None and self._device_scope is not None
        set_current_stream(self._saved, sync=self.sync_exit)
        self._device_scope.__exit__(*exc)


__all__ = [
    "Event",
    "ScopedStream",
    "Stream",
    "get_event_elapsed_time",
    "get_stream",
    "record_event",
    "set_stream",
    "synchronize_event",
    "synchronize_stream",
    "wait_event",
    "wait_stream",
]
