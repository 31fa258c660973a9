"""Mesh BVH traversals in the kernel language: closest face, first ray hit, inside/outside.

These find *which* face answers a query; the differentiable part of a query (barycentric
coordinates, hit distance, normal) is recomputed from that face by the builtins in
:mod:`warp_geometry.mesh_queries`. Their arguments travel in :class:`TraversalArgs`, a
non-differentiable struct, so reverse-mode differentiation never walks into the search loops:
gradients of query results are those of the chosen face's geometry, as in NVIDIA Warp.

Closest-point queries walk the BVH depth first, nearer child first, with a small stack; the
other traversals are stackless over the threaded BVH (see :mod:`warp_geometry.bvh_build`).
"""

from __future__ import annotations

import math

import warp as wp
from warp_geometry.mesh import MeshData
from warp_geometry.primitives import (
    FLT_MAX,
    INF,
    box_distance_sq,
    box_max_distance_sq,
    closest_point_triangle,
    ray_box,
    ray_triangle,
    safe_inverse,
    triangle_distance_sq,
)


@wp.struct
class TraversalArgs:
    """Arguments of a traversal (not differentiated)."""

    p: wp.vec3
    dir: wp.vec3
    max_dist: wp.float32
    root: wp.int32
    #: method parameters: epsilon of the normal sign; accuracy and threshold of the winding number
    a: wp.float32
    b: wp.float32
    #: squared distance of the closest point (input of the normal sign)
    dist_sq: wp.float32


TraversalArgs._wp_differentiable_ = False  # type: ignore[attr-defined]  # the type protocol's flag

INV_FOUR_PI = wp.constant(1.0 / (4.0 * math.pi))


@wp.func
def traversal_args(p: wp.vec3, dir: wp.vec3, max_dist: float, root: int) -> TraversalArgs:
    args = TraversalArgs()
    args.p = p
    args.dir = dir
    args.max_dist = max_dist
    args.root = root
    return args


@wp.func
def tri_point(m: MeshData, face: int, k: int) -> wp.vec3:
    return m.points[m.indices[3 * face + k]]


#: traversal stacks: the trees are balanced (median or Morton halving), so 64 levels are far
#: more than any tree of up to 2**31 items needs
NodeStack = wp.types.vector(length=64, dtype=wp.int32)
DistStack = wp.types.vector(length=64, dtype=wp.float32)


@wp.func
def closer_face(d: float, f: int, best: float, face: int) -> bool:
    """Whether face ``f`` at squared distance ``d`` beats ``face`` at ``best``: nearer, or as near
    with a lower index (so the answer does not depend on the traversal order); with no face yet
    (``face`` -1) a face exactly at the bound ``best`` counts."""
    if d < best:
        return True
    return d == best and (face < 0 or f < face)


@wp.func
def closest_face(id: wp.uint64, args: TraversalArgs):
    """(face, squared distance) of the face closest to ``args.p`` within ``args.max_dist`` (face -1: none).

    Depth-first, nearer child first, with a stack of the farther children and their squared box
    distances: once a close face is found, the pending subtrees farther than it are dropped
    when popped, without touching their nodes again. Ties go to the lower face index, so the
    answer does not depend on the tree.
    """
    m = wp.mesh_get(id)
    bvh = m.bvh
    p = args.p
    best = args.max_dist * args.max_dist
    face = int(-1)
    if bvh.num_items == 0:
        return face, best
    stack = NodeStack()
    dists = DistStack()
    sp = int(0)
    node = int(0)
    nd = bvh.nodes[0]
    dist = box_distance_sq(p, nd.lower, nd.upper)
    while True:
        if dist <= best:
            if nd.count == 0:
                left = node + 1
                right = nd.next
                ln = bvh.nodes[left]
                rn = bvh.nodes[right]
                dl = box_distance_sq(p, ln.lower, ln.upper)
                dr = box_distance_sq(p, rn.lower, rn.upper)
                far = right
                dfar = dr
                node = left
                nd = ln
                dist = dl
                if dr < dl:
                    far = left
                    dfar = dl
                    node = right
                    nd = rn
                    dist = dr
                if dfar <= best:
                    stack[sp] = far
                    dists[sp] = dfar
                    sp += 1
                continue
            first = nd.next
            for slot in range(first, first + nd.count):
                t = m.leaf_tris[slot]
                d = triangle_distance_sq(p, t[0], t[1], t[2])
                if d <= best:
                    f = bvh.items[slot]
                    if closer_face(d, f, best, face):
                        best = d
                        face = f
        if sp == 0:
            break
        sp -= 1
        node = stack[sp]
        nd = bvh.nodes[node]
        dist = dists[sp]
    return face, best


