"""Renderers for warp programs (NVIDIA Warp's ``warp.render``).

:class:`UsdRenderer` writes animated USD stages (needs ``usd-core``, imported only when a
renderer is constructed, so ``import warp.render`` works without it). :class:`OpenGLRenderer`
is not implemented: constructing one raises an error naming what is missing (pyglet, a display)
or, where both exist, that the interactive viewer is not provided.
"""

from __future__ import annotations

from warp.render.opengl import OpenGLRenderer
from warp.render.usd import UsdRenderer

__all__ = ["OpenGLRenderer", "UsdRenderer"]
