"""Spatial vector builtins in kernels, float32 and float64, checked against NumPy formulas."""

import functools

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import warp as wp

from composite_helpers import np_float

DTYPES = [wp.float32, wp.float64]
TOL = {wp.float32: 1e-4, wp.float64: 1e-11}
N = 32


def skew(v):
    x, y, z = v
    return np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])


def motion_cross_matrix(a):
    """Featherstone's crm(a): crm(a) @ b is the motion cross product a x b."""
    w, v = a[:3], a[3:]
    m = np.zeros((6, 6))
    m[:3, :3] = skew(w)
    m[3:, :3] = skew(v)
    m[3:, 3:] = skew(w)
    return m


def _make_kernels(dtype):
    sv = wp.types.vector(6, dtype)
    v3 = wp.types.vector(3, dtype)
    m33 = wp.types.matrix((3, 3), dtype)
    m66 = wp.types.matrix((6, 6), dtype)
    xf = wp.types.transformation(dtype)

    @wp.kernel
    def algebra(
        a: wp.array(dtype=sv),
        b: wp.array(dtype=sv),
        top: wp.array(dtype=v3),
        bottom: wp.array(dtype=v3),
        d: wp.array(dtype=dtype),
        cross: wp.array(dtype=sv),
        dual: wp.array(dtype=sv),
    ):
        i = wp.tid()
        top[i] = wp.spatial_top(a[i])
        bottom[i] = wp.spatial_bottom(a[i])
        d[i] = wp.spatial_dot(a[i], b[i])
        cross[i] = wp.spatial_cross(a[i], b[i])
        dual[i] = wp.spatial_cross_dual(a[i], b[i])

    @wp.kernel
    def frames(
        t: wp.array(dtype=xf),
        x: wp.array(dtype=sv),
        r: wp.array(dtype=m33),
        s: wp.array(dtype=m33),
        twist: wp.array(dtype=sv),
        wrench: wp.array(dtype=sv),
        adj: wp.array(dtype=m66),
        p: wp.array(dtype=v3),
        vel: wp.array(dtype=v3),
        built: wp.array(dtype=sv),
    ):
        i = wp.tid()
        twist[i] = wp.transform_twist(t[i], x[i])
        wrench[i] = wp.transform_wrench(t[i], x[i])
        adj[i] = wp.spatial_adjoint(r[i], s[i])
        vel[i] = wp.velocity_at_point(x[i], p[i])
        built[i] = sv(wp.spatial_top(x[i]), wp.spatial_bottom(x[i]))

    return dict(algebra=algebra, frames=frames)


#: the kernels of one float type, made on first use
kernels = functools.cache(_make_kernels)


@pytest.mark.parametrize("dtype", DTYPES)
def test_spatial_algebra(dtype):
    sv, v3 = wp.types.vector(6, dtype), wp.types.vector(3, dtype)
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(N, 6)), rng.normal(size=(N, 6))
    npd = np_float(dtype)
    top, bottom, cross, dual = (
        wp.zeros(N, dtype=v3),
        wp.zeros(N, dtype=v3),
        wp.zeros(N, dtype=sv),
        wp.zeros(N, dtype=sv),
    )
    d = wp.zeros(N, dtype=dtype)
    wp.launch(
        kernels(dtype)["algebra"],
        dim=N,
        inputs=[
            wp.array(a.astype(npd), dtype=sv),
            wp.array(b.astype(npd), dtype=sv),
            top,
            bottom,
            d,
            cross,
            dual,
        ],
    )
    tol = TOL[dtype] * 10
    np.testing.assert_array_equal(top.numpy(), a[:, :3].astype(npd))
    np.testing.assert_array_equal(bottom.numpy(), a[:, 3:].astype(npd))
    np.testing.assert_allclose(d.numpy(), np.sum(a * b, axis=1), atol=tol)
    crm = np.array([motion_cross_matrix(x) for x in a])
    np.testing.assert_allclose(cross.numpy(), np.einsum("nij,nj->ni", crm, b), atol=tol)
    # dual (force) cross product: crf(a) = -crm(a)^T
    np.testing.assert_allclose(dual.numpy(), np.einsum("nji,nj->ni", -crm, b), atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_transforms_of_spatial_vectors(dtype):
    sv, v3 = wp.types.vector(6, dtype), wp.types.vector(3, dtype)
    m33, m66, xf = (
        wp.types.matrix((3, 3), dtype),
        wp.types.matrix((6, 6), dtype),
        wp.types.transformation(dtype),
    )
    rng = np.random.default_rng(2)
    q = Rotation.random(N, random_state=3)
    p = rng.normal(size=(N, 3))
    t = np.concatenate([p, q.as_quat()], axis=1)
    x = rng.normal(size=(N, 6))
    r, s = rng.normal(size=(N, 3, 3)), rng.normal(size=(N, 3, 3))
    pt = rng.normal(size=(N, 3))
    npd = np_float(dtype)
    twist, wrench, built = wp.zeros(N, dtype=sv), wp.zeros(N, dtype=sv), wp.zeros(N, dtype=sv)
    adj, vel = wp.zeros(N, dtype=m66), wp.zeros(N, dtype=v3)
    wp.launch(
        kernels(dtype)["frames"],
        dim=N,
        inputs=[
            wp.array(t.astype(npd), dtype=xf),
            wp.array(x.astype(npd), dtype=sv),
            wp.array(r.astype(npd), dtype=m33),
            wp.array(s.astype(npd), dtype=m33),
            twist,
            wrench,
            adj,
            wp.array(pt.astype(npd), dtype=v3),
            vel,
            built,
        ],
    )
    tol = TOL[dtype] * 10
    rot = q.as_matrix()
    # Plucker transform of motion vectors: [[R, 0], [skew(p) R, R]]; of forces: [[R, skew(p) R], [0, R]]
    motion = np.zeros((N, 6, 6))
    force = np.zeros((N, 6, 6))
    for n in range(N):
        pr = skew(p[n]) @ rot[n]
        motion[n] = np.block([[rot[n], np.zeros((3, 3))], [pr, rot[n]]])
        force[n] = np.block([[rot[n], pr], [np.zeros((3, 3)), rot[n]]])
    np.testing.assert_allclose(twist.numpy(), np.einsum("nij,nj->ni", motion, x), atol=tol)
    np.testing.assert_allclose(wrench.numpy(), np.einsum("nij,nj->ni", force, x), atol=tol)
    expected_adj = np.zeros((N, 6, 6))
    expected_adj[:, :3, :3] = r
    expected_adj[:, 3:, :3] = s
    expected_adj[:, 3:, 3:] = r
    np.testing.assert_array_equal(adj.numpy(), expected_adj.astype(npd))
    np.testing.assert_allclose(vel.numpy(), np.cross(x[:, :3], pt) + x[:, 3:], atol=tol)
    np.testing.assert_array_equal(built.numpy(), x.astype(npd))


def test_spatial_vector_constructors():
    @wp.kernel
    def build(out: wp.array(dtype=wp.spatial_vector)):
        out[0] = wp.spatial_vector(wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0))
        out[1] = wp.spatial_vector(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
        out[2] = wp.spatial_vector()

    out = wp.zeros(3, dtype=wp.spatial_vector)
    wp.launch(build, dim=1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6], [0] * 6])