@wp.func
def ray_face(id: wp.uint64, args: TraversalArgs):
    """(face, t) of the first face hit by ``args.p + t*args.dir``, t <= ``args.max_dist`` (face -1: none).

    Front to back: the child the ray enters first is visited first, the other is stacked with
    its entry distance and dropped when popped if a nearer hit was found meanwhile. Ties go to
    the lower face index. ``args.root`` >= 0 restricts the search to that node's subtree.
    """
    m = wp.mesh_get(id)
    bvh = m.bvh
    start = args.p
    dir = args.dir
    inv = safe_inverse(dir)
    best = wp.min(args.max_dist, FLT_MAX)  # ray_box returns INF for a miss: keep it out of reach
    face = int(-1)
    node = int(0)
    if args.root >= 0:
        node = args.root
    if bvh.num_items == 0 or node >= bvh.num_nodes:
        return face, best
    stack = NodeStack()
    dists = DistStack()
    sp = int(0)
    nd = bvh.nodes[node]
    enter = ray_box(start, inv, nd.lower, nd.upper, best)
    while True:
        if enter <= best:
            if nd.count == 0:
                left = node + 1
                right = nd.next
                ln = bvh.nodes[left]
                rn = bvh.nodes[right]
                tl = ray_box(start, inv, ln.lower, ln.upper, best)
                tr = ray_box(start, inv, rn.lower, rn.upper, best)
                far = right
                tfar = tr
                node = left
                nd = ln
                enter = tl
                if tr < tl:
                    far = left
                    tfar = tl
                    node = right
                    nd = rn
                    enter = tr
                if tfar <= best:
                    stack[sp] = far
                    dists[sp] = tfar
                    sp += 1
                continue
            first = nd.next
            for slot in range(first, first + nd.count):
                t = m.leaf_tris[slot]
                hit = ray_triangle(start, dir, t[0], t[1], t[2])
                if hit[3] > 0.0 and hit[0] <= best:
                    f = bvh.items[slot]
                    if closer_face(hit[0], f, best, face):
                        best = hit[0]
                        face = f
        if sp == 0:
            break
        sp -= 1
        node = stack[sp]
        nd = bvh.nodes[node]
        enter = dists[sp]
    return face, best


@wp.func
def face_normal(m: MeshData, face: int) -> wp.vec3:
    a = tri_point(m, face, 0)
    return wp.normalize(wp.cross(tri_point(m, face, 1) - a, tri_point(m, face, 2) - a))


@wp.func
def sign_by_rays(id: wp.uint64, args: TraversalArgs) -> float:
    """-1 if ``args.p`` is inside: at least two of three axis rays first hit the back of a face."""
    m = wp.mesh_get(id)
    p = args.p
    inside = int(0)
    for k in range(3):
        dir = wp.vec3(0.0, 0.0, 0.0)
        dir[k] = 1.0
        face, t = ray_face(id, traversal_args(p, dir, INF, -1))
        if face >= 0:
            if wp.dot(dir, face_normal(m, face)) > 0.0:
                inside += 1
    if inside >= 2:
        return -1.0
    return 1.0


@wp.func
def vertex_angle(a: wp.vec3, b: wp.vec3, c: wp.vec3) -> float:
    """Interior angle at ``a`` of triangle abc."""
    u = b - a
    v = c - a
    return wp.atan2(wp.length(wp.cross(u, v)), wp.dot(u, v))


@wp.func
def sign_by_normal(id: wp.uint64, args: TraversalArgs, face: int) -> float:
    """Sign of ``args.p`` against the angle-weighted pseudo normal at its closest point.

    Faces whose closest point to ``p`` lies within ``epsilon`` (``args.a``, times the mean edge
    length) of the closest point on ``face`` share it: their normals are summed, weighted by
    their angle at that point (their interior angle at a vertex, pi on an edge or in a face).
    """
    m = wp.mesh_get(id)
    p = args.p
    dist_sq = args.dist_sq
    epsilon = args.a
    a = tri_point(m, face, 0)
    b = tri_point(m, face, 1)
    c = tri_point(m, face, 2)
    w = closest_point_triangle(p, a, b, c)
    q = w[0] * a + w[1] * b + w[2] * c
    eps = epsilon * m.avg_edge_length
    reach = wp.sqrt(dist_sq) + eps
    reach_sq = reach * reach
    eps_sq = eps * eps
    normal = wp.vec3(0.0, 0.0, 0.0)
    bvh = m.bvh
    node = int(0)
    end = bvh.num_nodes
    while node < end:
        if box_distance_sq(p, bvh.lower[node], bvh.upper[node]) <= reach_sq:
            count = bvh.count[node]
            if count > 0:
                first = bvh.first[node]
                for slot in range(first, first + count):
                    f = bvh.items[slot]
                    fa = tri_point(m, f, 0)
                    fb = tri_point(m, f, 1)
                    fc = tri_point(m, f, 2)
                    fw = closest_point_triangle(p, fa, fb, fc)
                    fq = fw[0] * fa + fw[1] * fb + fw[2] * fc
                    if wp.length_sq(fq - q) <= eps_sq:
                        weight = float(math.pi)
                        if fw[0] == 1.0:
                            weight = vertex_angle(fa, fb, fc)
                        elif fw[1] == 1.0:
                            weight = vertex_angle(fb, fc, fa)
                        elif fw[2] == 1.0:
                            weight = vertex_angle(fc, fa, fb)
                        normal += weight * wp.normalize(wp.cross(fb - fa, fc - fa))
                node = bvh.skip[node]
            else:
                node = node + 1
        else:
            node = bvh.skip[node]
    if wp.dot(p - q, normal) < 0.0:
        return -1.0
    return 1.0


