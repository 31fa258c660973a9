"""wp.Mesh kernel queries against brute-force NumPy references."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from geomref import closest_faces, random_soup, ray_hits, solid_angle_winding, torus, torus_inside, uv_sphere
from mesh_util import make_mesh

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def closest_struct(
    id: wp.uint64,
    pts: wp.array(dtype=wp.vec3),
    max_dist: float,
    found: wp.array(dtype=wp.int32),
    face: wp.array(dtype=wp.int32),
    pos: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(id, pts[i], max_dist)
    if q.result:
        found[i] = 1
        face[i] = q.face
        pos[i] = wp.mesh_eval_position(id, q.face, q.u, q.v)


@wp.kernel
def closest_outputs(
    id: wp.uint64,
    pts: wp.array(dtype=wp.vec3),
    max_dist: float,
    found: wp.array(dtype=wp.int32),
    face: wp.array(dtype=wp.int32),
    pos: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    f = int(-7)
    u = float(0.0)
    v = float(0.0)
    if wp.mesh_query_point_no_sign(id, pts[i], max_dist, f, u, v):
        found[i] = 1
        pos[i] = wp.mesh_eval_position(id, f, u, v)
    face[i] = f


@pytest.mark.parametrize("kernel", [closest_struct, closest_outputs])
def test_closest_point_matches_brute_force(kernel):
    pts, tris = random_soup(400, seed=1)
    mesh = make_mesh(pts, tris)
    q = np.random.default_rng(2).random((300, 3)).astype(np.float32) * 1.4 - 0.2
    found, face, pos = (
        wp.zeros(300, dtype=wp.int32),
        wp.zeros(300, dtype=wp.int32),
        wp.zeros(300, dtype=wp.vec3),
    )
    wp.launch(kernel, dim=300, inputs=[mesh.id, wp.array(q, dtype=wp.vec3), 1.0e6, found, face, pos])
    ref_face, ref_d2 = closest_faces(q, pts[tris])
    assert found.numpy().all()
    got_d = np.linalg.norm(pos.numpy() - q, axis=1)
    np.testing.assert_allclose(got_d, np.sqrt(ref_d2), rtol=1e-4, atol=1e-5)
    # the face is the brute-force one unless another face is (numerically) as close
    same = face.numpy() == ref_face
    assert same.mean() > 0.97


def test_closest_point_respects_max_dist():
    pts, tris = random_soup(100, seed=3)
    mesh = make_mesh(pts, tris)
    q = np.random.default_rng(4).random((200, 3)).astype(np.float32) * 3.0 - 1.0
    max_dist = 0.15
    found, face, pos = (
        wp.zeros(200, dtype=wp.int32),
        wp.full(200, -7, dtype=wp.int32),
        wp.zeros(200, dtype=wp.vec3),
    )
    wp.launch(
        closest_outputs, dim=200, inputs=[mesh.id, wp.array(q, dtype=wp.vec3), max_dist, found, face, pos]
    )
    _, ref_d2 = closest_faces(q, pts[tris])
    clear = np.abs(np.sqrt(ref_d2) - max_dist) > 1e-4
    np.testing.assert_array_equal(found.numpy()[clear], (np.sqrt(ref_d2) <= max_dist)[clear].astype(np.int32))
    assert (face.numpy()[found.numpy() == 0] == -7).all()  # outputs untouched when nothing is found


@wp.kernel
def signs(id: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a = wp.mesh_query_point(id, pts[i], 1.0e6)
    b = wp.mesh_query_point_sign_normal(id, pts[i], 1.0e6)
    c = wp.mesh_query_point_sign_winding_number(id, pts[i], 1.0e6)
    out[i] = wp.vec3(a.sign, b.sign, c.sign)


@pytest.mark.parametrize("shape", ["sphere", "torus"])
def test_inside_outside_signs(shape):
    if shape == "sphere":
        pts, tris = uv_sphere(1.0, 12, 18)
        rng = np.random.default_rng(5)
        q = (rng.random((400, 3)) * 3 - 1.5).astype(np.float32)
        r = np.linalg.norm(q, axis=1)
        keep = np.abs(r - 0.97) > 0.06  # away from the faceted surface
        q, inside = q[keep], r[keep] < 0.97
    else:
        pts, tris = torus()
        rng = np.random.default_rng(6)
        q = (rng.random((600, 3)) * np.array([3, 3, 1]) - np.array([1.5, 1.5, 0.5])).astype(np.float32)
        inner = torus_inside(q, r=0.30)
        outer = torus_inside(q, r=0.40)
        keep = inner | ~outer
        q, inside = q[keep], inner[keep]
    mesh = make_mesh(pts, tris, support_winding_number=True)
    out = wp.zeros(len(q), dtype=wp.vec3)
    wp.launch(signs, dim=len(q), inputs=[mesh.id, wp.array(q, dtype=wp.vec3), out])
    expected = np.where(inside, -1.0, 1.0)
    for k, method in enumerate(["rays", "normal", "winding number"]):
        np.testing.assert_array_equal(out.numpy()[:, k], expected, err_msg=method)
    assert inside.sum() > 20 and (~inside).sum() > 20


@wp.kernel
def winding_sign(id: wp.uint64, pts: wp.array(dtype=wp.vec3), threshold: float, out: wp.array(dtype=float)):
    i = wp.tid()
    inside = float(0.0)
    face = int(0)
    u = float(0.0)
    v = float(0.0)
    wp.mesh_query_point_sign_winding_number(id, pts[i], 1.0e6, inside, face, u, v, 2.0, threshold)
    out[i] = inside


@pytest.mark.parametrize("threshold", [0.25, 0.5, 0.75])
def test_winding_number_of_open_mesh_against_solid_angles(threshold):
    pts, tris = uv_sphere(1.0, 12, 18)
    centroids = pts[tris].mean(axis=1)
    tris = tris[centroids[:, 2] < 0.5]  # cut a cap off: winding numbers between 0 and 1
    mesh = make_mesh(pts, tris, support_winding_number=True)
    q = (np.random.default_rng(7).random((500, 3)) * 2.4 - 1.2).astype(np.float32)
    w = solid_angle_winding(q, pts[tris])
    out = wp.zeros(len(q), dtype=float)
    wp.launch(winding_sign, dim=len(q), inputs=[mesh.id, wp.array(q, dtype=wp.vec3), threshold, out])
    clear = np.abs(w - threshold) > 0.02
    np.testing.assert_array_equal(out.numpy()[clear], np.where(w > threshold, -1.0, 1.0)[clear])
    assert ((w > 0.1) & (w < 0.9)).sum() > 30


@wp.kernel
def cast(
    id: wp.uint64,
    o: wp.array(dtype=wp.vec3),
    d: wp.array(dtype=wp.vec3),
    max_t: float,
    face: wp.array(dtype=wp.int32),
    t: wp.array(dtype=float),
    hit_pos: wp.array(dtype=wp.vec3),
    normal: wp.array(dtype=wp.vec3),
    sign: wp.array(dtype=float),
):
    i = wp.tid()
    q = wp.mesh_query_ray(id, o[i], d[i], max_t)
    face[i] = -1
    if q.result:
        face[i] = q.face
        t[i] = q.t
        hit_pos[i] = wp.mesh_eval_position(id, q.face, q.u, q.v)
        normal[i] = q.normal
        sign[i] = q.sign


@pytest.mark.parametrize("max_t,constructor", [(1.0e6, None), (0.5, None), (1.0e6, "lbvh")])
def test_ray_cast_matches_brute_force(max_t, constructor):
    pts, tris = random_soup(1000, seed=8, size=0.25)
    mesh = make_mesh(pts, tris, bvh_constructor=constructor)
    rng = np.random.default_rng(9)
    n = 400
    o = (rng.random((n, 3)) * 1.6 - 0.3).astype(np.float32)
    d = rng.normal(size=(n, 3)).astype(np.float32)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    out = [
        wp.zeros(n, dtype=wp.int32),
        wp.zeros(n, dtype=float),
        wp.zeros(n, dtype=wp.vec3),
        wp.zeros(n, dtype=wp.vec3),
        wp.zeros(n, dtype=float),
    ]
    wp.launch(
        cast, dim=n, inputs=[mesh.id, wp.array(o, dtype=wp.vec3), wp.array(d, dtype=wp.vec3), max_t, *out]
    )
    face, t, pos, normal, sign = (a.numpy() for a in out)
    ref_face, ref_t = ray_hits(o, d, pts[tris], max_t)
    hit = ref_face >= 0
    assert hit.sum() > 60
    agree = face == ref_face  # rays grazing an edge may pick either neighbour
    assert agree.mean() > 0.98
    both = hit & agree
    np.testing.assert_allclose(t[both], ref_t[both], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(pos[both], o[both] + ref_t[both, None] * d[both], atol=2e-5)
    tri = pts[tris[face[both]]].astype(np.float64)
    n_ref = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    n_ref /= np.linalg.norm(n_ref, axis=1, keepdims=True)
    np.testing.assert_allclose(normal[both], n_ref, atol=1e-5)
    np.testing.assert_array_equal(sign[both], np.where(np.einsum("ij,ij->i", d[both], n_ref) < 0, 1.0, -1.0))


@pytest.mark.parametrize("leaf_size", [1, 4, 8])
def test_exact_ties_go_to_the_lowest_face_index(leaf_size):
    """Each triangle appears three times (shuffled, same corners, so exactly the same distances):
    every query must report the lowest index of its closest/first-hit triangle, whatever order
    the traversal meets the copies in."""
    pts, tris = random_soup(300, seed=11, size=0.2)
    rng = np.random.default_rng(12)
    copies = np.concatenate([tris, tris, tris])
    perm = rng.permutation(len(copies))
    copies = copies[perm]
    original = perm % len(tris)  # which triangle each face is
    lowest = np.full(len(tris), len(copies))
    np.minimum.at(lowest, original, np.arange(len(copies)))
    mesh = make_mesh(pts, copies, bvh_leaf_size=leaf_size)
    n = 300
    q = (rng.random((n, 3)) * 1.4 - 0.2).astype(np.float32)
    found, face, pos = (wp.zeros(n, dtype=wp.int32), wp.zeros(n, dtype=wp.int32), wp.zeros(n, dtype=wp.vec3))
    wp.launch(closest_struct, dim=n, inputs=[mesh.id, wp.array(q, dtype=wp.vec3), 1.0e6, found, face, pos])
    f = face.numpy()
    np.testing.assert_array_equal(f, lowest[original[f]])
    d = rng.normal(size=(n, 3)).astype(np.float32)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    out = [wp.zeros(n, dtype=t) for t in (wp.int32, float, wp.vec3, wp.vec3, float)]
    inputs = [mesh.id, wp.array(q, dtype=wp.vec3), wp.array(d, dtype=wp.vec3), 1.0e6, *out]
    wp.launch(cast, dim=n, inputs=inputs)
    f = out[0].numpy()
    hit = f >= 0
    assert hit.sum() > 30
    np.testing.assert_array_equal(f[hit], lowest[original[f[hit]]])


@wp.kernel
def aabb_faces(id: wp.uint64, lo: wp.vec3, hi: wp.vec3, hits: wp.array(dtype=wp.int32)):
    query = wp.mesh_query_aabb(id, lo, hi)
    f = int(0)
    while wp.mesh_query_aabb_next(query, f):
        hits[f] += 1


def test_aabb_query_reports_overlapping_face_boxes_once():
    pts, tris = random_soup(300, seed=10)
    mesh = make_mesh(pts, tris)
    lo, hi = np.array([0.2, 0.3, 0.1], np.float32), np.array([0.6, 0.5, 0.7], np.float32)
    hits = wp.zeros(300, dtype=wp.int32)
    wp.launch(aabb_faces, dim=1, inputs=[mesh.id, wp.vec3(*lo), wp.vec3(*hi), hits])
    corners = pts[tris]
    ref = np.all((corners.min(axis=1) <= hi) & (corners.max(axis=1) >= lo), axis=1)
    np.testing.assert_array_equal(hits.numpy(), ref.astype(np.int32))
    assert ref.sum() > 10
