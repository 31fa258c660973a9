"""warp-geometry: meshes and BVHs, hash grids and sparse volumes (NanoVDB) for warp kernels.

Installed, it is a warp plugin (entry point ``geometry``): ``wp.Mesh``, ``wp.Bvh``,
``wp.HashGrid``, ``wp.Volume`` and the query types are published on ``wp``, and the ``mesh_*``,
``bvh_*``, ``hash_grid_*`` and ``volume_*`` builtins are callable in kernels.
"""

from __future__ import annotations

# warp first: importing it registers every plugin, this one included, so a module of this
# package imported before warp is not found half-initialized by that registration
import warp  # noqa: F401

__version__ = "0.1.0"