@wp.func
def solid_angle(p: wp.vec3, a: wp.vec3, b: wp.vec3, c: wp.vec3) -> float:
    """Signed solid angle of triangle abc seen from ``p`` (Van Oosterom and Strackee)."""
    x = a - p
    y = b - p
    z = c - p
    lx = wp.length(x)
    ly = wp.length(y)
    lz = wp.length(z)
    num = wp.dot(x, wp.cross(y, z))
    den = lx * ly * lz + wp.dot(x, y) * lz + wp.dot(x, z) * ly + wp.dot(y, z) * lx
    return 2.0 * wp.atan2(num, den)


@wp.func
def winding_number(id: wp.uint64, args: TraversalArgs) -> float:
    """Generalized winding number of the mesh at ``args.p`` (accuracy ``args.a``, dipole approximation)."""
    m = wp.mesh_get(id)
    p = args.p
    accuracy = args.a
    bvh = m.bvh
    total = float(0.0)
    node = int(0)
    end = bvh.num_nodes
    while node < end:
        x = m.wn_center[node] - p
        r2 = wp.dot(x, x)
        reach = accuracy * m.wn_radius[node]
        if r2 > reach * reach:
            inv_r = 1.0 / wp.sqrt(r2)
            inv_r3 = inv_r * inv_r * inv_r
            inv_r5 = inv_r3 * inv_r * inv_r
            first_order = wp.dot(x, m.wn_normal[node]) * inv_r3
            mom = m.wn_moment[node]
            trace = mom[0, 0] + mom[1, 1] + mom[2, 2]
            second_order = trace * inv_r3 - 3.0 * wp.dot(x, mom * x) * inv_r5
            total += (first_order + second_order) * INV_FOUR_PI
            node = bvh.skip[node]
        else:
            count = bvh.count[node]
            if count > 0:
                first = bvh.first[node]
                for slot in range(first, first + count):
                    f = bvh.items[slot]
                    total += (
                        solid_angle(p, tri_point(m, f, 0), tri_point(m, f, 1), tri_point(m, f, 2))
                        * INV_FOUR_PI
                    )
                node = bvh.skip[node]
            else:
                node = node + 1
    return total


@wp.func
def sign_by_winding(id: wp.uint64, args: TraversalArgs) -> float:
    """-1 if the winding number at ``args.p`` exceeds ``args.b`` (falls back to rays without the data)."""
    m = wp.mesh_get(id)
    if not m.has_winding:
        return sign_by_rays(id, args)
    if winding_number(id, args) > args.b:
        return -1.0
    return 1.0


@wp.func
def subtree_span(m: MeshData, root: int) -> wp.vec2i:
    """(first node, end node) of the preorder range of the subtree at ``root`` (-1: whole tree)."""
    bvh = m.bvh
    if bvh.num_items == 0 or root >= bvh.num_nodes:
        return wp.vec2i(0, 0)
    if root < 0:
        return wp.vec2i(0, bvh.num_nodes)
    return wp.vec2i(root, bvh.skip[root])


