"""Kernel builtins of ``wp.Bvh``: ``bvh_query_aabb``, ``bvh_query_ray``, ``bvh_query_sphere``,
``bvh_query_capsule``, ``bvh_query_next``.

Traversal is stackless: nodes are stored in preorder with a *skip* link to the node after each
subtree (:mod:`warp_geometry.bvh_build`), so a query's whole state is a few integers (current
node, end node, current leaf slot) and fits in a small struct value that ``bvh_query_next``
updates and returns, as the output-parameter convention of the registry requires.
"""

from __future__ import annotations


import warp as wp
from warp.extending import BuiltinRegistry
from warp_geometry.bvh import BvhData
from warp_geometry.primitives import INF, boxes_overlap, ray_box, safe_inverse
from warp_geometry.query_types import BvhQuery
from warp_geometry.descriptors import add_builtin, register_getter

GROUP = "Geometry"


@wp.func
def query_start(node_count: int, skip: wp.array(dtype=wp.int32), root: int) -> wp.vec2i:
    """(first node, end node) of a traversal of the subtree at ``root`` (-1: whole tree)."""
    if root < 0:
        return wp.vec2i(0, node_count)
    if root >= node_count:
        return wp.vec2i(0, 0)
    return wp.vec2i(root, skip[root])


@wp.func
def sphere_box(center: wp.vec3, radius: float, lo: wp.vec3, hi: wp.vec3) -> bool:
    """Whether the closed ball (``center``, ``radius``) meets the closed box ``[lo, hi]``."""
    d = center - wp.min(wp.max(center, lo), hi)
    return wp.dot(d, d) <= radius * radius


@wp.func
def query_hits_box(q: BvhQuery, lo: wp.vec3, hi: wp.vec3, max_dist: float) -> bool:
    """Box test of an AABB query (``a``..``b``), a ray or capsule query (start ``a``, ``inv`` =
    1/dir, boxes grown by ``radius``) or a sphere query (centre ``a``, radius ``b[0]``)."""
    if q.is_ray:
        r = wp.vec3(q.radius, q.radius, q.radius)
        return ray_box(q.a, q.inv, lo - r, hi + r, max_dist) < INF
    if q.is_sphere:
        return sphere_box(q.a, q.b[0], lo, hi)
    return boxes_overlap(q.a, q.b, lo, hi)


@wp.func
def _bvh_query(id: wp.uint64, is_ray: bool, a: wp.vec3, b: wp.vec3, root: int) -> BvhQuery:
    d = wp.bvh_get(id)
    q = BvhQuery()
    q.id = id
    q.is_ray = is_ray
    q.a = a
    q.b = b
    if is_ray:
        q.inv = safe_inverse(b)
    span = query_start(d.num_nodes, d.skip, root)
    q.node = span[0]
    q.end = span[1]
    return q


@wp.func
def bvh_query_aabb_func(id: wp.uint64, low: wp.vec3, high: wp.vec3, root: int) -> BvhQuery:
    return _bvh_query(id, False, low, high, root)


@wp.func
def bvh_query_ray_func(id: wp.uint64, start: wp.vec3, dir: wp.vec3, root: int) -> BvhQuery:
    return _bvh_query(id, True, start, dir, root)


@wp.func
def bvh_query_sphere_func(id: wp.uint64, center: wp.vec3, radius: float, root: int) -> BvhQuery:
    q = _bvh_query(id, False, center, wp.vec3(radius, 0.0, 0.0), root)
    q.is_sphere = True
    return q


@wp.func
def bvh_query_capsule_func(id: wp.uint64, start: wp.vec3, dir: wp.vec3, radius: float, root: int) -> BvhQuery:
    q = _bvh_query(id, True, start, dir, root)
    q.radius = radius
    return q


@wp.func
def bvh_query_capsule_noroot(id: wp.uint64, start: wp.vec3, dir: wp.vec3, radius: float) -> BvhQuery:
    return bvh_query_capsule_func(id, start, dir, radius, -1)


@wp.func
def bvh_query_sphere_noroot(id: wp.uint64, center: wp.vec3, radius: float) -> BvhQuery:
    return bvh_query_sphere_func(id, center, radius, -1)


@wp.func
def bvh_query_next_func(query: BvhQuery, index: int, max_dist: float):
    d = wp.bvh_get(query.id)
    while True:
        while query.item < query.item_end:
            slot = query.item
            query.item = slot + 1
            item = d.items[slot]
            if query_hits_box(query, d.item_lower[item], d.item_upper[item], max_dist):
                return True, query, item
        if query.node >= query.end:
            return False, query, index
        n = query.node
        if query_hits_box(query, d.lower[n], d.upper[n], max_dist):
            count = d.count[n]
            if count > 0:
                query.item = d.first[n]
                query.item_end = query.item + count
                query.node = d.skip[n]
            else:
                query.node = n + 1
        else:
            query.node = d.skip[n]
    return False, query, index


@wp.func
def group_root(d: BvhData, group: int) -> int:
    """Root node of ``group``'s subtree in a grouped tree (binary search), -1 if there is none."""
    lo = int(0)
    hi = d.group_keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if d.group_keys[mid] < group:
            lo = mid + 1
        else:
            hi = mid
    if lo < d.group_keys.shape[0]:
        if d.group_keys[lo] == group:
            return d.group_roots[lo]
    return -1


