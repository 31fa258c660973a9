"""Gradients of mesh query results (with respect to query points and rays) against analytic values."""

from __future__ import annotations

import numpy as np

import warp as wp
from geomref import random_soup, uv_sphere


def _mesh(pts, tris):
    return wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32))


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


def test_distance_gradient_is_the_unit_direction_from_the_closest_point():
    pts, tris = random_soup(200, seed=3)
    mesh = _mesh(pts, tris)
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


def test_ray_distance_gradients_match_plane_formula():
    # rays from inside a sphere: t = n.(a - o) / n.d for the face hit, so
    # dt/do = -n / (n.d) and dt/dd = -t n / (n.d)
    pts, tris = uv_sphere(1.0, 10, 14)
    mesh = _mesh(pts, tris)
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
