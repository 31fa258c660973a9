"""warp.geometry's core plugin (``warp.plugins.manager.CORE_PLUGINS``): loading it at ``import
warp`` imports :mod:`warp.geometry` (so ``wp.geometry`` is there without ``warp/__init__``
importing it), and it publishes marching cubes under NVIDIA Warp's older top-level name."""

from __future__ import annotations

from typing import Any

from warp.geometry.marching_cubes import IsoSurfaceMarchingCubes
from warp.plugins import hookimpl


@hookimpl
def warp_exports() -> dict[str, Any]:
    """``wp.MarchingCubes``: :class:`~warp.geometry.IsoSurfaceMarchingCubes`."""
    return {"MarchingCubes": IsoSurfaceMarchingCubes}