@wp.func
def bvh_get_group_root_f(id: wp.uint64, group: int) -> int:
    return group_root(wp.bvh_get(id), group)


@wp.func
def bvh_query_aabb_noroot(id: wp.uint64, low: wp.vec3, high: wp.vec3) -> BvhQuery:
    return _bvh_query(id, False, low, high, -1)


@wp.func
def bvh_query_ray_noroot(id: wp.uint64, start: wp.vec3, dir: wp.vec3) -> BvhQuery:
    return _bvh_query(id, True, start, dir, -1)


@wp.func
def bvh_query_next_nomax(query: BvhQuery, index: int):
    return bvh_query_next_func(query, index, INF)


def register(registry: BuiltinRegistry) -> None:
    """Register the BVH builtins."""
    register_getter(
        registry, "bvh_get", BvhData, "The kernel-side data of the wp.Bvh with identifier ``id``.", GROUP
    )
    vec3, u64, i32, f32 = wp.vec3, wp.uint64, wp.int32, wp.float32
    aabb_doc = (
        "Construct an axis-aligned bounding box query against the wp.Bvh ``id``: iterate with "
        "bvh_query_next over every item whose box overlaps ``[low, high]`` (``root`` -1: whole tree)."
    )
    ray_doc = (
        "Construct a ray query against the wp.Bvh ``id``: iterate with bvh_query_next over every item "
        "whose box the ray ``start + t*dir`` (t >= 0) intersects."
    )
    next_doc = (
        "Advance a BVH query: write the next item's index to ``index`` and return True, or return "
        "False when exhausted (``index`` unchanged). ``max_dist`` bounds ray and capsule queries, in "
        "units of |dir|."
    )
    for name, func, root_func, doc, p in (
        ("bvh_query_aabb", bvh_query_aabb_noroot, bvh_query_aabb_func, aabb_doc, ("low", "high")),
        ("bvh_query_ray", bvh_query_ray_noroot, bvh_query_ray_func, ray_doc, ("start", "dir")),
    ):
        add_builtin(
            registry,
            name,
            params={"id": u64, p[0]: vec3, p[1]: vec3},
            result=BvhQuery,
            func=func,
            doc=doc,
            group=GROUP,
            differentiable=False,
        )
        add_builtin(
            registry,
            name,
            params={"id": u64, p[0]: vec3, p[1]: vec3, "root": i32},
            result=BvhQuery,
            func=root_func,
            doc=doc,
            group=GROUP,
            differentiable=False,
        )
    sphere_doc = (
        "Construct a sphere query against the wp.Bvh ``id``: iterate with bvh_query_next over every item "
        "whose box meets the closed ball of ``radius`` around ``center`` (``root`` -1: whole tree)."
    )
    for params, func in (
        ({"id": u64, "center": vec3, "radius": f32}, bvh_query_sphere_noroot),
        ({"id": u64, "center": vec3, "radius": f32, "root": i32}, bvh_query_sphere_func),
    ):
        add_builtin(registry, "bvh_query_sphere", params=params, result=BvhQuery, func=func, doc=sphere_doc,
                    group=GROUP, differentiable=False)
    capsule_doc = (
        "Construct a capsule query against the wp.Bvh ``id``: iterate with bvh_query_next over every item "
        "whose box, grown by ``radius`` on every side, the ray ``start + t*dir`` (t >= 0) meets. A broad "
        "phase: ``bvh_query_next``'s ``max_dist`` bounds t (1.0: the segment from start to start + dir); "
        "test the exact distance to each hit. ``root`` -1: whole tree."
    )
    for params, func in (
        ({"id": u64, "start": vec3, "dir": vec3, "radius": f32}, bvh_query_capsule_noroot),
        ({"id": u64, "start": vec3, "dir": vec3, "radius": f32, "root": i32}, bvh_query_capsule_func),
    ):
        add_builtin(registry, "bvh_query_capsule", params=params, result=BvhQuery, func=func, doc=capsule_doc,
                    group=GROUP, differentiable=False)
    add_builtin(
        registry,
        "bvh_get_group_root",
        params={"id": u64, "group": i32},
        result=i32,
        func=bvh_get_group_root_f,
        doc=(
            "Root node of group ``group`` of a wp.Bvh built with ``groups=`` (for the queries' ``root``), "
            "or -1 (the whole tree) when the BVH has no such group."
        ),
        group=GROUP,
        differentiable=False,
    )
    add_builtin(
        registry,
        "bvh_query_next",
        params={"query": BvhQuery, "index": i32},
        result=(wp.bool, BvhQuery, i32),
        func=bvh_query_next_nomax,
        doc=next_doc,
        group=GROUP,
        differentiable=False,
        mutated_args=(0, 1),
    )
    add_builtin(
        registry,
        "bvh_query_next",
        params={"query": BvhQuery, "index": i32, "max_dist": f32},
        result=(wp.bool, BvhQuery, i32),
        func=bvh_query_next_func,
        doc=next_doc,
        group=GROUP,
        differentiable=False,
        mutated_args=(0, 1),
    )
