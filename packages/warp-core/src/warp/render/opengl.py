"""``warp.render.OpenGLRenderer``: a clear error instead of an interactive viewer."""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any


def _missing() -> list[str]:
    """What an OpenGL window needs that this process lacks."""
    missing = []
    if importlib.util.find_spec("pyglet") is None:
        missing.append("the pyglet package")
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        missing.append("a display (DISPLAY / WAYLAND_DISPLAY is not set)")
    return missing


class OpenGLRenderer:
    """NVIDIA Warp's interactive OpenGL viewer; not implemented by warp-suite.

    Constructing one raises ``RuntimeError`` naming what is missing (pyglet, a display), or
    ``NotImplementedError`` where both exist. Use :class:`warp.render.UsdRenderer` to record
    frames and view them in any USD viewer.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        missing = _missing()
        if missing:
            raise RuntimeError(
                f"warp.render.OpenGLRenderer needs {' and '.join(missing)}; "
                "use warp.render.UsdRenderer to write frames to a USD file instead"
            )
        raise NotImplementedError(
            "warp.render.OpenGLRenderer (the interactive viewer) is not provided by warp-suite; "
            "use warp.render.UsdRenderer to write frames to a USD file instead"
        )
