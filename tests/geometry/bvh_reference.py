"""Shared by the BVH tests (test_bvh.py, test_bvh_device_build.py): random boxes, a kernel that
counts the items an AABB query reports, and its brute-force NumPy reference."""

from __future__ import annotations

import numpy as np

import warp as wp


def random_boxes(n, seed=0, size=0.05):
    """n random boxes in the unit cube, half-extents up to ``size``: (lowers (n,3), uppers (n,3))."""
    rng = np.random.default_rng(seed)
    c = rng.random((n, 3)).astype(np.float32)
    h = (size * rng.random((n, 3))).astype(np.float32)
    return c - h, c + h


@wp.kernel
def aabb_hits(
    id: wp.uint64,
    qlo: wp.array(dtype=wp.vec3),
    qhi: wp.array(dtype=wp.vec3),
    hits: wp.array2d(dtype=wp.int32),
):
    i = wp.tid()
    query = wp.bvh_query_aabb(id, qlo[i], qhi[i])
    index = int(0)
    while wp.bvh_query_next(query, index):
        hits[i, index] += 1


def overlap_reference(lo, hi, qlo, qhi):
    """Brute force: (queries, boxes) bool, query box i overlaps box j (closed intervals)."""
    return np.all((lo[None] <= qhi[:, None]) & (hi[None] >= qlo[:, None]), axis=2)
