"""wp.bvh_query_capsule: the broad phase of a capsule (a segment or ray grown by a radius) against
brute force over the item boxes."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def _capsule_hits(
    bvh: wp.uint64, p0: wp.vec3, d: wp.vec3, radius: float, max_dist: float, hits: wp.array(dtype=int)
):
    q = wp.bvh_query_capsule(bvh, p0, d, radius)
    i = int(0)
    while wp.bvh_query_next(q, i, max_dist):
        hits[i] = hits[i] + 1


@wp.kernel
def _capsule_or_sphere(
    bvh: wp.uint64, use_capsule: bool, p0: wp.vec3, d: wp.vec3, radius: float, hits: wp.array(dtype=int)
):
    if use_capsule:
        q = wp.bvh_query_capsule(bvh, p0, d, radius)
    else:
        q = wp.bvh_query_sphere(bvh, p0, radius)
    i = int(0)
    while wp.bvh_query_next(q, i, 1.0):
        hits[i] = hits[i] + 1


def _segment_meets_grown_box(p0, d, radius, lo, hi, t_max):
    """Slab test of p0 + t*d, t in [0, t_max], against [lo - radius, hi + radius] (float64)."""
    lo, hi = lo - radius, hi + radius
    t0, t1 = 0.0, t_max
    for k in range(3):
        if d[k] == 0.0:
            if p0[k] < lo[k] or p0[k] > hi[k]:
                return 0
            continue
        a, b = (lo[k] - p0[k]) / d[k], (hi[k] - p0[k]) / d[k]
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
        if t0 > t1:
            return 0
    return 1


def _scene(device, leaf_size=4):
    """200 random boxes in [0, 11.5]^3, their BVH, and the boxes as float32 values in float64."""
    rng = np.random.default_rng(5)
    lowers = rng.random((200, 3)) * 10.0
    uppers = lowers + rng.random((200, 3)) * 1.5
    bvh = wp.Bvh(
        wp.array(lowers, dtype=wp.vec3, device=device),
        wp.array(uppers, dtype=wp.vec3, device=device),
        leaf_size=leaf_size,
    )
    return bvh, lowers.astype(np.float32).astype(np.float64), uppers.astype(np.float32).astype(np.float64)


@pytest.mark.parametrize("leaf_size", [1, 4])
@pytest.mark.parametrize(
    "p0, p1, radius, max_dist",
    [
        ((0.0, 0.0, 0.0), (10.0, 10.0, 10.0), 1.0, 1.0),
        ((2.0, 8.0, 1.0), (9.0, 1.0, 5.0), 0.3, 1.0),
        ((5.0, 0.0, 5.0), (5.0, 10.0, 5.0), 0.5, 0.5),  # axis-aligned, half the segment
        ((1.0, 1.0, 1.0), (2.0, 1.5, 1.0), 0.7, 1.0e6),  # effectively a ray
    ],
)
def test_capsule_query_matches_brute_force(device, leaf_size, p0, p1, radius, max_dist):
    bvh, lo, hi = _scene(device, leaf_size)
    p0, p1 = np.array(p0), np.array(p1)
    hits = wp.zeros(200, dtype=int, device=device)
    wp.launch(
        _capsule_hits, dim=1, inputs=[bvh.id, wp.vec3(*p0), wp.vec3(*(p1 - p0)), radius, max_dist, hits],
        device=device,
    )
    expected = [_segment_meets_grown_box(p0, p1 - p0, radius, lo[i], hi[i], max_dist) for i in range(200)]
    assert sum(expected) > 0
    np.testing.assert_array_equal(hits.numpy(), expected)


def test_capsule_kind_survives_a_runtime_branch(device):
    bvh, lo, hi = _scene(device)
    p0, p1 = np.array((0.0, 0.0, 0.0)), np.array((10.0, 10.0, 10.0))
    hits = wp.zeros(200, dtype=int, device=device)
    args = [bvh.id, True, wp.vec3(*p0), wp.vec3(*(p1 - p0)), 1.0, hits]
    wp.launch(_capsule_or_sphere, dim=1, inputs=args, device=device)
    expected = [_segment_meets_grown_box(p0, p1 - p0, 1.0, lo[i], hi[i], 1.0) for i in range(200)]
    np.testing.assert_array_equal(hits.numpy(), expected)
    hits.zero_()
    args[1] = False  # a sphere of radius 1 at p0 ignores max_dist
    wp.launch(_capsule_or_sphere, dim=1, inputs=args, device=device)
    d = p0 - np.clip(p0, lo, hi)
    np.testing.assert_array_equal(hits.numpy(), (np.sum(d * d, axis=1) <= 1.0).astype(int))
