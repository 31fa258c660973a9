"""Graph capture: record launches and memory operations once, replay them with little overhead.

``wp.capture_begin()`` starts recording the work the calling thread issues to a device; kernel
launches, ``wp.copy``, ``array.zero_()`` and ``array.fill_()`` are then recorded instead of run.
``wp.capture_end()`` returns a :class:`Graph`, and ``wp.capture_launch(graph)`` runs the recorded
work again, in order, with the arguments it was recorded with (the same arrays, the same scalar
values). Everything else (Python code, NumPy reads and writes of array memory) runs immediately
and is not part of the graph. The device's target does the recording
(:meth:`warp.targets.base.Target.capture_begin`): on the CPU a list of host commands, on CUDA
a CUDA graph.
"""

from __future__ import annotations

from typing import Any

from warp.runtime import devices
from warp.targets import get_target
from warp import modules


class Graph:
    """Work recorded by :func:`capture_begin` ... :func:`capture_end`, replayed by :func:`capture_launch`."""

    def __init__(self, device: Any, commands: Any) -> None:
        self.device = device
        #: what the target recorded (CPU: a :class:`~warp.targets.base.CommandList`)
        self.commands = commands

    def __len__(self) -> int:
        """Number of recorded operations (where the target can tell; 0 for CUDA graphs)."""
        return len(getattr(self.commands, "commands", ()))

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<warp Graph on '{self.device}' with {len(self)} operations>"


def _capture_device(device: Any, stream: Any) -> Any:
    """The device a capture call is about: ``stream``'s device when a stream is given."""
    if stream is not None and getattr(stream, "device", None) is not None:
        if device is not None and devices.get_device(device) != stream.device:
            raise RuntimeError(f"stream of device '{stream.device}' does not belong to device '{device}'")
        return devices.get_device(stream.device)
    return devices.get_device(device)


def capture_begin(
    device: Any = None, stream: Any = None, force_module_load: bool | None = None, external: bool = False,
    apic: bool = False,
) -> None:
    """Start recording the launches and memory operations the calling thread issues to ``device``.

    ``force_module_load=True`` compiles/loads every kernel module first (kernels can also load
    during a capture). ``external=True`` (a capture started outside Warp on a CUDA stream) is for
    CUDA devices only. ``apic`` is accepted for compatibility; graphs cannot be saved to files.
    """
    dev = _capture_device(device, stream)
    if external and dev.is_cpu:
        raise RuntimeError("capture_begin(external=True) needs a CUDA stream captured outside Warp; "
                           "the CPU has no external captures")
    if force_module_load:
        modules.force_load(device=dev)
    get_target(dev).capture_begin(dev, stream)


def capture_end(device: Any = None, stream: Any = None) -> Graph:
    """Stop recording on ``device`` and return the recorded :class:`Graph`."""
    dev = _capture_device(device, stream)
    return Graph(dev, get_target(dev).capture_end(dev, stream))


def capture_pause(device: Any = None, stream: Any = None) -> Graph:
    """Stop recording for now; returns the partial graph to hand to :func:`capture_resume`."""
    dev = _capture_device(device, stream)
    return Graph(dev, get_target(dev).capture_pause(dev, stream))


def capture_resume(graph: Graph, device: Any = None, stream: Any = None) -> None:
    """Continue recording into ``graph`` (from :func:`capture_pause`)."""
    if not isinstance(graph, Graph):
        raise TypeError(f"capture_resume expects a Graph from capture_pause, got {type(graph).__name__}")
    dev = graph.device if device is None and stream is None else _capture_device(device, stream)
    if dev != graph.device:
        raise ValueError(f"capture_resume: the graph was captured on '{graph.device}', not on '{dev}'")
    get_target(dev).capture_resume(dev, graph.commands, stream)


def capture_launch(graph: Graph, stream: Any = None) -> None:
    """Run the work recorded in ``graph`` (inside another capture: record it there as one step)."""
    if not isinstance(graph, Graph):
        raise TypeError(f"capture_launch expects a Graph from capture_end, got {type(graph).__name__}")
    if stream is not None and getattr(stream, "device", graph.device) != graph.device:
        raise RuntimeError(f"graph of device '{graph.device}' cannot run on a stream of '{stream.device}'")
    get_target(graph.device).capture_replay(graph.commands, stream)


def is_capturing(device: Any = None, stream: Any = None) -> bool:
    """Whether the calling thread's work on ``device`` is being recorded."""
    dev = _capture_device(device, stream)
    return get_target(dev).is_capturing(dev, stream)


class ScopedCapture:
    """``with wp.ScopedCapture() as capture: ...`` records the block; ``capture.graph`` replays it.

    When the block raises, the capture is ended and discarded (``graph`` stays None).
    """

    def __init__(
        self, device: Any = None, stream: Any = None, force_module_load: bool | None = None,
        external: bool = False, apic: bool = False,
    ) -> None:
        self.device = device
        self.stream = stream
        self.force_module_load = force_module_load
        self.external = external
        self.apic = apic
        self.graph: Graph | None = None
        #: whether the capture is in progress
        self.active = False

    def __enter__(self) -> ScopedCapture:
        capture_begin(self.device, self.stream, self.force_module_load, self.external, self.apic)
        self.active = True
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.active = False
        try:
            graph = capture_end(self.device, self.stream)
        except Exception:
            if exc_type is None:
                raise
            return  # the block's own exception is the one to report
        if exc_type is None:
            self.graph = graph
