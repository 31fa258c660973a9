"""Kernel builtins of ``wp.Mesh`` (closest point, ray cast, box query, evaluation, access).

Each query finds its face with a traversal of :mod:`warp_geometry.mesh_traversal` (not
differentiated) and then computes the continuous results from that face in differentiable
kernel code, so gradients of ``u``, ``v``, ``t`` and ``normal`` with respect to the query point,
ray and mesh points are those of the chosen face, as in NVIDIA Warp. The builtins come in
NVIDIA Warp's two forms: returning a ``wp.MeshQueryPoint``/``wp.MeshQueryRay`` record, or
writing output variables passed as arguments and returning a ``bool``.
"""

from __future__ import annotations


import warp as wp
from warp.extending import BuiltinRegistry
from warp_geometry.bvh_queries import group_root
from warp_geometry.descriptors import func_adder, register_getter
from warp_geometry.mesh import MeshData
from warp_geometry.mesh_traversal import (
    closest_face,
    farthest_corner,
    furthest_face,
    sign_by_normal,
    sign_by_parity,
    sign_by_rays,
    sign_by_winding,
    traversal_args,
    tri_point,
)
from warp_geometry.primitives import closest_point_triangle
from warp_geometry.query_types import MeshQueryPoint

GROUP = "Geometry"
ZERO3 = wp.constant(wp.vec3(0.0, 0.0, 0.0))

# -- closest point ----------------------------------------------------------------------------
SIGN_NONE = wp.constant(0)
SIGN_RAYS = wp.constant(1)
SIGN_NORMAL = wp.constant(2)
SIGN_WINDING = wp.constant(3)
SIGN_PARITY = wp.constant(4)


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
    elif method == SIGN_PARITY:
        q.sign = sign_by_parity(id, args)
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
def mesh_query_point_sign_parity_q(
    id: wp.uint64, point: wp.vec3, max_dist: float, n_sample: int, perturbation_scale: float
) -> MeshQueryPoint:
    return point_query(id, point, max_dist, SIGN_PARITY, float(n_sample), perturbation_scale)


@wp.func
def mesh_query_furthest_point_no_sign_q(id: wp.uint64, point: wp.vec3, min_dist: float) -> MeshQueryPoint:
    face, dist_sq = furthest_face(id, traversal_args(point, ZERO3, min_dist, -1))
    q = MeshQueryPoint()
    if face < 0:
        return q
    m = wp.mesh_get(id)
    w = farthest_corner(point, tri_point(m, face, 0), tri_point(m, face, 1), tri_point(m, face, 2))
    q.result = True
    q.face = face
    q.u = w[0]
    q.v = w[1]
    return q


@wp.func
def mesh_query_furthest_point_no_sign_o(
    id: wp.uint64, point: wp.vec3, min_dist: float, face: int, bary_u: float, bary_v: float
):
    return _outputs_no_sign(mesh_query_furthest_point_no_sign_q(id, point, min_dist), face, bary_u, bary_v)


@wp.func
def mesh_query_point_sign_parity_o(
    id: wp.uint64,
    point: wp.vec3,
    max_dist: float,
    inside: float,
    face: int,
    bary_u: float,
    bary_v: float,
    n_sample: int,
    perturbation_scale: float,
):
    q = mesh_query_point_sign_parity_q(id, point, max_dist, n_sample, perturbation_scale)
    return _outputs(q, inside, face, bary_u, bary_v)


@wp.func
def _outputs_no_sign(q: MeshQueryPoint, face: int, u: float, v: float):
    if q.result:
        return True, q.face, q.u, q.v
    return False, face, u, v


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
    return _outputs_no_sign(mesh_query_point_no_sign_q(id, point, max_dist), face, bary_u, bary_v)


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
def mesh_get_group_root_f(id: wp.uint64, group: int) -> int:
    return group_root(wp.mesh_get(id).bvh, group)


@wp.func
def mesh_get_bvh_f(id: wp.uint64) -> wp.uint64:
    return wp.mesh_get(id).bvh_id


def register(registry: BuiltinRegistry) -> None:
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

    add = func_adder(registry, GROUP)

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
        "Point of the wp.Mesh ``id`` farthest from ``point`` (a face corner; no sign), among faces with a "
        "point strictly farther than ``min_dist``; ties go to the lowest face index."
    )
    far_head = [("id", u64), ("point", v3), ("min_dist", f32)]
    add(
        "mesh_query_furthest_point_no_sign",
        far_head,
        MeshQueryPoint,
        mesh_query_furthest_point_no_sign_q,
        doc,
    )
    add(
        "mesh_query_furthest_point_no_sign",
        far_head + outs[1:],
        (b, i32, f32, f32),
        mesh_query_furthest_point_no_sign_o,
        doc,
        (3, 4, 5),
    )
    doc = (
        "Closest point query whose sign comes from the parity of the number of faces crossed by ``n_sample`` "
        "rays along (1, 1, 1) perturbed by up to ``perturbation_scale`` per axis (fixed seed): inside "
        "(-1) when at least half of them cross an odd number of faces."
    )
    parity = [("n_sample", i32), ("perturbation_scale", f32)]
    add("mesh_query_point_sign_parity", head + parity, MeshQueryPoint, mesh_query_point_sign_parity_q, doc)
    add(
        "mesh_query_point_sign_parity",
        head + outs + parity,
        out_res,
        mesh_query_point_sign_parity_o,
        doc,
        (3, 4, 5, 6),
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
        "mesh_get_group_root",
        [("id", u64), ("group", i32)],
        i32,
        mesh_get_group_root_f,
        "Root node of group ``group`` of a wp.Mesh built with ``groups=`` (for the ray queries' ``root``), "
        "or -1 (the whole mesh) when the mesh has no such group.",
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
