"""mesh_query_ray_anyhit and mesh_query_ray_count_intersections against brute-force NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from geomref import random_soup, ray_hit_counts, torus, torus_distance, torus_inside, torus_points
from mesh_util import make_mesh

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def anyhit(
    id: wp.uint64,
    o: wp.array(dtype=wp.vec3),
    d: wp.array(dtype=wp.vec3),
    max_t: float,
    out: wp.array(dtype=int),
):
    i = wp.tid()
    out[i] = int(wp.mesh_query_ray_anyhit(id, o[i], d[i], max_t))


@wp.kernel
def anyhit_root(
    id: wp.uint64,
    o: wp.array(dtype=wp.vec3),
    d: wp.array(dtype=wp.vec3),
    max_t: float,
    root: int,
    out: wp.array(dtype=int),
):
    i = wp.tid()
    out[i] = int(wp.mesh_query_ray_anyhit(id, o[i], d[i], max_t, root))


@wp.kernel
def count(id: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp.mesh_query_ray_count_intersections(id, o[i], d[i])


@wp.kernel
def count_root(
    id: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), root: int, out: wp.array(dtype=int)
):
    i = wp.tid()
    out[i] = wp.mesh_query_ray_count_intersections(id, o[i], d[i], root)


def _rays(n, seed):
    rng = np.random.default_rng(seed)
    o = (rng.random((n, 3)) * 1.6 - 0.3).astype(np.float32)
    d = rng.normal(size=(n, 3))
    d = (d / np.linalg.norm(d, axis=1, keepdims=True)).astype(np.float32)
    return o, d


def _launch(kernel, mesh, o, d, *extra):
    out = wp.zeros(len(o), dtype=int)
    wp.launch(
        kernel,
        dim=len(o),
        inputs=[mesh.id, wp.array(o, dtype=wp.vec3), wp.array(d, dtype=wp.vec3), *extra, out],
    )
    return out.numpy()


@pytest.mark.parametrize("max_t", [0.4, 1.0e6])
@pytest.mark.parametrize("constructor", [None, "lbvh"])
def test_anyhit_matches_brute_force(max_t, constructor):
    pts, tris = random_soup(600, seed=5, size=0.2)
    mesh = make_mesh(pts, tris, bvh_constructor=constructor)
    o, d = _rays(2000, seed=6)
    counts, margin = ray_hit_counts(o, d, pts[tris], max_t)
    clear = margin > 1e-4
    got = _launch(anyhit, mesh, o, d, max_t)
    expected = (counts > 0).astype(int)
    assert clear.sum() > 1800 and 0.1 < expected[clear].mean() < 0.95
    np.testing.assert_array_equal(got[clear], expected[clear])
    # root -1 is the whole mesh; a root past the last node searches nothing
    np.testing.assert_array_equal(_launch(anyhit_root, mesh, o, d, max_t, -1), got)
    assert not _launch(anyhit_root, mesh, o, d, max_t, 10**6).any()


def test_count_intersections_matches_brute_force():
    pts, tris = random_soup(400, seed=7)
    mesh = make_mesh(pts, tris)
    o, d = _rays(2000, seed=8)
    counts, margin = ray_hit_counts(o, d, pts[tris])
    clear = margin > 1e-4
    got = _launch(count, mesh, o, d)
    assert clear.sum() > 1800 and counts[clear].max() >= 3
    np.testing.assert_array_equal(got[clear], counts[clear])
    np.testing.assert_array_equal(_launch(count_root, mesh, o, d, -1), got)
    # the count does not depend on the length of dir
    np.testing.assert_array_equal(_launch(count, mesh, o, (d * 7.5).astype(np.float32)), got)


def test_count_parity_tells_inside_of_a_closed_mesh():
    pts, tris = torus()
    mesh = make_mesh(pts, tris)
    _, d = _rays(3000, seed=9)
    o = torus_points(3000, seed=10)
    counts, margin = ray_hit_counts(o, d, pts[tris])
    clear = margin > 1e-4
    got = _launch(count, mesh, o, d)
    np.testing.assert_array_equal(got[clear], counts[clear])
    # on a closed mesh, crossing parity is the same along any ray from the same point
    flipped = _launch(count, mesh, o, -d)
    _, margin2 = ray_hit_counts(o, -d, pts[tris])
    both = clear & (margin2 > 1e-4)
    np.testing.assert_array_equal(got[both] % 2, flipped[both] % 2)
    assert 0.2 < (got[both] % 2).mean() < 0.8
    far = both & (np.abs(torus_distance(o)) > 0.02)
    np.testing.assert_array_equal(got[far] % 2 == 1, torus_inside(o[far]))


@pytest.mark.parametrize("constructor", [None, "lbvh"])
def test_ray_parallel_to_a_slab_with_its_start_on_a_box_face_hits(constructor):
    # a flat quad at z = 0 over [0, 2]^2: its boxes are flat in z and have faces at x, y = 0 and 2
    pts = np.array([[0, 0, 0], [2, 0, 0], [2, 2, 0], [0, 2, 0]], dtype=np.float32)
    tris = np.array([[0, 1, 2], [0, 2, 3]], dtype=np.int32)
    mesh = make_mesh(pts, tris, bvh_constructor=constructor)
    # rays straight down (dir x = y = 0) starting on each face of the box, one inside, two outside
    o = np.array(
        [[2, 1, 1], [0, 1, 1], [1, 2, 1], [1, 0, 1], [1, 1, 1], [2.01, 1, 1], [1, -0.01, 1]], dtype=np.float32
    )
    d = np.tile(np.array([0.0, 0.0, -1.0], dtype=np.float32), (len(o), 1))
    expected = [1, 1, 1, 1, 1, 0, 0]
    np.testing.assert_array_equal(_launch(anyhit, mesh, o, d, 10.0), expected)
    hits = _launch(count, mesh, o, d)
    np.testing.assert_array_equal(hits > 0, np.array(expected, dtype=bool))
