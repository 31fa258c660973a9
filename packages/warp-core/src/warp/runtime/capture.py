"""Graph capture: ``wp.capture_begin``/``capture_end``/``capture_launch`` and ``wp.ScopedCapture``.

Work issued to a device between ``capture_begin`` and ``capture_end`` is recorded by the device's
backend instead of run (on CUDA: stream capture into a CUDA graph); ``capture_launch`` replays the
recording. The device's backend decides what can be captured (:meth:`Backend.capture_begin`).
"""

from __future__ import annotations

from typing import Any

from warp.runtime.devices import get_device


class Graph:
    """A captured sequence of work on one device, replayed with ``wp.capture_launch``."""

    def __init__(self, device: Any, commands: Any) -> None:
        self.device = device
        #: the backend's recording (a ``CommandList``; a ``CudaGraph`` on CUDA devices)
        self.commands = commands

    def __repr__(self) -> str:
        return f"Graph(device='{self.device}')"


def _device_of(device: Any, stream: Any) -> Any:
    if stream is not None:
        if device is not None and get_device(device) != stream.device:
            raise RuntimeError(f"stream of device '{stream.device}' does not belong to device '{device}'")
        return stream.device
    return get_device(device)


def capture_begin(
    device: Any = None, stream: Any = None, force_module_load: Any = None, external: bool = False
) -> None:
    """Start recording the work issued to ``device`` (or ``stream``) into a graph.

    ``force_module_load`` and ``external`` are accepted for NVIDIA Warp compatibility: kernels are
    loaded on their first launch, which may happen during a capture.
    """
    dev = _device_of(device, stream)
    dev.backend.capture_begin(dev, stream)


def capture_end(device: Any = None, stream: Any = None) -> Graph:
    """Stop recording on ``device`` (or ``stream``) and return the :class:`Graph`."""
    dev = _device_of(device, stream)
    return Graph(dev, dev.backend.capture_end(dev, stream))


def capture_launch(graph: Graph, stream: Any = None) -> None:
    """Run a captured graph again (on ``stream``, or the device's current stream)."""
    if not isinstance(graph, Graph):
        raise TypeError(f"capture_launch expects a graph from wp.capture_end, got {type(graph).__name__}")
    if stream is not None and stream.device != graph.device:
        raise RuntimeError(f"graph of device '{graph.device}' cannot run on a stream of '{stream.device}'")
    graph.device.backend.capture_replay(graph.commands, stream)


def is_capturing(device: Any = None, stream: Any = None) -> bool:
    """Whether work issued to ``device`` is being recorded."""
    dev = _device_of(device, stream)
    return dev.backend.is_capturing(dev, stream)


class ScopedCapture:
    """``with wp.ScopedCapture() as capture: ...`` records the block; ``capture.graph`` replays it."""

    def __init__(
        self, device: Any = None, stream: Any = None, force_module_load: Any = None, external: bool = False
    ) -> None:
        self.device, self.stream = device, stream
        self.graph: Graph | None = None
        self.active = False

    def __enter__(self) -> ScopedCapture:
        capture_begin(self.device, self.stream)
        self.active = True
        return self

    def __exit__(self, exc_type: Any, *exc: object) -> None:
        graph = capture_end(self.device, self.stream)
        self.active = False
        if exc_type is None:
            self.graph = graph
