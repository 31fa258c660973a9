"""Ray builtins of ``wp.Mesh``: ``mesh_query_ray`` (first hit), ``mesh_query_ray_anyhit`` and
``mesh_query_ray_count_intersections``.

Every ray query takes a ``root``: -1 searches the whole mesh, a node index from
``mesh_get_group_root`` searches one group of a grouped mesh (see :class:`warp_geometry.mesh.Mesh`).
Rays are double sided and ``t`` is measured in units of ``|dir|``.
"""

from __future__ import annotations


import warp as wp
from warp.extending import BuiltinRegistry
from warp_geometry.descriptors import func_adder
from warp_geometry.mesh_traversal import ray_face, ray_hits, traversal_args, tri_point
from warp_geometry.primitives import INF, ray_triangle
from warp_geometry.query_types import MeshQueryRay

GROUP = "Geometry"


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


@wp.func
def mesh_query_ray_anyhit_f(id: wp.uint64, start: wp.vec3, dir: wp.vec3, max_t: float, root: int) -> bool:
    return ray_hits(id, traversal_args(start, dir, max_t, root), True) > 0


@wp.func
def mesh_query_ray_anyhit_f4(id: wp.uint64, start: wp.vec3, dir: wp.vec3, max_t: float) -> bool:
    return ray_hits(id, traversal_args(start, dir, max_t, -1), True) > 0


@wp.func
def mesh_query_ray_count_intersections_f(id: wp.uint64, start: wp.vec3, dir: wp.vec3, root: int) -> int:
    return ray_hits(id, traversal_args(start, dir, INF, root), False)


@wp.func
def mesh_query_ray_count_intersections_f3(id: wp.uint64, start: wp.vec3, dir: wp.vec3) -> int:
    return ray_hits(id, traversal_args(start, dir, INF, -1), False)


def register(registry: BuiltinRegistry) -> None:
    """Register the mesh ray builtins."""
    u64, v3, f32, i32, b = wp.uint64, wp.vec3, wp.float32, wp.int32, wp.bool
    add = func_adder(registry, GROUP)
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
    doc = (
        "Whether the ray ``start + t*dir`` hits any face of the wp.Mesh ``id`` with 0 <= t <= ``max_t`` "
        "(stops at the first face found; ``root``: -1 or a group root from mesh_get_group_root)."
    )
    add("mesh_query_ray_anyhit", ray, b, mesh_query_ray_anyhit_f4, doc, diff=False)
    add("mesh_query_ray_anyhit", ray + [("root", i32)], b, mesh_query_ray_anyhit_f, doc, diff=False)
    doc = (
        "Number of faces of the wp.Mesh ``id`` crossed by the ray ``start + t*dir``, t >= 0 (odd: the start "
        "is inside a closed mesh; ``root``: -1 or a group root from mesh_get_group_root)."
    )
    count = [("id", u64), ("start", v3), ("dir", v3)]
    add(
        "mesh_query_ray_count_intersections",
        count,
        i32,
        mesh_query_ray_count_intersections_f3,
        doc,
        diff=False,
    )
    add(
        "mesh_query_ray_count_intersections",
        count + [("root", i32)],
        i32,
        mesh_query_ray_count_intersections_f,
        doc,
        diff=False,
    )
