"""Gradients of mesh query results (with respect to query points and rays) against analytic values."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from geomref import random_soup, uv_sphere
from mesh_util import make_mesh

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def distance_loss(id: wp.uint64, pts: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    p = pts[i]
    q = wp.mesh_query_point_no_sign(id, p, 1.0e6)
    cp = wp.mesh_eval_position(id, q.face, q.u, q.v)
    wp.atomic_add(loss, 0, wp.length(cp - p))


@wp.kernel
def distance_loss_outputs(id: wp.uint64, pts: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    p = pts[i]
    face = int(0)
    u = float(0.0)
    v = float(0.0)
    inside = float(0.0)
    if wp.mesh_query_point(id, p, 1.0e6, inside, face, u, v):
        cp = wp.mesh_eval_position(id, face, u, v)
        wp.atomic_add(loss, 0, wp.length(cp - p))


@pytest.mark.slow
def test_distance_gradient_is_the_unit_direction_from_the_closest_point():
    pts, tris = random_soup(200, seed=3)
    mesh = make_mesh(pts, tris)
    q = (np.random.default_rng(4).random((64, 3)) * 1.2 - 0.1).astype(np.float32)
    for kernel in (distance_loss, distance_loss_outputs):
        x = wp.array(q, dtype=wp.vec3, requires_grad=True)
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(kernel, dim=64, inputs=[mesh.id, x, loss])
        tape.backward(loss)
        cps = wp.zeros(64, dtype=wp.vec3)

        @wp.kernel
        def closest(id: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
            i = wp.tid()
            r = wp.mesh_query_point_no_sign(id, pts[i], 1.0e6)
            out[i] = wp.mesh_eval_position(id, r.face, r.u, r.v)

        wp.launch(closest, dim=64, inputs=[mesh.id, x, cps])
        direction = q - cps.numpy()
        direction /= np.linalg.norm(direction, axis=1, keepdims=True)
        np.testing.assert_allclose(x.grad.numpy(), direction, atol=2e-3)


@wp.kernel
def hit_distance(
    id: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)
):
    i = wp.tid()
    q = wp.mesh_query_ray(id, o[i], d[i], 1.0e6)
    if q.result:
        wp.atomic_add(loss, 0, q.t)


@wp.kernel
def hit_distance_outputs(
    id: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)
):
    i = wp.tid()
    t = float(0.0)
    u = float(0.0)
    v = float(0.0)
    sign = float(0.0)
    n = wp.vec3()
    f = int(0)
    if wp.mesh_query_ray(id, o[i], d[i], 1.0e6, t, u, v, sign, n, f):
        wp.atomic_add(loss, 0, t)


@pytest.mark.slow
def test_ray_distance_gradients_match_plane_formula():
    # rays from inside a sphere: t = n.(a - o) / n.d for the face hit, so
    # dt/do = -n / (n.d) and dt/dd = -t n / (n.d)
    pts, tris = uv_sphere(1.0, 10, 14)
    mesh = make_mesh(pts, tris)
    rng = np.random.default_rng(5)
    o = (rng.random((48, 3)) * 0.4 - 0.2).astype(np.float32)
    d = rng.normal(size=(48, 3)).astype(np.float32)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    for kernel in (hit_distance, hit_distance_outputs):
        wo = wp.array(o, dtype=wp.vec3, requires_grad=True)
        wd = wp.array(d, dtype=wp.vec3, requires_grad=True)
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(kernel, dim=48, inputs=[mesh.id, wo, wd, loss])
        tape.backward(loss)

        @wp.kernel
        def faces(
            id: wp.uint64,
            o: wp.array(dtype=wp.vec3),
            d: wp.array(dtype=wp.vec3),
            n: wp.array(dtype=wp.vec3),
            t: wp.array(dtype=float),
        ):
            i = wp.tid()
            q = wp.mesh_query_ray(id, o[i], d[i], 1.0e6)
            n[i] = q.normal
            t[i] = q.t

        n, t = wp.zeros(48, dtype=wp.vec3), wp.zeros(48, dtype=float)
        wp.launch(faces, dim=48, inputs=[mesh.id, wo, wd, n, t])
        n, t = n.numpy().astype(np.float64), t.numpy().astype(np.float64)
        nd = np.einsum("ij,ij->i", n, d)
        np.testing.assert_allclose(wo.grad.numpy(), -n / nd[:, None], rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(wd.grad.numpy(), -(t / nd)[:, None] * n, rtol=1e-3, atol=1e-4)


def _loss_for_points(kernel, verts, tris, q) -> float:
    mesh = make_mesh(verts.astype(np.float32), tris)
    loss = wp.zeros(1, dtype=float)
    wp.launch(kernel, dim=len(q), inputs=[mesh.id, wp.array(q, dtype=wp.vec3), loss])
    return float(loss.numpy()[0])


def test_gradients_reach_the_mesh_points():
    # a sphere and query points off its surface: the summed distances depend smoothly on the
    # vertices (each point keeps its closest face under small moves)
    pts, tris = uv_sphere(1.0, 8, 12)
    q = (np.random.default_rng(41).normal(size=(60, 3)) * 0.9).astype(np.float32)
    points = wp.array(pts, dtype=wp.vec3, requires_grad=True)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32))
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(distance_loss, dim=len(q), inputs=[mesh.id, wp.array(q, dtype=wp.vec3), loss])
    tape.backward(loss)
    grad = points.grad.numpy()
    assert np.abs(grad).max() > 0.1
    # central differences in float64 vertex offsets, for a sample of coordinates
    h = 1e-3
    rng = np.random.default_rng(42)
    for k in rng.choice(len(pts) * 3, size=24, replace=False):
        v, c = divmod(int(k), 3)
        plus, minus = pts.astype(np.float64).copy(), pts.astype(np.float64).copy()
        plus[v, c] += h
        minus[v, c] -= h
        fd = (
            _loss_for_points(distance_loss, plus, tris, q) - _loss_for_points(distance_loss, minus, tris, q)
        ) / (2 * h)
        assert abs(grad[v, c] - fd) < 2e-2 * max(1.0, abs(fd)), (v, c, grad[v, c], fd)


@wp.kernel
def eval_loss(
    id: wp.uint64, faces: wp.array(dtype=int), uv: wp.array(dtype=wp.vec2), loss: wp.array(dtype=float)
):
    i = wp.tid()
    x = wp.mesh_eval_position(id, faces[i], uv[i][0], uv[i][1])
    w = wp.mesh_eval_velocity(id, faces[i], uv[i][0], uv[i][1])
    wp.atomic_add(loss, 0, wp.dot(x, wp.vec3(1.0, 2.0, 3.0)) + wp.dot(w, wp.vec3(-1.0, 0.5, 0.0)))


def test_mesh_eval_gradients_are_the_barycentric_weights():
    pts, tris = random_soup(20, seed=43)
    points = wp.array(pts, dtype=wp.vec3, requires_grad=True)
    vel = wp.array(np.ones_like(pts), dtype=wp.vec3, requires_grad=True)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32), velocities=vel)
    rng = np.random.default_rng(44)
    faces = rng.integers(0, 20, 50)
    uv = rng.random((50, 2)).astype(np.float32) * 0.5
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(
            eval_loss, dim=50, inputs=[mesh.id, wp.array(faces, dtype=int), wp.array(uv, dtype=wp.vec2), loss]
        )
    tape.backward(loss)
    weights = np.zeros(len(pts))
    for f, (u, v) in zip(faces, uv.astype(np.float64)):
        a, b, c = tris[f]
        weights[a] += u
        weights[b] += v
        weights[c] += 1.0 - u - v
    np.testing.assert_allclose(points.grad.numpy(), weights[:, None] * [1.0, 2.0, 3.0], atol=1e-5)
    np.testing.assert_allclose(vel.grad.numpy(), weights[:, None] * [-1.0, 0.5, 0.0], atol=1e-5)
    # a mesh whose points have no gradient array: the backward pass runs and writes nothing
    plain = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32))
    loss2 = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(
            eval_loss,
            dim=50,
            inputs=[plain.id, wp.array(faces, dtype=int), wp.array(uv, dtype=wp.vec2), loss2],
        )
    tape.backward(loss2)
    assert plain.points.grad is None


@wp.func
def _triangle_area(mesh_id: wp.uint64, tri: int):
    m = wp.mesh_get(mesh_id)
    i, j, k = m.indices[tri * 3 + 0], m.indices[tri * 3 + 1], m.indices[tri * 3 + 2]
    a = m.points[i]
    return wp.length(wp.cross(m.points[j] - a, m.points[k] - a)) * 0.5


@wp.kernel
def _area_loss(mesh_id: wp.uint64, loss: wp.array(dtype=float)):
    wp.atomic_add(loss, 0, _triangle_area(mesh_id, wp.tid()))


def test_gradients_reach_mesh_points_read_in_a_user_function():
    # the function has no differentiable parameter (an id and an index), yet its adjoint must
    # accumulate into the gradient of the mesh points it reads through wp.mesh_get
    pts, tris = random_soup(6, seed=45)
    points = wp.array(pts, dtype=wp.vec3, requires_grad=True)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32))
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_area_loss, dim=len(tris), inputs=[mesh.id, loss])
    tape.backward(loss)
    expected = np.zeros((len(pts), 3))
    p = pts.astype(np.float64)
    for a, b, c in tris:  # d area / d vertex = 0.5 * n x (opposite edge), n the unit normal
        n = np.cross(p[b] - p[a], p[c] - p[a])
        n /= np.linalg.norm(n)
        expected[a] += 0.5 * np.cross(n, p[c] - p[b])
        expected[b] += 0.5 * np.cross(n, p[a] - p[c])
        expected[c] += 0.5 * np.cross(n, p[b] - p[a])
    np.testing.assert_allclose(points.grad.numpy(), expected, atol=1e-4)
