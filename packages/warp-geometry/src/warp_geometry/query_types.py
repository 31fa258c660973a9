"""Kernel-visible query types: result records and iterator states of the geometry queries.

They are ``@wp.struct`` types (layout, field access, constructors, launch packing and cache
hashing come from the struct machinery, see :mod:`warp.types.protocol`). Iterator states are
opaque in NVIDIA Warp; here their fields are readable but not part of the API. They are marked
non-differentiable, and iterators can drive a ``for`` loop (``for index in query:``).
"""

from __future__ import annotations

import warp as wp
from warp_geometry.iteration import make_iterable


@wp.struct
class MeshQueryPoint:
    """Result of the ``mesh_query_point*`` functions."""

    #: whether a face was found within ``max_dist``
    result: wp.bool
    #: < 0 if the query point is inside the mesh, >= 0 otherwise (1.0 for the no-sign query)
    sign: wp.float32
    #: index of the closest face
    face: wp.int32
    #: barycentric weight of the face's first vertex at the closest point
    u: wp.float32
    #: barycentric weight of the face's second vertex at the closest point
    v: wp.float32


@wp.struct
class MeshQueryRay:
    """Result of ``mesh_query_ray``."""

    #: whether the ray hit a face within ``max_t``
    result: wp.bool
    #: > 0 if the ray hit the front of the face (counter-clockwise side), < 0 otherwise
    sign: wp.float32
    #: index of the face hit
    face: wp.int32
    #: distance along the ray (in units of |dir|)
    t: wp.float32
    #: barycentric weight of the face's first vertex at the hit
    u: wp.float32
    #: barycentric weight of the face's second vertex at the hit
    v: wp.float32
    #: unit normal of the face hit
    normal: wp.vec3


@wp.struct
class BvhQuery:
    """State of a ``bvh_query_aabb``/``bvh_query_ray``/``bvh_query_sphere``/``bvh_query_capsule``
    iteration (advance with ``bvh_query_next``). A sphere query keeps its centre in ``a`` and its
    radius in ``b[0]``; a capsule query is a ray query (``a`` start, ``b`` direction) whose boxes
    are grown by ``radius``."""

    id: wp.uint64
    is_ray: wp.bool
    is_sphere: wp.bool
    a: wp.vec3
    b: wp.vec3
    inv: wp.vec3
    #: capsule radius of a ray query (0 for a plain ray)
    radius: wp.float32
    node: wp.int32
    end: wp.int32
    item: wp.int32
    item_end: wp.int32


@wp.struct
class MeshQueryAABB:
    """State of a ``mesh_query_aabb`` or ``mesh_query_sphere`` iteration (advance with
    ``mesh_query_next``). One type for both kinds (``kind`` tells them apart), published as
    ``wp.MeshQuery`` and ``wp.MeshQueryAABB``: a variable may hold either kind."""

    id: wp.uint64
    #: 0: box query (``lower``..``upper``); 1: sphere query (``center``, ``radius``; ``lower`` and
    #: ``upper`` bound the sphere)
    kind: wp.int32
    lower: wp.vec3
    upper: wp.vec3
    center: wp.vec3
    radius: wp.float32
    node: wp.int32
    end: wp.int32
    item: wp.int32
    item_end: wp.int32


@wp.struct
class HashGridQuery:
    """State of a ``hash_grid_query`` iteration (advance with ``hash_grid_query_next``).

    The cells of the query box are visited row by row (x fastest): ``first`` is the box's first
    cell, ``count`` its number of cells per axis, ``row`` the (y, z) offsets of the next row.
    A row's buckets are consecutive, so its points are one range of the sorted ids
    (``item``..``item_end``), or two when the row wraps around (the second one ``pending``).
    When the box fits the grid (``cull``), rows and row ends farther than the query radius from
    the point (``center`` and ``radius`` in cell units) are skipped. A grouped query
    (``grouped``) reports only the points of ``group``.

    One type serves grids of every point precision (they bucket float32 coordinates):
    ``HashGridQuery[wp.float16]`` and ``HashGridQuery[wp.float64]`` name it too.
    """

    id: wp.uint64
    first: wp.vec3i
    count: wp.vec3i
    row: wp.vec2i
    pending: wp.vec2i
    item: wp.int32
    item_end: wp.int32
    center: wp.vec3
    radius: wp.float32
    cull: wp.bool
    group: wp.int32
    grouped: wp.bool


def _hash_grid_query_of(dtype: object) -> type:
    """``HashGridQuery[dtype]``: the query type of a grid of ``dtype`` points (the same type)."""
    if dtype not in (wp.float16, wp.float32, wp.float64):
        raise TypeError(f"HashGridQuery[...] takes the grid's scalar type (wp.float16, wp.float32 or "
                        f"wp.float64), got {dtype!r}")
    return HashGridQuery


HashGridQuery.__class_getitem__ = staticmethod(_hash_grid_query_of)  # type: ignore[attr-defined]

# iterator states carry no gradients (the result records do: u, v, t, normal, sign)
for _t in (BvhQuery, MeshQueryAABB, HashGridQuery):
    _t._wp_differentiable_ = False  # type: ignore[union-attr]  # the type protocol's flag

make_iterable(BvhQuery, "bvh_query_next")
make_iterable(MeshQueryAABB, "mesh_query_next")
make_iterable(HashGridQuery, "hash_grid_query_next")
