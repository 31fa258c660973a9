"""Vector, matrix and quaternion builtins (from warp-builtins): adjoint vs. finite differences in
float64. Each kernel writes one scalar per thread built from the builtin's result, so every
component of the result is exercised. Skipped when a builtin is not installed."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from adutil import F, check_builtin_case, f64, msum, vsum

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

V3, M33, Q = wp.vec3d, wp.mat33d, wp.quatd
RNG = np.random.default_rng(7)
N = 4


def vec3s():
    return wp.array(RNG.normal(size=(N, 3)), dtype=V3)


def mat33s():
    return wp.array(RNG.normal(size=(N, 3, 3)) + 3 * np.eye(3), dtype=M33)


@wp.kernel
def k_vec_ops(a: wp.array(dtype=V3), b: wp.array(dtype=V3), s: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    u = a[i]
    v = b[i]
    w = (u + v) * s[i] - v / s[i] + s[i] * (-u) - (u - v)
    y[i] = vsum(w) + F(2.0) / s[i] * vsum(+v)


@wp.kernel
def k_dot_cross(a: wp.array(dtype=V3), b: wp.array(dtype=V3), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.dot(a[i], b[i]) * vsum(wp.cross(a[i], b[i]))


@wp.kernel
def k_length_normalize(a: wp.array(dtype=V3), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.length(a[i]) + F(3.0) * wp.length_sq(a[i]) + vsum(wp.normalize(a[i]))


@wp.kernel
def k_cw(a: wp.array(dtype=V3), b: wp.array(dtype=V3), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = vsum(wp.cw_mul(a[i], b[i])) + vsum(wp.cw_div(a[i], b[i] + V3(F(4.0))))


@wp.kernel
def k_matrix_products(m: wp.array(dtype=M33), a: wp.array(dtype=V3), y: wp.array(dtype=F)):
    i = wp.tid()
    mv = m[i] * a[i]
    vm = a[i] * m[i]
    mm = m[i] * wp.transpose(m[i])
    y[i] = vsum(mv) + vsum(vm) + msum(mm) + msum(wp.outer(a[i], mv)) + wp.trace(m[i]) * wp.ddot(m[i], mm)


@wp.kernel
def k_matmul_operator(m: wp.array(dtype=M33), a: wp.array(dtype=V3), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = vsum(m[i] @ a[i]) + msum(m[i] @ m[i])


@wp.kernel
def k_matrix_functions(m: wp.array(dtype=M33), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.determinant(m[i]) + msum(wp.inverse(m[i])) + vsum(wp.get_diag(m[i]))


@wp.kernel
def k_matrix_builders(a: wp.array(dtype=V3), b: wp.array(dtype=V3), y: wp.array(dtype=F)):
    i = wp.tid()
    r = wp.matrix_from_rows(a[i], b[i], a[i] * b[i][0])
    c = wp.matrix_from_cols(b[i], a[i], b[i])
    y[i] = msum(r) + msum(c) + msum(wp.skew(a[i])) + msum(wp.diag(b[i]))


@wp.kernel
def k_vector_minmax(a: wp.array(dtype=V3), b: wp.array(dtype=V3), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = (
        vsum(wp.min(a[i], b[i])) + vsum(wp.max(a[i], b[i])) + vsum(wp.abs(a[i])) + wp.max(a[i]) - wp.min(b[i])
    )


@wp.kernel
def k_quat(q: wp.array(dtype=Q), r: wp.array(dtype=Q), t: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    p = q[i] * r[i]
    l = wp.lerp(q[i], r[i], t[i])
    y[i] = p[0] + F(2.0) * p[1] - p[2] * p[3] + wp.dot(l, q[i]) + wp.length(r[i])


CASES = {
    "vector_operators": (
        k_vec_ops,
        ["add", "mul", "div"],
        lambda: [vec3s(), vec3s(), f64(RNG.uniform(0.5, 2, N))],
    ),
    "dot_cross": (k_dot_cross, ["dot", "cross"], lambda: [vec3s(), vec3s()]),
    "length_normalize": (k_length_normalize, ["length", "length_sq", "normalize"], lambda: [vec3s()]),
    "cw_mul_div": (k_cw, ["cw_mul", "cw_div"], lambda: [vec3s(), vec3s()]),
    "matrix_products": (
        k_matrix_products,
        ["transpose", "outer", "trace", "ddot"],
        lambda: [mat33s(), vec3s()],
    ),
    "matmul_operator": (k_matmul_operator, ["matmul"], lambda: [mat33s(), vec3s()]),
    "matrix_functions": (k_matrix_functions, ["determinant", "inverse", "get_diag"], lambda: [mat33s()]),
    "matrix_builders": (
        k_matrix_builders,
        ["matrix_from_rows", "matrix_from_cols", "skew", "diag"],
        lambda: [vec3s(), vec3s()],
    ),
    "vector_min_max_abs": (k_vector_minmax, ["min", "max", "abs", "argmin"], lambda: [vec3s(), vec3s()]),
    "quaternions": (
        k_quat,
        ["mul", "lerp", "dot", "length"],
        lambda: [
            wp.array(RNG.normal(size=(N, 4)), dtype=Q),
            wp.array(RNG.normal(size=(N, 4)), dtype=Q),
            f64(RNG.uniform(0, 1, N)),
        ],
    ),
}


T = wp.transformd


def quats():
    return wp.array(RNG.normal(size=(N, 4)), dtype=Q)


def transforms():
    return wp.array(RNG.normal(size=(N, 7)), dtype=T)


@wp.kernel
def k_quat_rotations(q: wp.array(dtype=Q), v: wp.array(dtype=V3), y: wp.array(dtype=F)):
    i = wp.tid()
    a = wp.quat_rotate(q[i], v[i])
    b = wp.quat_rotate_inv(q[i], a + v[i])
    c = wp.quat_inverse(q[i])
    y[i] = vsum(a) + vsum(b) + c[0] * c[3] - c[1] + msum(wp.quat_to_matrix(q[i]))


@wp.kernel
def k_transforms(t: wp.array(dtype=T), s: wp.array(dtype=T), p: wp.array(dtype=V3), y: wp.array(dtype=F)):
    i = wp.tid()
    a = wp.transform_point(t[i], p[i])
    b = wp.transform_vector(t[i], p[i])
    m = wp.transform_multiply(t[i], s[i])
    n = t[i] * s[i]
    inv = wp.transform_inverse(s[i])
    q = wp.transform_get_rotation(m)
    y[i] = vsum(a) + vsum(b) + vsum(wp.transform_get_translation(n)) + q[0] * q[3] + inv[1] - inv[5] * inv[6]


CASES.update(
    {
        "quaternion_rotations": (
            k_quat_rotations,
            ["quat_rotate", "quat_rotate_inv", "quat_inverse", "quat_to_matrix"],
            lambda: [quats(), vec3s()],
        ),
        "transforms": (
            k_transforms,
            [
                "transform_point",
                "transform_vector",
                "transform_multiply",
                "transform_inverse",
                "transform_get_rotation",
                "transform_get_translation",
            ],
            lambda: [transforms(), transforms(), vec3s()],
        ),
    }
)


S6 = wp.spatial_vectord


def spatials():
    return wp.array(RNG.normal(size=(N, 6)), dtype=S6)


@wp.kernel
def k_spatial(a: wp.array(dtype=S6), b: wp.array(dtype=S6), p: wp.array(dtype=V3), y: wp.array(dtype=F)):
    i = wp.tid()
    c = wp.spatial_cross(a[i], b[i])
    d = wp.spatial_cross_dual(a[i], b[i])
    y[i] = (vsum(wp.spatial_top(c)) + vsum(wp.spatial_bottom(d)) + wp.spatial_dot(a[i], b[i])
            + vsum(wp.velocity_at_point(a[i], p[i])) + wp.norm_l1(p[i]) * wp.norm_l2(p[i]))


@wp.kernel
def k_approx(a: wp.array(dtype=V3), s: wp.array(dtype=F), m: wp.array(dtype=M33), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = (
        wp.div_approx(s[i], F(3.0) + s[i] * s[i])
        + vsum(wp.div_approx(a[i], s[i]))
        + msum(wp.inverse_approx(m[i]))
    )


CASES.update(
    {
        "spatial": (
            k_spatial,
            [
                "spatial_cross",
                "spatial_cross_dual",
                "spatial_top",
                "spatial_bottom",
                "spatial_dot",
                "velocity_at_point",
                "norm_l1",
                "norm_l2",
            ],
            lambda: [spatials(), spatials(), vec3s()],
        ),
        "approx": (
            k_approx,
            ["div_approx", "inverse_approx"],
            lambda: [vec3s(), f64(RNG.uniform(0.5, 2, N)), mat33s()],
        ),
    }
)


@pytest.mark.parametrize("case", sorted(CASES))
def test_composite_builtin_gradients(case):
    check_builtin_case(CASES[case], N, eps=1e-6, tol=1e-5)
