"""wp.Bvh: construction (NumPy builder), refit, and kernel queries against brute force."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from warp_geometry import bvh_build

from bvh_reference import aabb_hits, overlap_reference, random_boxes

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 100, 1000])
@pytest.mark.parametrize("leaf", [1, 4])
@pytest.mark.parametrize("method", ["median", "lbvh"])
def test_tree_structure(n, leaf, method):
    lo, hi = random_boxes(n, seed=n)
    t = bvh_build.build(lo, hi, leaf, method)
    assert sorted(t.items.tolist()) == list(range(n))

    def visit(i):  # returns the items of subtree i, checking bounds and skip links
        if t.count[i] > 0 or n == 0:
            its = t.items[t.first[i] : t.first[i] + t.count[i]]
            assert t.skip[i] == i + 1 and len(its) <= leaf
            if len(its):
                assert (t.lower[i] <= lo[its].min(0)).all() and (t.upper[i] >= hi[its].max(0)).all()
            return list(its)
        left = i + 1
        right = t.skip[left]
        assert t.skip[right] == t.skip[i]
        items = visit(left) + visit(right)
        assert (t.lower[i] <= np.minimum(t.lower[left], t.lower[right])).all()
        assert (t.upper[i] >= np.maximum(t.upper[left], t.upper[right])).all()
        return items

    assert sorted(visit(0)) == list(range(n))
    assert t.skip[0] == t.num_nodes


@wp.kernel
def ray_hits(
    id: wp.uint64,
    start: wp.array(dtype=wp.vec3),
    dir: wp.array(dtype=wp.vec3),
    max_dist: float,
    hits: wp.array2d(dtype=wp.int32),
):
    i = wp.tid()
    query = wp.bvh_query_ray(id, start[i], dir[i])
    index = int(0)
    while wp.bvh_query_next(query, index, max_dist):
        hits[i, index] += 1


@wp.kernel
def for_loop_hits(
    id: wp.uint64,
    qlo: wp.array(dtype=wp.vec3),
    qhi: wp.array(dtype=wp.vec3),
    counts: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    for index in wp.bvh_query_aabb(id, qlo[i], qhi[i]):
        counts[i] += 1 + 0 * index


def _ray_box_reference(lo, hi, start, dir, max_dist):
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / dir.astype(np.float64)
        t1 = (lo[None].astype(np.float64) - start[:, None]) * inv[:, None]
        t2 = (hi[None].astype(np.float64) - start[:, None]) * inv[:, None]
    tmin = np.maximum(np.nanmax(np.minimum(t1, t2), axis=2), 0.0)
    tmax = np.minimum(np.nanmin(np.maximum(t1, t2), axis=2), max_dist)
    return tmin <= tmax


@pytest.mark.parametrize("leaf,constructor", [(1, None), (3, "sah"), (2, "lbvh")])
def test_aabb_query_matches_brute_force(leaf, constructor):
    lo, hi = random_boxes(500, seed=1)
    lows, highs = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    bvh = wp.Bvh(lows, highs, constructor=constructor, leaf_size=leaf)
    rng = np.random.default_rng(2)
    qc = rng.random((64, 3)).astype(np.float32)
    qlo, qhi = qc - 0.15, qc + rng.random((64, 3)).astype(np.float32) * 0.2
    hits = wp.zeros((64, 500), dtype=wp.int32)
    wp.launch(
        aabb_hits, dim=64, inputs=[bvh.id, wp.array(qlo, dtype=wp.vec3), wp.array(qhi, dtype=wp.vec3), hits]
    )
    ref = overlap_reference(lo, hi, qlo, qhi)
    np.testing.assert_array_equal(hits.numpy(), ref.astype(np.int32))  # each item reported exactly once
    assert ref.sum() > 100


def test_for_loop_over_query_counts_like_while():
    lo, hi = random_boxes(300, seed=3)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    qc = np.random.default_rng(4).random((32, 3)).astype(np.float32)
    qlo, qhi = qc - 0.1, qc + 0.1
    counts = wp.zeros(32, dtype=wp.int32)
    wp.launch(
        for_loop_hits,
        dim=32,
        inputs=[bvh.id, wp.array(qlo, dtype=wp.vec3), wp.array(qhi, dtype=wp.vec3), counts],
    )
    np.testing.assert_array_equal(counts.numpy(), overlap_reference(lo, hi, qlo, qhi).sum(axis=1))


@pytest.mark.parametrize("max_dist", [np.inf, 0.4])
def test_ray_query_matches_brute_force(max_dist):
    lo, hi = random_boxes(400, seed=5, size=0.15)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    rng = np.random.default_rng(6)
    start = (rng.random((64, 3)) * 1.4 - 0.2).astype(np.float32)
    d = rng.normal(size=(64, 3)).astype(np.float32)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    d[0] = [1.0, 0.0, 0.0]  # axis-aligned rays (zero components) too
    d[1] = [0.0, -1.0, 0.0]
    hits = wp.zeros((64, 400), dtype=wp.int32)
    wp.launch(
        ray_hits,
        dim=64,
        inputs=[
            bvh.id,
            wp.array(start, dtype=wp.vec3),
            wp.array(d, dtype=wp.vec3),
            float(min(max_dist, 3.4e38)),
            hits,
        ],
    )
    ref = _ray_box_reference(lo, hi, start, d, max_dist)
    np.testing.assert_array_equal(hits.numpy(), ref.astype(np.int32))
    assert ref.sum() > 50


def test_refit_follows_moved_boxes():
    lo, hi = random_boxes(200, seed=7)
    wlo, whi = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    bvh = wp.Bvh(wlo, whi)
    shift = np.float32(2.0)
    wlo.assign(lo + shift)
    whi.assign(hi + shift)
    bvh.refit()
    qlo, qhi = np.array([[2.2, 2.2, 2.2]], np.float32), np.array([[2.6, 2.7, 2.5]], np.float32)
    hits = wp.zeros((1, 200), dtype=wp.int32)
    wp.launch(
        aabb_hits, dim=1, inputs=[bvh.id, wp.array(qlo, dtype=wp.vec3), wp.array(qhi, dtype=wp.vec3), hits]
    )
    ref = overlap_reference(lo + shift, hi + shift, qlo, qhi)
    np.testing.assert_array_equal(hits.numpy(), ref.astype(np.int32))
    assert ref.sum() > 0


def test_empty_bvh_reports_nothing():
    empty = wp.zeros(0, dtype=wp.vec3)
    bvh = wp.Bvh(empty, wp.zeros(0, dtype=wp.vec3))
    hits = wp.zeros((1, 1), dtype=wp.int32)
    wp.launch(
        aabb_hits,
        dim=1,
        inputs=[bvh.id, wp.array([[-9, -9, -9]], dtype=wp.vec3), wp.array([[9, 9, 9]], dtype=wp.vec3), hits],
    )
    assert hits.numpy().sum() == 0


def test_constructor_errors():
    lo = wp.zeros(4, dtype=wp.vec3)
    with pytest.raises(TypeError, match="'lowers' must be"):
        wp.Bvh(np.zeros((4, 3), np.float32), lo)
    with pytest.raises(TypeError, match="'uppers' must be a 1-d wp.array of vec3f"):
        wp.Bvh(lo, wp.zeros(4, dtype=float))
    with pytest.raises(ValueError, match="same shape"):
        wp.Bvh(lo, wp.zeros(5, dtype=wp.vec3))
    with pytest.raises(ValueError, match="unknown BVH constructor"):
        wp.Bvh(lo, lo, constructor="octree")
    with pytest.raises(ValueError, match="leaf_size"):
        wp.Bvh(lo, lo, leaf_size=0)
    assert wp.Bvh(lo, lo, constructor="sah").id != 0


def test_query_next_needs_a_variable():
    @wp.kernel
    def bad(id: wp.uint64, out: wp.array(dtype=int)):
        query = wp.bvh_query_aabb(id, wp.vec3(0.0), wp.vec3(1.0))
        while wp.bvh_query_next(query, out[0]):
            pass

    lo = wp.zeros(1, dtype=wp.vec3)
    bvh = wp.Bvh(lo, lo)
    with pytest.raises(wp.WarpCodegenTypeError, match="argument 'index' of wp.bvh_query_next is an output"):
        wp.launch(bad, dim=1, inputs=[bvh.id, wp.zeros(1, dtype=int)])


@wp.kernel
def sphere_hits(
    id: wp.uint64,
    center: wp.array(dtype=wp.vec3),
    radius: wp.array(dtype=float),
    hits: wp.array2d(dtype=wp.int32),
):
    i = wp.tid()
    query = wp.bvh_query_sphere(id, center[i], radius[i])
    index = int(0)
    while wp.bvh_query_next(query, index):
        hits[i, index] += 1


@wp.kernel
def mesh_bvh_sphere_hits(mesh: wp.uint64, center: wp.vec3, radius: float, hits: wp.array(dtype=wp.int32)):
    for index in wp.bvh_query_sphere(wp.mesh_get_bvh(mesh), center, radius):
        hits[index] += 1


@pytest.mark.parametrize("leaf,constructor", [(1, None), (3, "sah"), (2, "lbvh")])
def test_sphere_query_matches_brute_force(leaf, constructor):
    lo, hi = random_boxes(500, seed=11)
    lows, highs = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    bvh = wp.Bvh(lows, highs, constructor=constructor, leaf_size=leaf)
    rng = np.random.default_rng(12)
    centers = rng.random((64, 3)).astype(np.float32)
    radii = (0.02 + 0.2 * rng.random(64)).astype(np.float32)
    hits = wp.zeros((64, 500), dtype=wp.int32)
    inputs = [bvh.id, wp.array(centers, dtype=wp.vec3), wp.array(radii, dtype=float), hits]
    wp.launch(sphere_hits, dim=64, inputs=inputs)
    # squared distance from each centre to each box (the closest point is the clamped centre)
    gap = centers[:, None] - np.clip(centers[:, None], lo[None], hi[None])
    dist2 = (gap.astype(np.float64) ** 2).sum(axis=2)
    r2 = radii.astype(np.float64)[:, None] ** 2
    got = hits.numpy()
    clear = np.abs(dist2 - r2) > 1e-6
    np.testing.assert_array_equal(got[clear], (dist2 <= r2)[clear].astype(np.int32))  # each hit once
    assert (got > 0).sum() > 100


def test_sphere_query_over_a_mesh_bvh_reports_the_faces_whose_boxes_meet_it():
    rng = np.random.default_rng(13)
    corners = (rng.random((200, 1, 3)) * 4.0 + (rng.random((200, 3, 3)) - 0.5) * 0.4).astype(np.float32)
    mesh = wp.Mesh(wp.array(corners.reshape(-1, 3), dtype=wp.vec3), wp.array(np.arange(600), dtype=wp.int32))
    lo, hi = corners.min(axis=1), corners.max(axis=1)
    center, radius = np.array([2.0, 2.0, 2.0], dtype=np.float32), 0.9
    hits = wp.zeros(200, dtype=wp.int32)
    wp.launch(mesh_bvh_sphere_hits, dim=1, inputs=[mesh.id, wp.vec3(*center), radius, hits])
    expected = ((center - np.clip(center, lo, hi)) ** 2).sum(axis=1) <= radius * radius
    np.testing.assert_array_equal(hits.numpy(), expected.astype(np.int32))
    assert expected.sum() > 3
