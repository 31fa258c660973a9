"""Geometry processing on dense grids (NVIDIA Warp's ``warp.geometry``): iso-surface extraction
by marching cubes (:class:`IsoSurfaceMarchingCubes`, also ``wp.MarchingCubes``)."""

from __future__ import annotations

from warp.geometry.marching_cubes import IsoSurfaceBase, IsoSurfaceMarchingCubes

__all__ = ["IsoSurfaceBase", "IsoSurfaceMarchingCubes"]
