"""Region builtins of ``wp.Mesh``: ``mesh_query_aabb`` and ``mesh_query_sphere``, iterated with
``mesh_query_next`` (``mesh_query_aabb_next`` is the same function under its older name).

A box query reports every face whose bounding box overlaps the query box; a sphere query every
face whose closest point to the center lies within the radius (touching included): nodes are
culled with the exact sphere/box distance, faces tested with their exact closest point. The
state is a :class:`warp_geometry.query_types.MeshQueryAABB` over the threaded BVH (stackless,
see :mod:`warp_geometry.bvh_build`).
"""

from __future__ import annotations


import warp as wp
from warp.extending import BuiltinRegistry
from warp_geometry.descriptors import func_adder
from warp_geometry.primitives import box_distance_sq, boxes_overlap, triangle_distance_sq
from warp_geometry.query_types import MeshQueryAABB

GROUP = "Geometry"
KIND_AABB = wp.constant(0)
KIND_SPHERE = wp.constant(1)


@wp.func
def mesh_query_aabb_q(id: wp.uint64, low: wp.vec3, high: wp.vec3) -> MeshQueryAABB:
    m = wp.mesh_get(id)
    q = MeshQueryAABB()
    q.id = id
    q.kind = KIND_AABB
    q.lower = low
    q.upper = high
    q.end = m.bvh.num_nodes
    return q


@wp.func
def mesh_query_sphere_q(id: wp.uint64, center: wp.vec3, radius: float) -> MeshQueryAABB:
    m = wp.mesh_get(id)
    r = wp.max(radius, 0.0)
    q = MeshQueryAABB()
    q.id = id
    q.kind = KIND_SPHERE
    q.center = center
    q.radius = r
    q.lower = center - wp.vec3(r, r, r)
    q.upper = center + wp.vec3(r, r, r)
    q.end = m.bvh.num_nodes
    return q


@wp.func
def mesh_query_next_f(query: MeshQueryAABB, index: int):
    m = wp.mesh_get(query.id)
    bvh = m.bvh
    sphere = query.kind == KIND_SPHERE
    r2 = query.radius * query.radius
    while True:
        while query.item < query.item_end:
            slot = query.item
            query.item = slot + 1
            f = bvh.items[slot]
            if sphere:
                t = m.leaf_tris[slot]
                if triangle_distance_sq(query.center, t[0], t[1], t[2]) <= r2:
                    return True, query, f
            elif boxes_overlap(query.lower, query.upper, bvh.item_lower[f], bvh.item_upper[f]):
                return True, query, f
        if query.node >= query.end:
            return False, query, index
        n = query.node
        nd = bvh.nodes[n]
        hit = bool(False)
        if sphere:
            hit = box_distance_sq(query.center, nd.lower, nd.upper) <= r2
        else:
            hit = boxes_overlap(query.lower, query.upper, nd.lower, nd.upper)
        if hit:
            if nd.count > 0:
                query.item = nd.next
                query.item_end = nd.next + nd.count
                query.node = bvh.skip[n]
            else:
                query.node = n + 1
        else:
            query.node = bvh.skip[n]
    return False, query, index


def register(registry: BuiltinRegistry) -> None:
    """Register the mesh box and sphere query builtins."""
    u64, v3, f32, i32, b = wp.uint64, wp.vec3, wp.float32, wp.int32, wp.bool
    add = func_adder(registry, GROUP)
    add(
        "mesh_query_aabb",
        [("id", u64), ("low", v3), ("high", v3)],
        MeshQueryAABB,
        mesh_query_aabb_q,
        "Construct a query over the faces of the wp.Mesh ``id`` whose bounding boxes overlap [low, high]; "
        "iterate with mesh_query_next (or ``for face in query``).",
        diff=False,
    )
    add(
        "mesh_query_sphere",
        [("id", u64), ("center", v3), ("radius", f32)],
        MeshQueryAABB,
        mesh_query_sphere_q,
        "Construct a query over the faces of the wp.Mesh ``id`` whose closest point to ``center`` is within "
        "``radius`` (touching included; a negative radius counts as 0); iterate with mesh_query_next.",
        diff=False,
    )
    for name in ("mesh_query_next", "mesh_query_aabb_next"):
        add(
            name,
            [("query", MeshQueryAABB), ("index", i32)],
            (b, MeshQueryAABB, i32),
            mesh_query_next_f,
            "Advance a mesh box or sphere query: write the next face to ``index`` and return True, "
            "or return False when exhausted (``index`` unchanged).",
            (0, 1),
            diff=False,
        )
