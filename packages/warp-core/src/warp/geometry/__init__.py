"""Geometry processing on grids (NVIDIA Warp's ``warp.geometry``): iso-surface extraction by marching
cubes (:class:`IsoSurfaceMarchingCubes`, also ``wp.MarchingCubes``) and by surface nets
(:class:`IsoSurfaceNets`) on dense grids, and by sparse marching cubes near the surface of a
Lipschitz field (:func:`sparse_marching_cubes`, :func:`lipschitz_octree`,
:func:`sparse_marching_cubes_from_cells`). Plugins add names here through the
``warp_module_exports`` hook (warp-geometry: the swept volume of meshes).

Loaded with the plugins at ``import warp`` (which makes it ``wp.geometry``) through its core plugin
:mod:`warp.geometry.plugin`, which publishes ``wp.MarchingCubes``.
"""

from __future__ import annotations

from typing import Any

from warp import not_provided

from warp.geometry.lipschitz_octree import lipschitz_octree
from warp.geometry.marching_cubes import IsoSurfaceBase, IsoSurfaceMarchingCubes
from warp.geometry.sparse_cells import sparse_marching_cubes_from_cells
from warp.geometry.sparse_marching_cubes import sparse_marching_cubes
from warp.geometry.surface_nets import IsoSurfaceNets
from warp.plugins.manager import module_exports
from warp.plugins.missing import missing_module_attribute

__all__ = [
    "IsoSurfaceBase",
    "IsoSurfaceMarchingCubes",
    "IsoSurfaceNets",
    "lipschitz_octree",
    "sparse_marching_cubes",
    "sparse_marching_cubes_from_cells",
]


def __getattr__(name: str) -> Any:
    exported = module_exports(__name__)
    if name in exported:
        return exported[name]
    raise missing_module_attribute(__name__, name) or not_provided.missing_geometry_error(name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(module_exports(__name__)))
