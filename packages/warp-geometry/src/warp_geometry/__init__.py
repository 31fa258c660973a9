"""warp-geometry: meshes and BVHs, hash grids and sparse volumes (NanoVDB) for warp kernels.

Installed, it is a warp plugin (entry point ``geometry``): ``wp.Mesh``, ``wp.Bvh``,
``wp.HashGrid``, ``wp.Volume`` and the query types are published on ``wp``, and the ``mesh_*``,
``bvh_*``, ``hash_grid_*`` and ``volume_*`` builtins are callable in kernels.
"""

from __future__ import annotations

__version__ = "0.1.0"
