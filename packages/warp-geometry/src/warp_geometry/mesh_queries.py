"""Kernel builtins of ``wp.Mesh`` (closest point, ray cast, box query, evaluation, access).

Each query finds its face with a traversal of :mod:`warp_geometry.mesh_traversal` (not
differentiated) and then computes the continuous results from that face in differentiable
kernel code, so gradients of ``u``, ``v``, ``t`` and ``normal`` with respect to the query point,
ray and mesh points are those of the chosen face, as in NVIDIA Warp. The builtins come in
NVIDIA Warp's two forms: returning a ``wp.MeshQueryPoint``/``wp.MeshQueryRay`` record, or
writing output variables passed as arguments and returning a ``bool``.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp_geometry.descriptors import add_builtin, register_getter
from warp_geometry.mesh import MeshData
from warp_geometry.mesh_traversal import (
    closest_face,
    ray_face,
    sign_by_normal,
    sign_by_rays,
    sign_by_winding,
    traversal_args,
    tri_point,
)
from warp_geometry.primitives import boxes_overlap, closest_point_triangle, ray_triangle
from warp_geometry.query_types import MeshQueryAABB, MeshQueryPoint, MeshQueryRay

GROUP = "Geometry"
ZERO3 = wp.constant(wp.vec3(0.0, 0.0, 0.0))

# -- closest point ----------------------------------------------------------------------------
SIGN_NONE = wp.constant(0)
SIGN_RAYS = wp.constant(1)
SIGN_NORMAL = wp.constant(2)
SIGN_WINDING = wp.constant(3)


@wp.func
def point_query(
    id: wp.uint64, point: wp.vec3, max_dist: float, method: int, a: float, b: float
) -> MeshQueryPoint:
    """Closest point query; ``method`` picks the sign (a, b: epsilon or accuracy/threshold)."""
    args = traversal_args(point, ZERO3, max_dist, -1)
    face, dist_sq = closest_face(id, args)
    q = MeshQueryPoint()
    if face < 0:
        return q
    m = wp.mesh_get(id)
    w = closest_point_triangle(point, tri_point(m, face, 0), tri_point(m, face, 1), tri_point(m, face, 2))
    q.result = True
    q.face = face
    q.u = w[0]
    q.v = w[1]
    args.a = a
    args.b = b
    args.dist_sq = dist_sq
    if method == SIGN_RAYS:
        q.sign = sign_by_rays(id, args)
    elif method == SIGN_NORMAL:
        q.sign = sign_by_normal(id, args, face)
    elif method == SIGN_WINDING:
        q.sign = sign_by_winding(id, args)
    return q


@wp.func
def mesh_query_point_no_sign_q(id: wp.uint64, point: wp.vec3, max_dist: float) -> MeshQueryPoint:
    return point_query(id, point, max_dist, SIGN_NONE, 0.0, 0.0)


@wp.func
def mesh_query_point_q(id: wp.uint64, point: wp.vec3, max_dist: float) -> MeshQueryPoint:
    return point_query(id, point, max_dist, SIGN_RAYS, 0.0, 0.0)


@wp.func
def mesh_query_point_sign_normal_q(
    id: wp.uint64, point: wp.vec3, max_dist: float, epsilon: float
) -> MeshQueryPoint:
    return point_query(id, point, max_dist, SIGN_NORMAL, epsilon, 0.0)


@wp.func
def mesh_query_point_sign_normal_q3(id: wp.uint64, point: wp.vec3, max_dist: float) -> MeshQueryPoint:
    return point_query(id, point, max_dist, SIGN_NORMAL, 1.0e-3, 0.0)


@wp.func
def mesh_query_point_sign_winding_number_q(
    id: wp.uint64, point: wp.vec3, max_dist: float, accuracy: float, threshold: float
) -> MeshQueryPoint:
    return point_query(id, point, max_dist, SIGN_WINDING, accuracy, threshold)


@wp.func
def mesh_query_point_sign_winding_number_q3(id: wp.uint64, point: wp.vec3, max_dist: float) -> MeshQueryPoint:
    return point_query(id, point, max_dist, SIGN_WINDING, 2.0, 0.5)


@wp.func
def _outputs(q: MeshQueryPoint, inside: float, face: int, u: float, v: float):
    if q.result:
        return True, q.sign, q.face, q.u, q.v
    return False, inside, face, u, v


@wp.func
def mesh_query_point_o(
    id: wp.uint64, point: wp.vec3, max_dist: float, inside: float, face: int, bary_u: float, bary_v: float
):
    return _outputs(mesh_query_point_q(id, point, max_dist), inside, face, bary_u, bary_v)


@wp.func
def mesh_query_point_no_sign_o(
    id: wp.uint64, point: wp.vec3, max_dist: float, face: int, bary_u: float, bary_v: float
):
    q = mesh_query_point_no_sign_q(id, point, max_dist)
    if q.result:
        return True, q.face, q.u, q.v
    return False, face, bary_u, bary_v


@wp.func
def mesh_query_point_sign_normal_o(
    id: wp.uint64,
    point: wp.vec3,
    max_dist: float,
    inside: float,
    face: int,
    bary_u: float,
    bary_v: float,
    epsilon: float,
):
    return _outputs(
        mesh_query_point_sign_normal_q(id, point, max_dist, epsilon), inside, face, bary_u, bary_v
    )


@wp.func
def mesh_query_point_sign_normal_o7(
    id: wp.uint64, point: wp.vec3, max_dist: float, inside: float, face: int, bary_u: float, bary_v: float
):
    return _outputs(mesh_query_point_sign_normal_q(id, point, max_dist, 1.0e-3), inside, face, bary_u, bary_v)


@wp.func
def mesh_query_point_sign_winding_number_o(
    id: wp.uint64,
    point: wp.vec3,
    max_dist: float,
    inside: float,
    face: int,
    bary_u: float,
    bary_v: float,
    accuracy: float,
    threshold: float,
):
    q = mesh_query_point_sign_winding_number_q(id, point, max_dist, accuracy, threshold)
    return _outputs(q, inside, face, bary_u, bary_v)


@wp.func
def mesh_query_point_sign_winding_number_o7(
    id: wp.uint64, point: wp.vec3, max_dist: float, inside: float, face: int, bary_u: float, bary_v: float
):
    return _outputs(
        mesh_query_point_sign_winding_number_q(id, point, max_dist, 2.0, 0.5), inside, face, bary_u, bary_v
    )


# -- ray cast ---------------------------------------------------------------------------------
@wp.func
def mesh_query_ray_q(id: wp.uint64, start: wp.vec3, dir: wp.vec3, max_t: float, root: int) -> MeshQueryRay:
    face, t_found = ray_face(id, traversal_args(start, dir, max_t, root))
    q = MeshQueryRay()
    if face < 0:
        return q
    m = wp.mesh_get(id)
    a = tri_point(m, face, 0)
    b = tri_point(m, face, 1)
    c = tri_point(m, face, 2)
    hit = ray_triangle(start, dir, a, b, c)
    n = wp.normalize(wp.cross(b - a, c - a))
    q.result = True
    q.face = face
    q.t = hit[0]
    q.u = hit[1]
    q.v = hit[2]
    q.normal = n
    q.sign = 1.0
    if wp.dot(dir, n) > 0.0:
        q.sign = -1.0
    return q


@wp.func
def mesh_query_ray_q4(id: wp.uint64, start: wp.vec3, dir: wp.vec3, max_t: float) -> MeshQueryRay:
    return mesh_query_ray_q(id, start, dir, max_t, -1)


@wp.func
def mesh_query_ray_o(
    id: wp.uint64,
    start: wp.vec3,
    dir: wp.vec3,
    max_t: float,
    t: float,
    bary_u: float,
    bary_v: float,
    sign: float,
    normal: wp.vec3,
    face: int,
    root: int,
):
    q = mesh_query_ray_q(id, start, dir, max_t, root)
    if q.result:
        return True, q.t, q.u, q.v, q.sign, q.normal, q.face
    return False, t, bary_u, bary_v, sign, normal, face


@wp.func
def mesh_query_ray_o10(
    id: wp.uint64,
    start: wp.vec3,
    dir: wp.vec3,
    max_t: float,
    t: float,
    bary_u: float,
    bary_v: float,
    sign: float,
    normal: wp.vec3,
    face: int,
):
    return mesh_query_ray_o(id, start, dir, max_t, t, bary_u, bary_v, sign, normal, face, -1)


# -- box query --------------------------------------------------------------------------------
@wp.func
def mesh_query_aabb_q(id: wp.uint64, low: wp.vec3, high: wp.vec3) -> MeshQueryAABB:
    m = wp.mesh_get(id)
    q = MeshQueryAABB()
    q.id = id
    q.lower = low
    q.upper = high
    q.end = m.bvh.num_nodes
    return q


@wp.func
def mesh_query_aabb_next_f(query: MeshQueryAABB, index: int):
    bvh = wp.mesh_get(query.id).bvh
    while True:
        while query.item < query.item_end:
            slot = query.item
            query.item = slot + 1
            f = bvh.items[slot]
            if boxes_overlap(query.lower, query.upper, bvh.item_lower[f], bvh.item_upper[f]):
                return True, query, f
        if query.node >= query.end:
            return False, query, index
        n = query.node
        if boxes_overlap(query.lower, query.upper, bvh.lower[n], bvh.upper[n]):
            count = bvh.count[n]
            if count > 0:
                query.item = bvh.first[n]
                query.item_end = query.item + count
                query.node = bvh.skip[n]
            else:
                query.node = n + 1
        else:
            query.node = bvh.skip[n]
    return False, query, index


# -- evaluation and access --------------------------------------------------------------------
@wp.func
def mesh_eval_position_f(id: wp.uint64, face: int, bary_u: float, bary_v: float) -> wp.vec3:
    m = wp.mesh_get(id)
    return (
        bary_u * tri_point(m, face, 0)
        + bary_v * tri_point(m, face, 1)
        + (1.0 - bary_u - bary_v) * tri_point(m, face, 2)
    )


@wp.func
def mesh_eval_velocity_f(id: wp.uint64, face: int, bary_u: float, bary_v: float) -> wp.vec3:
    m = wp.mesh_get(id)
    if m.velocities.shape[0] == 0:
        return ZERO3
    i = 3 * face
    va = m.velocities[m.indices[i]]
    vb = m.velocities[m.indices[i + 1]]
    vc = m.velocities[m.indices[i + 2]]
    return bary_u * va + bary_v * vb + (1.0 - bary_u - bary_v) * vc


@wp.func
def mesh_eval_face_normal_f(id: wp.uint64, face: int) -> wp.vec3:
    m = wp.mesh_get(id)
    a = tri_point(m, face, 0)
    return wp.normalize(wp.cross(tri_point(m, face, 1) - a, tri_point(m, face, 2) - a))


@wp.func
def mesh_get_point_f(id: wp.uint64, index: int) -> wp.vec3:
    m = wp.mesh_get(id)
    return m.points[m.indices[index]]


@wp.func
def mesh_get_velocity_f(id: wp.uint64, index: int) -> wp.vec3:
    m = wp.mesh_get(id)
    if m.velocities.shape[0] == 0:
        return ZERO3
    return m.velocities[m.indices[index]]


@wp.func
def mesh_get_index_f(id: wp.uint64, index: int) -> int:
    m = wp.mesh_get(id)
    return m.indices[index]


@wp.func
def mesh_get_bvh_f(id: wp.uint64) -> wp.uint64:
    return wp.mesh_get(id).bvh_id


def register(registry: Any) -> None:
    """Register the mesh builtins."""
    register_getter(
        registry,
        "mesh_get",
        MeshData,
        "The kernel-side data of the wp.Mesh ``id``: its ``points``, ``indices`` and ``velocities`` arrays.",
        GROUP,
    )
    u64, v3, f32, i32, b = wp.uint64, wp.vec3, wp.float32, wp.int32, wp.bool
    head = [("id", u64), ("point", v3), ("max_dist", f32)]
    outs = [("inside", f32), ("face", i32), ("bary_u", f32), ("bary_v", f32)]
    out_res = (b, f32, i32, f32, f32)

    def add(
        name: str, params: list, result: Any, func: Any, doc: str, updated: tuple = (), diff: bool = True
    ) -> None:
        add_builtin(
            registry,
            name,
            params=params,
            result=result,
            func=func,
            doc=doc,
            group=GROUP,
            mutated_args=updated,
            differentiable=diff,
        )

    doc = (
        "Closest point on the wp.Mesh ``id`` to ``point`` among faces within ``max_dist``; the sign "
        "(< 0 inside) is a majority vote of the first faces hit by three axis-aligned rays."
    )
    add("mesh_query_point", head, MeshQueryPoint, mesh_query_point_q, doc)
    add("mesh_query_point", head + outs, out_res, mesh_query_point_o, doc, (3, 4, 5, 6))
    doc = (
        "Closest point on the wp.Mesh ``id`` to ``point`` among faces within ``max_dist`` "
        "(no inside/outside sign)."
    )
    add("mesh_query_point_no_sign", head, MeshQueryPoint, mesh_query_point_no_sign_q, doc)
    add(
        "mesh_query_point_no_sign",
        head + outs[1:],
        (b, i32, f32, f32),
        mesh_query_point_no_sign_o,
        doc,
        (3, 4, 5),
    )
    doc = (
        "Closest point query whose sign comes from the angle-weighted pseudo normal at the closest point "
        "(``epsilon``, default 1e-3, is a fraction of the mean edge length)."
    )
    add("mesh_query_point_sign_normal", head, MeshQueryPoint, mesh_query_point_sign_normal_q3, doc)
    add(
        "mesh_query_point_sign_normal",
        head + [("epsilon", f32)],
        MeshQueryPoint,
        mesh_query_point_sign_normal_q,
        doc,
    )
    add(
        "mesh_query_point_sign_normal",
        head + outs,
        out_res,
        mesh_query_point_sign_normal_o7,
        doc,
        (3, 4, 5, 6),
    )
    add(
        "mesh_query_point_sign_normal",
        head + outs + [("epsilon", f32)],
        out_res,
        mesh_query_point_sign_normal_o,
        doc,
        (3, 4, 5, 6),
    )
    doc = (
        "Closest point query whose sign comes from the mesh's winding number at ``point`` (inside when above "
        "``threshold``, default 0.5; ``accuracy``, default 2.0). Needs support_winding_number=True."
    )
    wn = [("accuracy", f32), ("threshold", f32)]
    add(
        "mesh_query_point_sign_winding_number",
        head,
        MeshQueryPoint,
        mesh_query_point_sign_winding_number_q3,
        doc,
    )
    add(
        "mesh_query_point_sign_winding_number",
        head + wn,
        MeshQueryPoint,
        mesh_query_point_sign_winding_number_q,
        doc,
    )
    add(
        "mesh_query_point_sign_winding_number",
        head + outs,
        out_res,
        mesh_query_point_sign_winding_number_o7,
        doc,
        (3, 4, 5, 6),
    )
    add(
        "mesh_query_point_sign_winding_number",
        head + outs + wn,
        out_res,
        mesh_query_point_sign_winding_number_o,
        doc,
        (3, 4, 5, 6),
    )

    ray = [("id", u64), ("start", v3), ("dir", v3), ("max_t", f32)]
    ray_outs = [("t", f32), ("bary_u", f32), ("bary_v", f32), ("sign", f32), ("normal", v3), ("face", i32)]
    ray_res = (b, f32, f32, f32, f32, v3, i32)
    doc = (
        "First face of the wp.Mesh ``id`` hit by the ray ``start + t*dir`` with 0 <= t <= ``max_t`` (t in "
        "units of |dir|); sign > 0 when the ray hits the front (counter-clockwise) side."
    )
    add("mesh_query_ray", ray, MeshQueryRay, mesh_query_ray_q4, doc)
    add("mesh_query_ray", ray + [("root", i32)], MeshQueryRay, mesh_query_ray_q, doc)
    add("mesh_query_ray", ray + ray_outs, ray_res, mesh_query_ray_o10, doc, (4, 5, 6, 7, 8, 9))
    add(
        "mesh_query_ray", ray + ray_outs + [("root", i32)], ray_res, mesh_query_ray_o, doc, (4, 5, 6, 7, 8, 9)
    )

    add(
        "mesh_query_aabb",
        [("id", u64), ("low", v3), ("high", v3)],
        MeshQueryAABB,
        mesh_query_aabb_q,
        "Construct a query over the faces of the wp.Mesh ``id`` whose bounding boxes overlap [low, high]; "
        "iterate with mesh_query_aabb_next.",
        diff=False,
    )
    add(
        "mesh_query_aabb_next",
        [("query", MeshQueryAABB), ("index", i32)],
        (b, MeshQueryAABB, i32),
        mesh_query_aabb_next_f,
        "Advance a mesh box query: write the next face to ``index`` and return True, "
        "or return False when exhausted.",
        (0, 1),
        diff=False,
    )

    add(
        "mesh_eval_position",
        [("id", u64), ("face", i32), ("bary_u", f32), ("bary_v", f32)],
        v3,
        mesh_eval_position_f,
        "Position on face ``face`` of the wp.Mesh ``id``: u*p0 + v*p1 + (1-u-v)*p2.",
    )
    add(
        "mesh_eval_velocity",
        [("id", u64), ("face", i32), ("bary_u", f32), ("bary_v", f32)],
        v3,
        mesh_eval_velocity_f,
        "Velocity interpolated on face ``face`` like mesh_eval_position (zero without velocities).",
    )
    add(
        "mesh_eval_face_normal",
        [("id", u64), ("face", i32)],
        v3,
        mesh_eval_face_normal_f,
        "Unit normal of face ``face`` of the wp.Mesh ``id`` (counter-clockwise winding).",
    )
    add(
        "mesh_get_point",
        [("id", u64), ("index", i32)],
        v3,
        mesh_get_point_f,
        "Position of the vertex at face-vertex index ``index`` (``points[indices[index]]``).",
    )
    add(
        "mesh_get_velocity",
        [("id", u64), ("index", i32)],
        v3,
        mesh_get_velocity_f,
        "Velocity of the vertex at face-vertex index ``index`` (zero without velocities).",
    )
    add(
        "mesh_get_index",
        [("id", u64), ("index", i32)],
        i32,
        mesh_get_index_f,
        "Vertex index stored at face-vertex index ``index`` (``indices[index]``).",
        diff=False,
    )
    add(
        "mesh_get_bvh",
        [("id", u64)],
        u64,
        mesh_get_bvh_f,
        "Identifier of the BVH over the faces of the wp.Mesh ``id`` (usable with bvh_query_*).",
        diff=False,
    )
