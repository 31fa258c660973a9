"""mesh_query_sphere / mesh_query_aabb with mesh_query_next (and for loops) against brute-force NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from geomref import point_triangle_dist2, random_soup
from mesh_util import make_mesh

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def sphere_faces(
    id: wp.uint64, centers: wp.array(dtype=wp.vec3), radius: float, hits: wp.array(dtype=wp.int32, ndim=2)
):
    i = wp.tid()
    query = wp.mesh_query_sphere(id, centers[i], radius)
    f = int(0)
    while wp.mesh_query_next(query, f):
        hits[i, f] += 1


@wp.kernel
def sphere_faces_for(
    id: wp.uint64, centers: wp.array(dtype=wp.vec3), radius: float, hits: wp.array(dtype=wp.int32, ndim=2)
):
    i = wp.tid()
    for f in wp.mesh_query_sphere(id, centers[i], radius):
        hits[i, f] += 1


def _sphere_hits(kernel, mesh, centers, radius, num_faces):
    hits = wp.zeros((len(centers), num_faces), dtype=wp.int32)
    wp.launch(kernel, dim=len(centers), inputs=[mesh.id, wp.array(centers, dtype=wp.vec3), radius, hits])
    return hits.numpy()


@pytest.mark.parametrize("kernel", [sphere_faces, sphere_faces_for])
@pytest.mark.parametrize("leaf_size", [1, 8])
def test_sphere_query_reports_faces_within_the_radius_once(kernel, leaf_size):
    pts, tris = random_soup(400, seed=20)
    mesh = make_mesh(pts, tris, bvh_leaf_size=leaf_size)
    centers = np.random.default_rng(21).random((200, 3)).astype(np.float32)
    radius = 0.12
    hits = _sphere_hits(kernel, mesh, centers, radius, len(tris))
    d = np.sqrt(point_triangle_dist2(centers, pts[tris]))
    clear = np.abs(d - radius) > 1e-5  # faces within rounding of the sphere are left out
    expected = (d <= radius).astype(np.int32)
    assert hits.max() <= 1
    np.testing.assert_array_equal(hits[clear], expected[clear])
    assert expected.sum() > 200
    # a face whose bounding box overlaps the sphere's box but which lies outside is not reported
    boxes = np.all(
        (pts[tris].min(axis=1)[None] <= centers[:, None] + radius)
        & (pts[tris].max(axis=1)[None] >= centers[:, None] - radius),
        axis=2,
    )
    assert (boxes & (d > radius + 1e-3)).sum() > 50


def test_sphere_query_touching_and_negative_radius():
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    tris = np.array([[0, 1, 2]], np.int32)
    mesh = make_mesh(pts, tris)
    centers = np.array([[0.25, 0.25, 0.5], [0.25, 0.25, 0.5], [0.25, 0.25, 0.0], [2.0, 0.0, 0.0]], np.float32)
    got = [
        _sphere_hits(sphere_faces, mesh, centers[i : i + 1], r, 1)[0, 0]
        for i, r in enumerate((0.5, 0.49, -1.0, 1.0))
    ]
    # touching at distance exactly 0.5; just short of it; a point on the face with a negative
    # radius (clamped to 0); a sphere touching the vertex (1, 0, 0)
    assert got == [1, 0, 1, 1]


@wp.func
def count_faces(query: wp.MeshQuery) -> int:
    n = int(0)
    f = int(0)
    while wp.mesh_query_next(query, f):
        n += 1
    return n


@wp.kernel
def either_kind(
    id: wp.uint64,
    centers: wp.array(dtype=wp.vec3),
    radius: float,
    use_sphere: wp.array(dtype=int),
    n: wp.array(dtype=int),
):
    i = wp.tid()
    c = centers[i]
    r = wp.vec3(radius, radius, radius)
    query = wp.mesh_query_aabb(id, c - r, c + r)
    if use_sphere[i] == 1:
        query = wp.mesh_query_sphere(id, c, radius)
    n[i] = count_faces(query)
    # the older name advances the same queries
    m = int(0)
    f = int(0)
    q2 = wp.mesh_query_sphere(id, c, radius)
    while wp.mesh_query_aabb_next(q2, f):
        m += 1
    if use_sphere[i] == 2:
        n[i] = m


def test_query_kinds_share_one_type():
    pts, tris = random_soup(300, seed=22)
    mesh = make_mesh(pts, tris)
    centers = np.random.default_rng(23).random((90, 3)).astype(np.float32)
    radius = 0.1
    kind = np.arange(90) % 3
    n = wp.zeros(90, dtype=int)
    wp.launch(
        either_kind,
        dim=90,
        inputs=[mesh.id, wp.array(centers, dtype=wp.vec3), radius, wp.array(kind, dtype=int), n],
    )
    corners = pts[tris]
    boxes = np.all(
        (corners.min(axis=1)[None] <= centers[:, None] + radius)
        & (corners.max(axis=1)[None] >= centers[:, None] - radius),
        axis=2,
    ).sum(axis=1)
    within = (np.sqrt(point_triangle_dist2(centers, corners)) <= radius).sum(axis=1)
    expected = np.where(kind == 0, boxes, within)
    np.testing.assert_array_equal(n.numpy(), expected)
    assert (boxes > within).any()
    assert wp.MeshQuery is wp.MeshQueryAABB


@wp.kernel
def aabb_for(id: wp.uint64, lo: wp.vec3, hi: wp.vec3, hits: wp.array(dtype=wp.int32)):
    for f in wp.mesh_query_aabb(id, lo, hi):
        hits[f] += 1


def test_aabb_query_for_loop_matches_brute_force():
    pts, tris = random_soup(300, seed=24)
    mesh = make_mesh(pts, tris)
    lo, hi = np.array([0.2, 0.3, 0.1], np.float32), np.array([0.6, 0.5, 0.7], np.float32)
    hits = wp.zeros(300, dtype=wp.int32)
    wp.launch(aabb_for, dim=1, inputs=[mesh.id, wp.vec3(*lo), wp.vec3(*hi), hits])
    corners = pts[tris]
    ref = np.all((corners.min(axis=1) <= hi) & (corners.max(axis=1) >= lo), axis=1)
    np.testing.assert_array_equal(hits.numpy(), ref.astype(np.int32))
    assert ref.sum() > 10
