"""Kernel builtins of ``wp.HashGrid``: ``hash_grid_query``, ``hash_grid_query_next``, ``hash_grid_point_id``.

A query visits the cells overlapped by the box ``[p - max_dist, p + max_dist]`` (at most
``dim`` cells per axis, so no bucket is visited twice) and reports every point stored in their
buckets, each once: all points within ``max_dist`` and possibly others, as in NVIDIA Warp.
The buckets of a row of cells (x fastest) are consecutive and their points one range of the
sorted ids, so a query reads two bucket bounds per row, not per cell.
Cell coordinates are clamped to ``[-CELL_LIMIT, CELL_LIMIT]`` as when building (see
``hash_grid_cells``), the query's centre too, so infinite, NaN or huge points and radii stay in
int32 and the culling (distances in clamped space never exceed the true ones) stays exact.
A query given a group skips the points of other groups. Queries of float16 and float64 grids
take points and distances of that type and search the float32 grid their points were bucketed in.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp.extending import BuiltinRegistry
from warp_geometry.descriptors import add_builtin, register_getter
from warp_geometry.hash_grid import HashGridData
from warp_geometry.hash_grid_cells import cell as _cell
from warp_geometry.hash_grid_cells import clamped as _clamped
from warp_geometry.hash_grid_cells import wrap as _wrap
from warp_geometry.query_types import HashGridQuery

GROUP = "Geometry"


@wp.func
def _cell_range(p: float, r: float, inv: float) -> wp.vec2i:
    """(first, last) cell along one axis overlapped by [p - r, p + r] (unwrapped, clamped)."""
    # keeps the range a superset under float rounding; finite, so that an infinite p stays in its
    # edge cell (inf - inf would be NaN, which is cell 0)
    pad = wp.min(1.0e-5 * (wp.abs(p) + r), 3.0e38)
    return wp.vec2i(_cell((p - r - pad) * inv), _cell((p + r + pad) * inv))


@wp.func
def hash_grid_query_f(id: wp.uint64, point: wp.vec3, max_dist: float) -> HashGridQuery:
    g = wp.hash_grid_get(id)
    q = HashGridQuery()
    q.id = id
    inv = g.inv_cell_width
    x = _cell_range(point[0], max_dist, inv)
    y = _cell_range(point[1], max_dist, inv)
    z = _cell_range(point[2], max_dist, inv)
    q.first = wp.vec3i(x[0], y[0], z[0])
    nx = x[1] - x[0] + 1
    ny = y[1] - y[0] + 1
    nz = z[1] - z[0] + 1
    # a box wider than the grid visits every bucket of that axis once, and buckets then hold
    # points of several cells of the box: no geometric culling
    q.cull = nx <= g.dim_x and ny <= g.dim_y and nz <= g.dim_z
    q.count = wp.vec3i(wp.min(nx, g.dim_x), wp.min(ny, g.dim_y), wp.min(nz, g.dim_z))
    c = point * inv
    q.center = wp.vec3(_clamped(c[0]), _clamped(c[1]), _clamped(c[2]))
    # padded like the cell range, so rounding never drops a cell holding a point within max_dist
    scale = wp.abs(q.center[0]) + wp.abs(q.center[1]) + wp.abs(q.center[2])
    q.radius = max_dist * inv * 1.0001 + 1.0e-5 * scale
    if g.num_points == 0 or nx <= 0 or ny <= 0 or nz <= 0:  # nothing to visit (negative max_dist)
        q.count = wp.vec3i(0, 0, 0)
        q.row = wp.vec2i(0, 0)
    return q


@wp.func
def hash_grid_query_group_f(id: wp.uint64, point: wp.vec3, max_dist: float, group: int) -> HashGridQuery:
    q = hash_grid_query_f(id, point, max_dist)
    q.group = group
    q.grouped = True
    return q


@wp.func
def hash_grid_query_w(id: wp.uint64, point: Any, max_dist: Any) -> HashGridQuery:
    """hash_grid_query of a float16 or float64 point: the float32 query of the converted values."""
    return hash_grid_query_f(id, wp.vec3(point), wp.float32(max_dist))


@wp.func
def hash_grid_query_group_w(id: wp.uint64, point: Any, max_dist: Any, group: int) -> HashGridQuery:
    """hash_grid_query over one group of a float16 or float64 point (see ``hash_grid_query_w``)."""
    return hash_grid_query_group_f(id, wp.vec3(point), wp.float32(max_dist), group)


@wp.func
def _gap(c: int, s: float) -> float:
    """Distance (in cell units) from coordinate ``s`` to cell ``c`` along one axis."""
    return wp.max(wp.max(float(c) - s, s - float(c + 1)), 0.0)


@wp.func
def hash_grid_query_next_f(query: HashGridQuery, index: int):
    g = wp.hash_grid_get(query.id)
    while True:
        if query.item < query.item_end:
            item = query.item
            query.item = item + 1
            if query.grouped:
                point_group = int(0)
                if g.point_groups.shape[0] > item:
                    point_group = g.point_groups[item]
                if point_group != query.group:
                    continue
            return True, query, g.point_ids[item]
        if query.pending[0] < query.pending[1]:
            query.item = query.pending[0]
            query.item_end = query.pending[1]
            query.pending = wp.vec2i(0, 0)
            continue
        ry = query.row[0]
        rz = query.row[1]
        if rz >= query.count[2]:
            return False, query, index
        if ry + 1 == query.count[1]:
            query.row = wp.vec2i(0, rz + 1)
        else:
            query.row = wp.vec2i(ry + 1, rz)
        cy = query.first[1] + ry
        cz = query.first[2] + rz
        x0 = query.first[0]
        x1 = x0 + query.count[0] - 1
        if query.cull:
            gy = _gap(cy, query.center[1])
            gz = _gap(cz, query.center[2])
            rest = query.radius * query.radius - gy * gy - gz * gz
            if rest < 0.0:
                continue
            reach = wp.sqrt(rest)
            x0 = wp.max(x0, _cell(query.center[0] - reach))
            x1 = wp.min(x1, _cell(query.center[0] + reach))
            if x1 < x0:
                continue
        base = g.dim_x * (_wrap(cy, g.dim_y) + g.dim_y * _wrap(cz, g.dim_z))
        x = _wrap(x0, g.dim_x)
        last = x + x1 - x0
        query.item = g.cell_starts[base + x]
        if last < g.dim_x:
            query.item_end = g.cell_ends[base + last]
        else:  # the row wraps around: its end, then its beginning
            query.item_end = g.cell_ends[base + g.dim_x - 1]
            query.pending = wp.vec2i(g.cell_starts[base], g.cell_ends[base + last - g.dim_x])
    return False, query, index


@wp.func
def hash_grid_point_id_f(id: wp.uint64, index: int) -> int:
    g = wp.hash_grid_get(id)
    if index < 0 or index >= g.num_points:
        return -1
    return g.point_ids[index]


def register(registry: BuiltinRegistry) -> None:
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
    for scalar, vec, plain, grouped in ((wp.float16, wp.vec3h, hash_grid_query_w, hash_grid_query_group_w),
                                        (f32, v3, None, hash_grid_query_group_f),
                                        (wp.float64, wp.vec3d, hash_grid_query_w, hash_grid_query_group_w)):
        if plain is not None:
            add_builtin(registry, "hash_grid_query", params={"id": u64, "point": vec, "max_dist": scalar},
                        result=HashGridQuery, func=plain, group=GROUP,
                        doc="hash_grid_query of a grid of this precision (see the float32 overload).")
        add_builtin(registry, "hash_grid_query",
                    params={"id": u64, "point": vec, "max_dist": scalar, "group": i32},
                    result=HashGridQuery, func=grouped, group=GROUP,
                    doc="hash_grid_query visiting only the points of ``group`` (the ``groups`` given to "
                    "build).")
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
