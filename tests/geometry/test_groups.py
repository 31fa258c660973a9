"""Grouped meshes and BVHs: mesh_get_group_root / bvh_get_group_root and the queries' ``root``."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from geomref import random_soup, ray_hit_counts, ray_hits

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def group1_only(mesh_id: wp.uint64, origin: wp.vec3, dir: wp.vec3, out_face: wp.array(dtype=wp.int32)):
    root = wp.mesh_get_group_root(mesh_id, 1)
    hit = wp.mesh_query_ray(mesh_id, origin, dir, 1.0e6, root)
    if hit.result:
        out_face[0] = hit.face


def test_documented_mesh_group_example():
    points = wp.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 5], [1, 0, 5], [0, 1, 5]], dtype=wp.vec3)
    indices = wp.array([0, 1, 2, 3, 4, 5], dtype=wp.int32)
    groups = wp.array([0, 1], dtype=wp.int32)
    mesh = wp.Mesh(points=points, indices=indices, groups=groups)
    out_face = wp.full(1, -1, dtype=wp.int32)
    wp.launch(
        group1_only,
        dim=1,
        inputs=[mesh.id, wp.vec3(0.1, 0.1, -1.0), wp.vec3(0.0, 0.0, 1.0)],
        outputs=[out_face],
    )
    assert out_face.numpy()[0] == 1


@wp.kernel
def grouped_rays(
    id: wp.uint64,
    group: int,
    o: wp.array(dtype=wp.vec3),
    d: wp.array(dtype=wp.vec3),
    face: wp.array(dtype=wp.int32),
    anyhit: wp.array(dtype=wp.int32),
    count: wp.array(dtype=wp.int32),
    root_out: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    root = wp.mesh_get_group_root(id, group)
    root_out[i] = root
    q = wp.mesh_query_ray(id, o[i], d[i], 1.0e6, root)
    face[i] = -1
    if q.result:
        face[i] = q.face
    t = float(0.0)
    u = float(0.0)
    v = float(0.0)
    s = float(0.0)
    n = wp.vec3()
    f = int(-1)
    if wp.mesh_query_ray(id, o[i], d[i], 1.0e6, t, u, v, s, n, f, root):
        if f != face[i]:
            face[i] = -2
    anyhit[i] = int(wp.mesh_query_ray_anyhit(id, o[i], d[i], 1.0e6, root))
    count[i] = wp.mesh_query_ray_count_intersections(id, o[i], d[i], root)


@pytest.mark.parametrize("constructor", [None, "lbvh"])
@pytest.mark.parametrize("leaf_size", [1, 4])
def test_group_roots_confine_ray_queries_to_the_group(constructor, leaf_size):
    pts, tris = random_soup(500, seed=30, size=0.2)
    group_of = np.random.default_rng(31).choice([-4, 0, 2, 3, 7], size=len(tris)).astype(np.int32)
    mesh = wp.Mesh(
        wp.array(pts, dtype=wp.vec3),
        wp.array(tris.reshape(-1), dtype=wp.int32),
        groups=wp.array(group_of, dtype=wp.int32),
        bvh_constructor=constructor,
        bvh_leaf_size=leaf_size,
    )
    rng = np.random.default_rng(32)
    n = 800
    o = (rng.random((n, 3)) * 1.6 - 0.3).astype(np.float32)
    d = rng.normal(size=(n, 3))
    d = (d / np.linalg.norm(d, axis=1, keepdims=True)).astype(np.float32)
    for group in (-4, 0, 2, 3, 7, 5):
        outs = [wp.zeros(n, dtype=wp.int32) for _ in range(4)]
        wp.launch(
            grouped_rays,
            dim=n,
            inputs=[mesh.id, group, wp.array(o, dtype=wp.vec3), wp.array(d, dtype=wp.vec3), *outs],
        )
        face, anyhit, count, root = (a.numpy() for a in outs)
        members = np.flatnonzero(group_of == group) if group != 5 else np.arange(len(tris))
        assert (root == -1).all() == (group == 5)
        ref_face, _ = ray_hits(o, d, pts[tris[members]])
        ref_count, margin = ray_hit_counts(o, d, pts[tris[members]])
        clear = margin > 1e-4
        expected_face = np.where(ref_face >= 0, members[np.maximum(ref_face, 0)], -1)
        np.testing.assert_array_equal(face[clear], expected_face[clear])
        np.testing.assert_array_equal(count[clear], ref_count[clear])
        np.testing.assert_array_equal(anyhit[clear], (ref_count[clear] > 0).astype(np.int32))
        assert (ref_count[clear] > 0).mean() > 0.03


def test_grouped_mesh_refit_keeps_the_groups():
    pts, tris = random_soup(100, seed=33)
    group_of = (np.arange(100) % 2).astype(np.int32)
    points = wp.array(pts, dtype=wp.vec3)
    mesh = wp.Mesh(
        points, wp.array(tris.reshape(-1), dtype=wp.int32), groups=wp.array(group_of, dtype=wp.int32)
    )
    points.assign(pts + np.float32(2.0))
    mesh.refit()
    o = (
        np.full((100, 3), -1.0, np.float32)
        + np.random.default_rng(34).random((100, 3)).astype(np.float32) * 0.2
    )
    d = (pts[tris].mean(axis=1) + 2.0 - o).astype(np.float32)  # towards each face's new centroid
    outs = [wp.zeros(100, dtype=wp.int32) for _ in range(4)]
    wp.launch(
        grouped_rays,
        dim=100,
        inputs=[mesh.id, 1, wp.array(o, dtype=wp.vec3), wp.array(d, dtype=wp.vec3), *outs],
    )
    members = np.flatnonzero(group_of == 1)
    ref_face, _ = ray_hits(o, d, pts[tris[members]] + 2.0)
    np.testing.assert_array_equal(
        outs[0].numpy(), np.where(ref_face >= 0, members[np.maximum(ref_face, 0)], -1)
    )
    assert (outs[0].numpy()[1::2] >= 0).all()  # rays aimed at group-1 faces hit group 1


@wp.kernel
def query_group(
    bvh_id: wp.uint64,
    lowers: wp.array(dtype=wp.vec3),
    uppers: wp.array(dtype=wp.vec3),
    lo: wp.vec3,
    hi: wp.vec3,
    centers: wp.array(dtype=wp.vec3),
):
    root = wp.bvh_get_group_root(bvh_id, 1)
    query = wp.bvh_query_aabb(bvh_id, lo, hi, root)
    item = int(0)
    while wp.bvh_query_next(query, item):
        centers[item] = 0.5 * (lowers[item] + uppers[item])


def test_documented_bvh_group_example():
    lowers = wp.array([[0, 0, 0], [2, 0, 0], [4, 0, 0]], dtype=wp.vec3)
    uppers = wp.array([[1, 1, 1], [3, 1, 1], [5, 1, 1]], dtype=wp.vec3)
    groups = wp.array([0, 0, 1], dtype=wp.int32)
    bvh = wp.Bvh(lowers=lowers, uppers=uppers, groups=groups)
    centers = wp.zeros(3, dtype=wp.vec3)
    wp.launch(
        query_group,
        dim=1,
        inputs=[bvh.id, lowers, uppers, wp.vec3(-1.0, -1.0, -1.0), wp.vec3(6.0, 6.0, 6.0)],
        outputs=[centers],
    )
    assert centers.numpy().tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [4.5, 0.5, 0.5]]


@wp.kernel
def bvh_group_hits(
    bvh_id: wp.uint64,
    group: int,
    lo: wp.array(dtype=wp.vec3),
    hi: wp.array(dtype=wp.vec3),
    hits: wp.array2d(dtype=int),
):
    i = wp.tid()
    for item in wp.bvh_query_aabb(bvh_id, lo[i], hi[i], wp.bvh_get_group_root(bvh_id, group)):
        hits[i, item] += 1


@pytest.mark.parametrize("constructor", [None, "lbvh"])
def test_bvh_group_queries_match_brute_force(constructor):
    rng = np.random.default_rng(35)
    n = 400
    lowers = rng.random((n, 3)).astype(np.float32)
    uppers = lowers + 0.05
    group_of = rng.integers(0, 6, n).astype(np.int32)
    bvh = wp.Bvh(
        wp.array(lowers, dtype=wp.vec3),
        wp.array(uppers, dtype=wp.vec3),
        constructor,
        groups=wp.array(group_of, dtype=wp.int32),
    )
    qlo = rng.random((50, 3)).astype(np.float32) * 0.8
    qhi = qlo + 0.2
    for group in range(6):
        hits = wp.zeros((50, n), dtype=int)
        wp.launch(
            bvh_group_hits,
            dim=50,
            inputs=[bvh.id, group, wp.array(qlo, dtype=wp.vec3), wp.array(qhi, dtype=wp.vec3), hits],
        )
        overlap = np.all((lowers[None] <= qhi[:, None]) & (uppers[None] >= qlo[:, None]), axis=2)
        expected = overlap & (group_of == group)[None]
        np.testing.assert_array_equal(hits.numpy(), expected.astype(int))
        assert expected.sum() > 20


def test_groups_argument_errors():
    pts = wp.array(np.eye(3, dtype=np.float32), dtype=wp.vec3)
    idx = wp.array([0, 1, 2], dtype=wp.int32)
    with pytest.raises(TypeError, match="wp.Mesh: 'groups' must be a 1-d wp.array of int32"):
        wp.Mesh(pts, idx, groups=wp.array([0.0], dtype=float))
    with pytest.raises(
        ValueError, match=r"wp.Mesh: 'groups' holds 2 values, expected one per triangle \(1\)"
    ):
        wp.Mesh(pts, idx, groups=wp.array([0, 1], dtype=wp.int32))
    with pytest.raises(ValueError, match=r"wp.Bvh: 'groups' holds 1 values, expected one per box \(3\)"):
        wp.Bvh(pts, pts, groups=wp.array([0], dtype=wp.int32))