@wp.func
def ray_hits(id: wp.uint64, args: TraversalArgs, stop_at_first: bool) -> int:
    """Number of faces hit by ``args.p + t*args.dir`` with 0 <= t <= ``args.max_dist`` in the subtree
    ``args.root`` (every face crossed is counted once); with ``stop_at_first``, 1 at the first hit."""
    m = wp.mesh_get(id)
    bvh = m.bvh
    start = args.p
    dir = args.dir
    inv = safe_inverse(dir)
    span = subtree_span(m, args.root)
    node = span[0]
    count = int(0)
    while node < span[1]:
        nd = bvh.nodes[node]
        if ray_box(start, inv, nd.lower, nd.upper, args.max_dist) < INF:
            if nd.count > 0:
                for slot in range(nd.next, nd.next + nd.count):
                    t = m.leaf_tris[slot]
                    hit = ray_triangle(start, dir, t[0], t[1], t[2])
                    if hit[3] > 0.0 and hit[0] <= args.max_dist:
                        count += 1
                        if stop_at_first:
                            return count
                node = bvh.skip[node]
            else:
                node = node + 1
        else:
            node = bvh.skip[node]
    return count


#: seed of the perturbed ray directions of the parity sign (fixed: every call casts the same rays)
PARITY_SEED = wp.constant(0x5EED)


@wp.func
def sign_by_parity(id: wp.uint64, args: TraversalArgs) -> float:
    """-1 if at least half of ``args.a`` rays along (1, 1, 1) perturbed by up to ``args.b`` per axis
    cross the mesh an odd number of times (no rays: -1), else 1."""
    n_sample = int(args.a)
    scale = args.b
    state = wp.rand_init(PARITY_SEED)
    odd = int(0)
    for _sample in range(n_sample):
        dx = 1.0 + wp.randf(state, -scale, scale)
        dy = 1.0 + wp.randf(state, -scale, scale)
        dz = 1.0 + wp.randf(state, -scale, scale)
        ray = traversal_args(args.p, wp.vec3(dx, dy, dz), INF, -1)
        if ray_hits(id, ray, False) % 2 == 1:
            odd += 1
    if 2 * odd >= n_sample:
        return -1.0
    return 1.0


@wp.func
def farther_face(d: float, f: int, best: float, face: int) -> bool:
    """Whether face ``f`` whose farthest point is at squared distance ``d`` beats ``face`` at ``best``:
    strictly farther than ``best``, or as far with a lower index (ties with a found face only)."""
    if d > best:
        return True
    return d == best and face >= 0 and f < face


@wp.func
def farthest_corner(p: wp.vec3, a: wp.vec3, b: wp.vec3, c: wp.vec3) -> wp.vec4:
    """(wa, wb, wc, squared distance) of the triangle's point farthest from ``p``: a corner (the
    first of a, b, c at the largest distance), since the distance to ``p`` is convex."""
    da = wp.length_sq(a - p)
    db = wp.length_sq(b - p)
    dc = wp.length_sq(c - p)
    if da >= db and da >= dc:
        return wp.vec4(1.0, 0.0, 0.0, da)
    if db >= dc:
        return wp.vec4(0.0, 1.0, 0.0, db)
    return wp.vec4(0.0, 0.0, 1.0, dc)


@wp.func
def furthest_face(id: wp.uint64, args: TraversalArgs):
    """(face, squared distance) of the face whose farthest point from ``args.p`` is farthest, among the
    faces with a point strictly farther than ``args.max_dist`` (face -1: none); ties: lowest index.

    Depth-first, the child whose box reaches farther first; subtrees whose farthest box corner is
    nearer than the best face so far are dropped."""
    m = wp.mesh_get(id)
    bvh = m.bvh
    p = args.p
    best = args.max_dist * args.max_dist
    if args.max_dist < 0.0:
        best = -1.0
    face = int(-1)
    if bvh.num_items == 0:
        return face, best
    stack = NodeStack()
    dists = DistStack()
    sp = int(0)
    node = int(0)
    nd = bvh.nodes[0]
    reach = box_max_distance_sq(p, nd.lower, nd.upper)
    while True:
        if reach >= best:
            if nd.count == 0:
                left = node + 1
                right = nd.next
                ln = bvh.nodes[left]
                rn = bvh.nodes[right]
                rl = box_max_distance_sq(p, ln.lower, ln.upper)
                rr = box_max_distance_sq(p, rn.lower, rn.upper)
                other = right
                rother = rr
                node = left
                nd = ln
                reach = rl
                if rr > rl:
                    other = left
                    rother = rl
                    node = right
                    nd = rn
                    reach = rr
                if rother >= best:
                    stack[sp] = other
                    dists[sp] = rother
                    sp += 1
                continue
            for slot in range(nd.next, nd.next + nd.count):
                t = m.leaf_tris[slot]
                d = farthest_corner(p, t[0], t[1], t[2])[3]
                if d >= best:
                    f = bvh.items[slot]
                    if farther_face(d, f, best, face):
                        best = d
                        face = f
        if sp == 0:
            break
        sp -= 1
        node = stack[sp]
        nd = bvh.nodes[node]
        reach = dists[sp]
    return face, best
