"""Sparse marching cubes: the surface dense marching cubes extracts on a node grid, evaluating the
field only near it.

The Lipschitz octree (:mod:`warp.geometry.lipschitz_octree`) picks the grid cells that may hold
the level set, over a power-of-two cube of cells padded beyond the grid and cut back to it. Their
corners are numbered once (a sort of the corners' node numbers), the field is evaluated once per
distinct corner, each cell gathers its 8 values and :mod:`warp.geometry.sparse_cells` extracts
the triangles. Every grid cell the surface crosses is a leaf, so the result is dense marching
cubes' surface on the same grid. The gather and the vertex placement are recorded on a
``wp.Tape``: when ``evaluate`` returns values that require gradients, the vertices are
differentiable with respect to them.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

import warp
from warp.arrays import array, empty, zeros
from warp.geometry.grid import node_bounds, vec3, vec3i
from warp.geometry.lipschitz_octree import (
    check_evaluate, check_lipschitz_bound, evaluate_points, refine,
)
from warp.geometry.sparse_cells import extract_cells, run_number, sort_and_number
from warp.runtime.devices import get_device
from warp.runtime.launch import launch
from warp.types.scalars import float32, int32, int64


@warp.func
def _corner_offset(k: int32) -> vec3i:
    """Corner ``k`` of a cell as an offset from its lower corner, ordered as
    ``IsoSurfaceMarchingCubes.CUBE_CORNER_OFFSETS``."""
    return vec3i(((k + 1) >> 1) & 1, (k >> 1) & 1, (k >> 2) & 1)


@warp.kernel(enable_backward=False)
def _corner_keys(
    cells: warp.array(dtype=vec3i),
    ny: int64,
    nz: int64,
    keys: warp.array(dtype=int64),
    sources: warp.array(dtype=int32),
) -> None:
    c, k = warp.tid()
    p = cells[c]
    o = _corner_offset(k)
    i = int64(p[0]) + int64(o[0])
    j = int64(p[1]) + int64(o[1])
    z = int64(p[2]) + int64(o[2])
    keys[c * 8 + k] = (i * ny + j) * nz + z
    sources[c * 8 + k] = c * 8 + k


@warp.kernel(enable_backward=False)
def _number_corners(
    cells: warp.array(dtype=vec3i),
    sources: warp.array(dtype=int32),
    starts: warp.array(dtype=int32),
    run_ids: warp.array(dtype=int32),
    lower: vec3,
    spacing: vec3,
    corner_of: warp.array(dtype=int32),
    points: warp.array(dtype=vec3),
) -> None:
    s = warp.tid()
    v = run_number(starts, run_ids, s)
    src = sources[s]
    corner_of[src] = v
    if starts[s] != 0:
        c = src // 8
        k = src - c * 8
        p = cells[c]
        o = _corner_offset(k)
        points[v] = vec3(
            lower[0] + spacing[0] * float(p[0] + o[0]),
            lower[1] + spacing[1] * float(p[1] + o[1]),
            lower[2] + spacing[2] * float(p[2] + o[2]),
        )


@warp.kernel
def _gather_corners(
    values: warp.array(dtype=float32), corner_of: warp.array(dtype=int32), out: warp.array2d(dtype=float32)
) -> None:
    c, k = warp.tid()
    out[c, k] = values[corner_of[c * 8 + k]]


def _grid_size(nx: Any, ny: Any, nz: Any) -> tuple[int, int, int]:
    dims = []
    for name, n in (("nx", nx), ("ny", ny), ("nz", nz)):
        if isinstance(n, bool) or int(n) != n:
            raise TypeError(f"sparse_marching_cubes: {name} must be an integer, got {n!r}")
        if int(n) < 2:
            raise ValueError(f"sparse_marching_cubes: {name} must be at least 2 nodes, got {n}")
        dims.append(int(n))
    return dims[0], dims[1], dims[2]


def sparse_marching_cubes(
    evaluate: Callable[[array], Any],
    nx: int,
    ny: int,
    nz: int,
    lower: Any = None,
    upper: Any = None,
    threshold: float = 0.0,
    lipschitz_bound: float = 1.0,
    return_stats: bool = False,
    device: Any = None,
) -> tuple[array, array] | tuple[array, array, dict[str, int]]:
    """Extract ``field == threshold`` on an ``(nx, ny, nz)`` node grid without sampling all of it.

    ``evaluate(points)`` takes a ``wp.array(dtype=wp.vec3)`` and returns one float32 value per
    point (a ``wp.array`` on the points' device); the field must be ``lipschitz_bound``-Lipschitz
    (1 for a signed distance). Nodes are placed as :class:`IsoSurfaceMarchingCubes` places them
    (``lower``/``upper``, index coordinates by default), and the result is the surface
    ``IsoSurfaceMarchingCubes.extract`` gives on that grid: ``(verts, indices)``. With
    ``return_stats``, a third item reports ``resolution`` (cells per axis of the padded octree),
    ``max_depth``, ``leaf_cells``, ``culled_cells`` (padding cells dropped) and
    ``field_evaluations`` (points passed to ``evaluate``).
    """
    what = "sparse_marching_cubes"
    check_evaluate(evaluate, what)
    bound = check_lipschitz_bound(lipschitz_bound, what)
    dims = _grid_size(nx, ny, nz)
    device = get_device(device)
    lo, step = node_bounds(dims, lower, upper)
    lower_np = np.array([float(v) for v in lo], dtype=np.float64)
    spacing_np = np.array([float(v) for v in step], dtype=np.float64)
    if not np.all(spacing_np > 0.0):
        raise ValueError(
            f"sparse_marching_cubes: upper must exceed lower on every axis, got {lower} and {upper}"
        )
    cells_per_axis = (dims[0] - 1, dims[1] - 1, dims[2] - 1)
    resolution = 1
    while resolution < max(cells_per_axis):
        resolution *= 2
    depth = resolution.bit_length() - 1
    leaves, evaluations, culled = refine(
        evaluate, lower_np, spacing_np, cells_per_axis, depth, float(threshold), bound, device, what
    )
    n_cells = leaves.shape[0]
    stats = {"resolution": resolution, "max_depth": depth, "leaf_cells": n_cells, "culled_cells": culled}
    if n_cells == 0:
        verts, indices = zeros(0, dtype=vec3, device=device), zeros(0, dtype=int32, device=device)
    else:
        count = 8 * n_cells
        keys = empty(2 * count, dtype=int64, device=device)
        sources = empty(2 * count, dtype=int32, device=device)
        launch(_corner_keys, dim=(n_cells, 8), inputs=[leaves, int64(dims[1]), int64(dims[2]), keys, sources],
               device=device, record_tape=False)
        starts, run_ids, n_corners = sort_and_number(keys, sources, count)
        corner_of = empty(count, dtype=int32, device=device)
        points = empty(n_corners, dtype=vec3, device=device)
        launch(_number_corners, dim=count, inputs=[leaves, sources, starts, run_ids, lo, step],
               outputs=[corner_of, points], device=device, record_tape=False)
        values = evaluate_points(evaluate, points, what)
        evaluations += n_corners
        corner_values = zeros((n_cells, 8), dtype=float32, device=device, requires_grad=values.requires_grad)
        launch(_gather_corners, dim=(n_cells, 8), inputs=[values, corner_of], outputs=[corner_values],
               device=device)
        verts, indices = extract_cells(leaves, corner_values, float(threshold), lower_np, spacing_np, dims)
    stats["field_evaluations"] = evaluations
    if return_stats:
        return verts, indices, stats
    return verts, indices
