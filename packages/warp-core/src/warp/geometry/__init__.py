"""Geometry processing on dense grids (NVIDIA Warp's ``warp.geometry``): iso-surface extraction
by marching cubes (:class:`IsoSurfaceMarchingCubes`, also ``wp.MarchingCubes``) and by surface nets
(:class:`IsoSurfaceNets`).

A core plugin (``warp.plugins.manager.CORE_PLUGINS``), loaded with the plugins at ``import warp``
(which makes it ``wp.geometry``); it publishes ``wp.MarchingCubes`` with ``warp_exports``.
"""

from __future__ import annotations

from typing import Any

from warp import not_provided
from warp.plugins import hookimpl

from warp.geometry.marching_cubes import IsoSurfaceBase, IsoSurfaceMarchingCubes
from warp.geometry.surface_nets import IsoSurfaceNets

__all__ = ["IsoSurfaceBase", "IsoSurfaceMarchingCubes", "IsoSurfaceNets"]


@hookimpl
def warp_exports() -> dict[str, Any]:
    """``wp.MarchingCubes``, NVIDIA Warp's older top-level name of marching cubes."""
    return {"MarchingCubes": IsoSurfaceMarchingCubes}


def __getattr__(name: str) -> Any:
    raise not_provided.missing_geometry_error(name)
