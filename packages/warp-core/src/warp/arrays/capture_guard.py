"""Array operations that graph capture cannot record.

Contiguous copies, fills and zeroing go through the target's memory commands, which a capture
records and a replay repeats. The host-side paths (non-contiguous arrays, converting copies)
would run once, while capturing, and never on replay: they are refused instead, with
``NotImplementedError`` as in NVIDIA Warp. Reading device memory on the host while capturing is
refused too (``RuntimeError``): the copy is only recorded, so the host would read whatever its
buffer held.
"""

from __future__ import annotations

from typing import Any

from warp.targets import get_target


def is_capturing(device: Any) -> bool:
    """Whether a graph capture is active on ``device`` in this thread."""
    return bool(get_target(device).is_capturing(device))


def refuse_while_capturing(device: Any, what: str) -> None:
    """Raise ``NotImplementedError`` if a graph capture is active on ``device`` in this thread."""
    if get_target(device).is_capturing(device):
        raise NotImplementedError(
            f"{what} cannot be recorded by graph capture on device '{device}' (it would run only "
            "while capturing, not on replay); make the arrays contiguous (.contiguous()) or do it "
            "outside the capture"
        )


def refuse_host_read_while_capturing(device: Any, what: str) -> None:
    """Raise ``RuntimeError`` if a graph capture is active on ``device`` in this thread: ``what``
    reads device memory on the host, and a capture only records the copy (nothing is copied
    until the graph is launched)."""
    if get_target(device).is_capturing(device):
        raise RuntimeError(
            f"{what} reads device memory on the host, which cannot be done while a graph capture is "
            f"active on device '{device}' (the copy would only be recorded, and the host would read "
            "stale data); read it after the capture (after wp.capture_launch)"
        )
