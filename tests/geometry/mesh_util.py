"""The wp.Mesh of NumPy points (V,3) and triangles (F,3) on the default device: shared by the mesh
query tests (test_mesh_queries.py, test_mesh_ray_queries.py, test_mesh_box_queries.py,
test_mesh_furthest_parity.py, test_mesh_gradients.py)."""

from __future__ import annotations

import warp as wp


def make_mesh(pts, tris, **kw):
    """wp.Mesh over ``pts`` and the flattened ``tris``; ``kw`` goes to wp.Mesh."""
    return wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32), **kw)
