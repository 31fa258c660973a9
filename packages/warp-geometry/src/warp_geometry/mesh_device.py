"""Per-triangle data of a ``wp.Mesh`` on a CUDA device, computed in kernels there: index checks,
triangle boxes, corners in BVH leaf order and the mean edge length (the host reads back only
single numbers)."""

from __future__ import annotations

from typing import Any

import numpy as np

import warp as wp
from warp_builtins import device_utils

#: triangles per thread of the edge-length sum (a thread's loop runs at memory latency on a GPU:
#: short chunks, then the chunk sums reduced in levels by ``device_utils.array_inner``)
EDGE_CHUNK = 8


@wp.kernel
def _first_bad_index(indices: wp.array(dtype=wp.int32), num_points: int, first_bad: wp.array(dtype=wp.int32)):
    k = wp.tid()
    v = indices[k]
    if v < 0 or v >= num_points:
        wp.atomic_min(first_bad, 0, k)


@wp.kernel
def _triangle_bounds(
    points: wp.array(dtype=wp.vec3),
    indices: wp.array(dtype=wp.int32),
    lower: wp.array(dtype=wp.vec3),
    upper: wp.array(dtype=wp.vec3),
):
    t = wp.tid()
    a = points[indices[3 * t]]
    b = points[indices[3 * t + 1]]
    c = points[indices[3 * t + 2]]
    lower[t] = wp.min(wp.min(a, b), c)
    upper[t] = wp.max(wp.max(a, b), c)


@wp.kernel
def _leaf_corners(
    points: wp.array(dtype=wp.vec3),
    indices: wp.array(dtype=wp.int32),
    items: wp.array(dtype=wp.int32),
    corners: wp.array(dtype=wp.mat33),
):
    s = wp.tid()
    t = items[s]
    a = points[indices[3 * t]]
    b = points[indices[3 * t + 1]]
    c = points[indices[3 * t + 2]]
    corners[s] = wp.mat33(a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2])


@wp.func
def _edge(p: wp.vec3, q: wp.vec3) -> wp.float64:
    d = wp.vec3d(
        wp.float64(p[0]) - wp.float64(q[0]),
        wp.float64(p[1]) - wp.float64(q[1]),
        wp.float64(p[2]) - wp.float64(q[2]),
    )
    return wp.length(d)


@wp.kernel
def _edge_sums(
    points: wp.array(dtype=wp.vec3),
    indices: wp.array(dtype=wp.int32),
    num_tris: int,
    chunk: int,
    sums: wp.array(dtype=wp.float64),
):
    c = wp.tid()
    s = wp.float64(0.0)
    for t in range(c * chunk, wp.min(c * chunk + chunk, num_tris)):
        a = points[indices[3 * t]]
        b = points[indices[3 * t + 1]]
        d = points[indices[3 * t + 2]]
        s += _edge(a, b) + _edge(b, d) + _edge(d, a)
    sums[c] = s


def check_indices(indices: Any, num_points: int, where: str) -> None:
    """``ValueError`` naming the first entry of ``indices`` that is not a valid point index."""
    n = int(indices.shape[0])
    if n == 0:
        return
    first_bad = wp.full(1, n, dtype=wp.int32, device=indices.device)
    wp.launch(_first_bad_index, dim=n, inputs=[indices, num_points, first_bad], device=indices.device)
    bad = int(first_bad.numpy()[0])
    if bad < n:
        value = int(indices[bad : bad + 1].numpy()[0])
        raise ValueError(
            f"{where}: indices[{bad}] = {value} is not a valid point index (the mesh has {num_points} points)"
        )


def triangle_bounds(points: Any, indices: Any, lower: Any, upper: Any) -> None:
    """Every triangle's box into ``lower``/``upper`` (``wp.vec3`` arrays, one per triangle)."""
    n = int(lower.shape[0])
    if n:
        wp.launch(_triangle_bounds, dim=n, inputs=[points, indices, lower, upper], device=points.device)


def leaf_corners(points: Any, indices: Any, items: Any, corners: Any) -> None:
    """The corners (rows) of triangle ``items[s]`` into ``corners[s]`` for every leaf slot ``s``."""
    n = int(corners.shape[0])
    if n:
        wp.launch(_leaf_corners, dim=n, inputs=[points, indices, items, corners], device=points.device)


@wp.kernel(enable_backward=False)
def _store_mean(total: wp.array(dtype=wp.float64), count: int, out: wp.array(dtype=wp.float32)):
    out[0] = wp.float32(total[0] / wp.float64(count))


def _edge_total(points: Any, indices: Any, num_tris: int) -> Any:
    """The sum of every triangle's three edge lengths (a 1-element float64 device array)."""
    device = points.device
    chunks = (num_tris + EDGE_CHUNK - 1) // EDGE_CHUNK
    sums = wp.empty(chunks, dtype=wp.float64, device=device)
    total = wp.empty(1, dtype=wp.float64, device=device)
    wp.launch(_edge_sums, dim=chunks, inputs=[points, indices, num_tris, EDGE_CHUNK, sums], device=device)
    device_utils.array_inner(sums, None, total, chunks)
    return total


def store_average_edge_length(points: Any, indices: Any, out: Any) -> None:
    """The mean edge length (see :func:`average_edge_length`) into ``out[0]`` (a float32 array on
    the points' device), in kernels: nothing is read back, so graph capture records it."""
    num_tris = int(indices.shape[0]) // 3
    if num_tris == 0:
        out.zero_()
        return
    total = _edge_total(points, indices, num_tris)
    wp.launch(_store_mean, dim=1, inputs=[total, 3 * num_tris, out], device=points.device)


def average_edge_length(points: Any, indices: Any) -> float:
    """Mean length of the triangles' edges (as :func:`warp_geometry.mesh.average_edge_length`)."""
    num_tris = int(indices.shape[0]) // 3
    if num_tris == 0:
        return 0.0
    total = _edge_total(points, indices, num_tris)
    return float(np.float64(total.numpy()[0]) / (3 * num_tris))
