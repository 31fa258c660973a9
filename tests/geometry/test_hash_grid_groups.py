"""wp.HashGrid of float16/float64 points, grouped queries, strided and n-d inputs, and builds
recorded in a CPU graph capture: neighbour counts checked against brute force."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import warp as wp


@wp.kernel
def count_within(grid: wp.uint64, radius: Any, points: wp.array(dtype=Any), counts: wp.array(dtype=wp.int32)):
    i = wp.tid()
    p = points[i]
    n = int(0)
    for index in wp.hash_grid_query(grid, p, radius):
        if wp.length(p - points[index]) <= radius:
            n += 1
    counts[i] = n


@wp.kernel
def count_group(grid: wp.uint64, radius: float, points: wp.array(dtype=wp.vec3),
                groups: wp.array(dtype=wp.int32), counts: wp.array(dtype=wp.int32)):
    i = wp.tid()
    p = points[i]
    n = int(0)
    for index in wp.hash_grid_query(grid, p, radius, groups[i]):
        if wp.length(p - points[index]) <= radius:
            n += 1
    counts[i] = n


@wp.func
def nearest(query: wp.HashGridQuery[wp.float64], center: wp.vec3d, points: wp.array(dtype=wp.vec3d)) -> int:
    best = int(-1)
    best_d = wp.float64(1.0e30)
    for index in query:
        d = wp.length(center - points[index])
        if d < best_d:
            best_d = d
            best = index
    return best


@wp.kernel
def nearest_kernel(grid: wp.uint64, points: wp.array(dtype=wp.vec3d), radius: wp.float64,
                   out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    query = wp.hash_grid_query(grid, points[i] + wp.vec3d(0.01, 0.0, 0.0), radius)
    out[i] = nearest(query, points[i], points)


def _brute(pts: np.ndarray, radius: float, groups: np.ndarray | None = None) -> np.ndarray:
    d = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=-1)
    near = d <= radius
    if groups is not None:
        near &= groups[:, None] == groups[None, :]
    return near.sum(axis=1)


@pytest.mark.parametrize("dtype", [wp.float16, wp.float32, wp.float64])
def test_precisions_match_brute_force(dtype):
    rng = np.random.default_rng(3)
    pts = (rng.random((300, 3)) * 2.0).astype(wp.types.warp_type_to_np_dtype[dtype])
    vec = wp.types.vector(3, dtype)
    points = wp.array(pts, dtype=vec)
    grid = wp.HashGrid(8, 8, 8, dtype=dtype)
    assert grid.dtype is dtype
    grid.build(points, 0.25)
    counts = wp.zeros(len(pts), dtype=wp.int32)
    wp.launch(count_within, dim=len(pts), inputs=[grid.id, dtype(0.25), points, counts])
    # the kernel compares distances in the points' precision: so does the reference
    diff = pts[:, None, :] - pts[None, :, :]
    dist = np.sqrt((diff * diff).sum(axis=-1, dtype=pts.dtype))
    np.testing.assert_array_equal(counts.numpy(), (dist <= pts.dtype.type(0.25)).sum(axis=1))


def test_query_type_annotation_of_float64_grid():
    pts = np.array([[0.0, 0.0, 0.0], [0.2, 0.0, 0.0], [0.8, 0.0, 0.0], [5.0, 0.0, 0.0]])
    points = wp.array(pts, dtype=wp.vec3d)
    grid = wp.HashGrid(16, 16, 16, dtype=wp.float64)
    grid.build(points, 0.5)
    out = wp.zeros(4, dtype=wp.int32)
    wp.launch(nearest_kernel, dim=4, inputs=[grid.id, points, wp.float64(0.35), out])
    np.testing.assert_array_equal(out.numpy(), [0, 1, 2, 3])
    assert wp.HashGridQuery[wp.float16] is wp.HashGridQuery
    with pytest.raises(TypeError, match="HashGridQuery"):
        wp.HashGridQuery[wp.int32]


def test_grouped_queries_match_brute_force():
    rng = np.random.default_rng(5)
    pts = rng.random((400, 3)).astype(np.float32)
    groups = rng.integers(-3, 3, 400).astype(np.int32)
    groups[:5] = [np.iinfo(np.int32).min, np.iinfo(np.int32).max, 0, 0, 0]
    points, group_arr = wp.array(pts, dtype=wp.vec3), wp.array(groups, dtype=wp.int32)
    grid = wp.HashGrid(6, 6, 6)
    grid.build(points, 0.15, groups=group_arr)
    counts = wp.zeros(400, dtype=wp.int32)
    wp.launch(count_group, dim=400, inputs=[grid.id, 0.15, points, group_arr, counts])
    np.testing.assert_array_equal(counts.numpy(), _brute(pts, 0.15, groups))
    # the ungrouped query still sees every group
    wp.launch(count_within, dim=400, inputs=[grid.id, 0.15, points, counts])
    np.testing.assert_array_equal(counts.numpy(), _brute(pts, 0.15))
    # a rebuild without groups puts every point in group 0
    grid.build(points, 0.15)
    zeros = wp.zeros(400, dtype=wp.int32)
    wp.launch(count_group, dim=400, inputs=[grid.id, 0.15, points, zeros, counts])
    np.testing.assert_array_equal(counts.numpy(), _brute(pts, 0.15))


def test_strided_and_nd_points():
    rng = np.random.default_rng(7)
    pts = rng.random((64, 3)).astype(np.float32)
    dense = wp.array(pts, dtype=wp.vec3)
    expected = _brute(pts, 0.2)
    buffer = wp.zeros(128, dtype=wp.vec3)
    buffer.numpy()[::2] = pts
    for view in (buffer[::2], wp.array(pts.reshape(8, 8, 3), dtype=wp.vec3)):
        grid = wp.HashGrid(8, 8, 8)
        grid.build(view, 0.2)
        counts = wp.zeros(64, dtype=wp.int32)
        wp.launch(count_within, dim=64, inputs=[grid.id, 0.2, dense, counts])
        np.testing.assert_array_equal(counts.numpy(), expected)


def test_capture_replays_build_from_current_values():
    points = wp.zeros(4, dtype=wp.vec3)
    groups = wp.array([0, 0, 1, 1], dtype=wp.int32)
    counts = wp.zeros(4, dtype=wp.int32)
    grid = wp.HashGrid(16, 16, 16)  # first build inside the capture: storage grows at replay
    with wp.ScopedCapture(device="cpu") as capture:
        grid.build(points, 0.25, groups=groups)
        wp.launch(count_group, dim=4, inputs=[grid.id, 0.25, points, groups, counts])
    assert counts.numpy().sum() == 0  # nothing ran yet
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(counts.numpy(), [2, 2, 2, 2])
    groups.assign([3, 3, 3, 3])
    points.assign([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.1, 0.0, 0.0]])
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(counts.numpy(), [2, 1, 1, 2])


def test_errors():
    with pytest.raises(TypeError, match="dtype must be one of"):
        wp.HashGrid(4, 4, 4, dtype=wp.int32)
    with pytest.raises(RuntimeError, match="cell count exceeds supported limit"):
        wp.HashGrid(1291, 1291, 1291)
    grid = wp.HashGrid(4, 4, 4, dtype=wp.float16)
    with pytest.raises(TypeError, match="grid's dtype is wp.float16"):
        grid.build(wp.zeros(3, dtype=wp.vec3), 1.0)
    grid = wp.HashGrid(4, 4, 4)
    with pytest.raises(ValueError, match="groups has 2 entries for 3 points"):
        grid.build(wp.zeros(3, dtype=wp.vec3), 1.0, groups=wp.zeros(2, dtype=wp.int32))
    with pytest.raises(TypeError, match="'groups' must hold int32"):
        grid.build(wp.zeros(3, dtype=wp.vec3), 1.0, groups=wp.zeros(3, dtype=wp.float32))
    with pytest.raises(NotImplementedError, match="reserve before capture"):
        with wp.ScopedCapture(device="cpu"):
            grid.reserve(8)
