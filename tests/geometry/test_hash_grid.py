"""wp.HashGrid: neighbour queries identical to brute force, point ids, reserve, errors."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def neighbour_counts(
    grid: wp.uint64,
    points: wp.array(dtype=wp.vec3),
    radius: float,
    counts: wp.array(dtype=wp.int32),
    checksum: wp.array(dtype=wp.int64),
    candidates: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    p = points[i]
    query = wp.hash_grid_query(grid, p, radius)
    index = int(0)
    n = int(0)
    s = wp.int64(0)
    c = int(0)
    while wp.hash_grid_query_next(query, index):
        c += 1
        if wp.length(p - points[index]) <= radius:
            n += 1
            s += wp.int64(index) * wp.int64(index) + wp.int64(1)
    counts[i] = n
    checksum[i] = s
    candidates[i] = c


@wp.kernel
def neighbour_pairs(
    grid: wp.uint64, points: wp.array(dtype=wp.vec3), radius: float, pairs: wp.array2d(dtype=wp.int32)
):
    i = wp.tid()
    p = points[i]
    for index in wp.hash_grid_query(grid, p, radius):
        if wp.length(p - points[index]) <= radius:
            pairs[i, index] += 1


def _brute(points, radius):
    d = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    return d <= radius


@pytest.mark.parametrize("dims,radius", [((16, 16, 16), 0.05), ((4, 4, 4), 0.1), ((128, 128, 128), 0.06)])
def test_neighbours_identical_to_brute_force(dims, radius):
    rng = np.random.default_rng(1)
    pts = (rng.random((800, 3)) * 2.0 - 0.5).astype(np.float32)  # negative coordinates too
    points = wp.array(pts, dtype=wp.vec3)
    grid = wp.HashGrid(*dims)
    grid.build(points, radius)
    pairs = wp.zeros((800, 800), dtype=wp.int32)
    wp.launch(neighbour_pairs, dim=800, inputs=[grid.id, points, radius, pairs])
    ref = _brute(pts.astype(np.float32), np.float32(radius))
    # float32 distance as the kernel computes it: compare where the float64 answer is unambiguous
    d = np.linalg.norm(pts[:, None, :].astype(np.float64) - pts[None, :, :], axis=2)
    clear = np.abs(d - radius) > 1e-5
    np.testing.assert_array_equal(pairs.numpy()[clear], ref[clear].astype(np.int32))  # each neighbour once
    assert ref.sum() > 800


def test_counts_checksums_and_candidates():
    rng = np.random.default_rng(2)
    pts = rng.random((1000, 3)).astype(np.float32)
    points = wp.array(pts, dtype=wp.vec3)
    grid = wp.HashGrid(8, 8, 8)
    grid.build(points, 0.1)
    counts, checks, cands = (
        wp.zeros(1000, dtype=wp.int32),
        wp.zeros(1000, dtype=wp.int64),
        wp.zeros(1000, dtype=wp.int32),
    )
    wp.launch(neighbour_counts, dim=1000, inputs=[grid.id, points, 0.1, counts, checks, cands])
    ref = _brute(pts, 0.1)
    np.testing.assert_array_equal(counts.numpy(), ref.sum(axis=1))
    idx = np.arange(1000, dtype=np.int64)
    np.testing.assert_array_equal(checks.numpy(), (ref * (idx * idx + 1)).sum(axis=1))
    assert (cands.numpy() >= counts.numpy()).all() and cands.numpy().max() < 1000  # no bucket visited twice


def test_query_radius_larger_than_the_grid_visits_each_bucket_once():
    pts = np.random.default_rng(3).random((300, 3)).astype(np.float32)
    points = wp.array(pts, dtype=wp.vec3)
    grid = wp.HashGrid(3, 3, 3)
    grid.build(points, 0.05)
    counts, checks, cands = (
        wp.zeros(300, dtype=wp.int32),
        wp.zeros(300, dtype=wp.int64),
        wp.zeros(300, dtype=wp.int32),
    )
    wp.launch(neighbour_counts, dim=300, inputs=[grid.id, points, 2.0, counts, checks, cands])
    np.testing.assert_array_equal(counts.numpy(), np.full(300, 300))
    np.testing.assert_array_equal(cands.numpy(), np.full(300, 300))


@wp.kernel
def point_ids(grid: wp.uint64, out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = wp.hash_grid_point_id(grid, i)


def test_point_ids_are_a_cell_sorted_permutation():
    pts = np.random.default_rng(4).random((500, 3)).astype(np.float32)
    grid = wp.HashGrid(8, 8, 8)
    out = wp.zeros(501, dtype=wp.int32)
    wp.launch(point_ids, dim=501, inputs=[grid.id, out])
    assert (out.numpy() == -1).all()  # not built
    grid.build(wp.array(pts, dtype=wp.vec3), 0.125)
    wp.launch(point_ids, dim=501, inputs=[grid.id, out])
    ids = out.numpy()
    assert ids[500] == -1
    np.testing.assert_array_equal(np.sort(ids[:500]), np.arange(500))
    cells = np.floor(pts[ids[:500]] * np.float32(8.0)).astype(int)
    bucket = cells[:, 0] % 8 + 8 * (cells[:, 1] % 8 + 8 * (cells[:, 2] % 8))
    assert (np.diff(bucket) >= 0).all()


def test_rebuild_and_reserve():
    rng = np.random.default_rng(5)
    grid = wp.HashGrid(8, 8, 8)
    grid.reserve(10)
    for n in (50, 400, 20):
        pts = rng.random((n, 3)).astype(np.float32)
        points = wp.array(pts, dtype=wp.vec3)
        grid.build(points, 0.1)
        counts, checks, cands = (wp.zeros(n, dtype=t) for t in (wp.int32, wp.int64, wp.int32))
        wp.launch(neighbour_counts, dim=n, inputs=[grid.id, points, 0.1, counts, checks, cands])
        np.testing.assert_array_equal(counts.numpy(), _brute(pts, 0.1).sum(axis=1))
    grid.reserve(1000)  # growing keeps the last build usable
    wp.launch(neighbour_counts, dim=20, inputs=[grid.id, points, 0.1, counts, checks, cands])
    np.testing.assert_array_equal(counts.numpy(), _brute(pts, 0.1).sum(axis=1))


def test_errors():
    with pytest.raises(ValueError, match="dim_y must be a positive integer"):
        wp.HashGrid(4, 0, 4)
    grid = wp.HashGrid(4, 4, 4)
    with pytest.raises(ValueError, match="radius must be a positive finite number"):
        grid.build(wp.zeros(3, dtype=wp.vec3), 0.0)
    with pytest.raises(TypeError, match="'points' must hold vec3f"):
        grid.build(wp.zeros(3, dtype=float), 0.1)
    with pytest.raises(ValueError, match="num_points"):
        grid.reserve(-1)


def test_points_on_another_device(on_device):
    """Points on another device than the grid: an error that is a RuntimeError (as NVIDIA Warp
    raises) and a ValueError."""
    if not on_device.is_cuda:
        pytest.skip("needs a CUDA device (or the stand-in) beside the CPU")
    grid = wp.HashGrid(4, 4, 4, device=on_device)
    with pytest.raises(RuntimeError, match="points must live on the same device as the grid") as info:
        grid.build(wp.zeros(3, dtype=wp.vec3, device="cpu"), 0.5)
    assert isinstance(info.value, ValueError)


@wp.kernel
def _query_loop_with_two_names(grid: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)):
    for i, j in wp.hash_grid_query(grid, points[0], 1.0):
        out[0] = i + j


def test_a_query_loop_variable_must_be_one_name():
    points = wp.zeros(1, dtype=wp.vec3)
    out = wp.zeros(1, dtype=int)
    with pytest.raises(wp.WarpCodegenError, match=r"the loop variable must be a single name") as info:
        wp.launch(_query_loop_with_two_names, dim=1, inputs=[wp.uint64(0), points, out])
    assert "for i, j in wp.hash_grid_query" in str(info.value)
