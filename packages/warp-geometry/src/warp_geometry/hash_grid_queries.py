"""Kernel builtins of ``wp.HashGrid``: ``hash_grid_query``, ``hash_grid_query_next``, ``hash_grid_point_id``.

A query visits the cells overlapped by the box ``[p - max_dist, p + max_dist]`` (at most
``dim`` cells per axis, so no bucket is visited twice) and reports every point stored in their
buckets, each once: all points within ``max_dist`` and possibly others, as in NVIDIA Warp.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp_geometry.descriptors import add_builtin, register_getter
from warp_geometry.hash_grid import HashGridData
from warp_geometry.query_types import HashGridQuery

GROUP = "Geometry"


@wp.func
def _cell_range(p: float, r: float, inv: float, dim: int) -> wp.vec2i:
    pad = 1.0e-5 * (wp.abs(p) + r)  # keeps the range a superset under float rounding
    lo = int(wp.floor((p - r - pad) * inv))
    hi = int(wp.floor((p + r + pad) * inv))
    if hi - lo >= dim:
        hi = lo + dim - 1
    return wp.vec2i(lo, hi)


@wp.func
def hash_grid_query_f(id: wp.uint64, point: wp.vec3, max_dist: float) -> HashGridQuery:
    g = wp.hash_grid_get(id)
    q = HashGridQuery()
    q.id = id
    x = _cell_range(point[0], max_dist, g.inv_cell_width, g.dim_x)
    y = _cell_range(point[1], max_dist, g.inv_cell_width, g.dim_y)
    z = _cell_range(point[2], max_dist, g.inv_cell_width, g.dim_z)
    q.lower = wp.vec3i(x[0], y[0], z[0])
    q.upper = wp.vec3i(x[1], y[1], z[1])
    q.cell = q.lower
    if g.num_points == 0:
        q.cell = wp.vec3i(q.lower[0], q.lower[1], q.upper[2] + 1)  # nothing to visit
    return q


@wp.func
def _wrap(c: int, dim: int) -> int:
    return ((c % dim) + dim) % dim


@wp.func
def hash_grid_query_next_f(query: HashGridQuery, index: int):
    g = wp.hash_grid_get(query.id)
    while True:
        if query.item < query.item_end:
            found = g.point_ids[query.item]
            query.item = query.item + 1
            return True, query, found
        cell = query.cell
        if cell[2] > query.upper[2]:
            return False, query, index
        bucket = _wrap(cell[0], g.dim_x) + g.dim_x * (
            _wrap(cell[1], g.dim_y) + g.dim_y * _wrap(cell[2], g.dim_z)
        )
        query.item = g.cell_starts[bucket]
        query.item_end = g.cell_ends[bucket]
        # advance to the next cell of the box (x fastest)
        if cell[0] < query.upper[0]:
            query.cell = wp.vec3i(cell[0] + 1, cell[1], cell[2])
        elif cell[1] < query.upper[1]:
            query.cell = wp.vec3i(query.lower[0], cell[1] + 1, cell[2])
        else:
            query.cell = wp.vec3i(query.lower[0], query.lower[1], cell[2] + 1)
    return False, query, index


@wp.func
def hash_grid_point_id_f(id: wp.uint64, index: int) -> int:
    g = wp.hash_grid_get(id)
    if index < 0 or index >= g.num_points:
        return -1
    return g.point_ids[index]


def register(registry: Any) -> None:
    """Register the hash grid builtins."""
    register_getter(
        registry, "hash_grid_get", HashGridData, "The kernel-side data of the wp.HashGrid ``id``.", GROUP
    )
    u64, v3, f32, i32 = wp.uint64, wp.vec3, wp.float32, wp.int32
    add_builtin(
        registry,
        "hash_grid_query",
        params={"id": u64, "point": v3, "max_dist": f32},
        result=HashGridQuery,
        func=hash_grid_query_f,
        group=GROUP,
        doc="Construct a query over the points of the wp.HashGrid ``id`` in the cells overlapped by the box "
        "around ``point`` of half-width ``max_dist`` (candidates: filter by distance); iterate with "
        "hash_grid_query_next or a for loop.",
    )
    add_builtin(
        registry,
        "hash_grid_query_next",
        params={"query": HashGridQuery, "index": i32},
        result=(wp.bool, HashGridQuery, i32),
        func=hash_grid_query_next_f,
        mutated_args=(0, 1),
        group=GROUP,
        doc="Advance a hash grid query: write the next candidate's point index to ``index`` and return "
        "True, or return False when exhausted.",
    )
    add_builtin(
        registry,
        "hash_grid_point_id",
        params={"id": u64, "index": i32},
        result=i32,
        func=hash_grid_point_id_f,
        group=GROUP,
        doc="Index into the original points of the ``index``-th point in the grid's cell-sorted order "
        "(-1 if the grid has not been built or reserved, or ``index`` is out of range).",
    )
