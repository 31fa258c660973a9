"""Geometry processing on dense grids (NVIDIA Warp's ``warp.geometry``): iso-surface extraction
by marching cubes (:class:`IsoSurfaceMarchingCubes`, also ``wp.MarchingCubes``) and by surface nets
(:class:`IsoSurfaceNets`)."""

from __future__ import annotations

from typing import Any

from warp import not_provided

from warp.geometry.marching_cubes import IsoSurfaceBase, IsoSurfaceMarchingCubes
from warp.geometry.surface_nets import IsoSurfaceNets

__all__ = ["IsoSurfaceBase", "IsoSurfaceMarchingCubes", "IsoSurfaceNets"]


def __getattr__(name: str) -> Any:
    raise not_provided.missing_geometry_error(name)
