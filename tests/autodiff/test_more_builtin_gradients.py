"""Quaternion conversions, transforms and 4x4 matrices, spatial algebra, Huber norms and matrix
decompositions (warp-builtins): adjoint vs. finite differences in float64, at random
well-conditioned inputs (unit quaternions away from singular configurations, distinct
eigenvalues and singular values). Each kernel writes one scalar per thread, a weighted sum of
the components of the builtins' results; every builtin used must have a derivative rule (no
``wp.AdjointWarning``). Also checks that every differentiable builtin overload has a rule."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pytest

import warp as wp
from adutil import F, check_builtin_case, f64, has_builtin, msum, vsum

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

V3, V6, Q, T = wp.vec3d, wp.vector(length=6, dtype=wp.float64), wp.quatd, wp.transformd
M22, M33, M44 = wp.mat22d, wp.mat33d, wp.mat44d
RNG = np.random.default_rng(11)
N = 6


# -- inputs -----------------------------------------------------------------------------------------

def unit_quats(n: int = N) -> np.ndarray:
    q = RNG.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q * np.sign(q[:, 3:4])  # w > 0


def mixed_sign_quats() -> np.ndarray:
    """Unit quaternions, half of them with w < 0 (the sign branches of axis-angle and twist)."""
    return unit_quats() * np.where(np.arange(N) % 2 == 0, 1.0, -1.0)[:, None]


def axis_angle_quat(axis, angle: float) -> np.ndarray:
    axis = np.asarray(axis, dtype=np.float64)
    axis /= np.linalg.norm(axis)
    return np.array([*(axis * np.sin(angle / 2)), np.cos(angle / 2)])


def rotation_matrix(q: np.ndarray) -> np.ndarray:
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def branch_quats() -> np.ndarray:
    """Rotations reaching every branch of quat_from_matrix: trace >= 0, and trace < 0 with the
    largest diagonal entry in x, y and z (rotations by ~3 about tilted coordinate axes)."""
    out = [axis_angle_quat(RNG.normal(size=3), 0.7), axis_angle_quat(RNG.normal(size=3), 1.4)]
    for k in range(3):
        axis = 0.15 * RNG.normal(size=3)
        axis[k] = 1.0
        out.append(axis_angle_quat(axis, 3.0))
    out.append(axis_angle_quat(RNG.normal(size=3), 2.6))
    return np.array(out)


def vec3s(scale: float = 1.0):
    return wp.array(scale * RNG.normal(size=(N, 3)), dtype=V3)


def quats(values=None):
    return wp.array(unit_quats() if values is None else values, dtype=Q)


def transforms():
    return wp.array(np.concatenate([RNG.normal(size=(N, 3)), unit_quats()], axis=1), dtype=T)


def spatials():
    return wp.array(RNG.normal(size=(N, 6)), dtype=V6)


def matrices(shape, offset: float = 0.0):
    return wp.array(
        RNG.normal(size=(N, *shape)) + offset * np.eye(shape[0]), dtype={2: M22, 3: M33, 4: M44}[shape[0]]
    )


def with_singular_values(sigmas) -> np.ndarray:
    """N random matrices U diag(sigma) V^T (rotations U, V; det < 0 for a negative sigma)."""
    n = len(sigmas)
    out = []
    for _ in range(N):
        u, v = (np.linalg.qr(RNG.normal(size=(n, n)))[0] for _ in range(2))
        u[:, 0] *= np.sign(np.linalg.det(u))
        v[:, 0] *= np.sign(np.linalg.det(v))
        out.append(u @ np.diag(sigmas) @ v.T)
    return np.array(out)


# -- losses: weighted sums of components ----------------------------------------------------------

@wp.func
def qsum(q: Q):
    return F(0.7) * q[0] - F(1.3) * q[1] + F(2.1) * q[2] + q[3] * q[3]


@wp.func
def m22sum(m: M22):
    return m[0, 0] - F(1.5) * m[0, 1] + F(0.6) * m[1, 0] + F(2.3) * m[1, 1] * m[1, 1]


@wp.func
def m44sum(m: M44):
    total = F(0.0)
    for i in range(4):
        for j in range(4):
            total = total + F(0.1) * F(i * 4 + j + 1) * m[i, j]
    return total + m[1, 2] * m[2, 1]


@wp.func
def tsum(t: T):
    return vsum(wp.transform_get_translation(t)) + qsum(wp.transform_get_rotation(t))


@wp.func
def ssum(s: V6):
    return s[0] - F(2.0) * s[1] + F(0.5) * s[2] + F(1.5) * s[3] - s[4] * s[4] + F(0.3) * s[5]


# -- kernels ----------------------------------------------------------------------------------------

@wp.kernel
def k_axis_angle(
    axis: wp.array(dtype=V3), angle: wp.array(dtype=F), q: wp.array(dtype=Q), y: wp.array(dtype=F)
):
    i = wp.tid()
    a, t = wp.quat_to_axis_angle(q[i])
    y[i] = qsum(wp.quat_from_axis_angle(axis[i], angle[i])) + vsum(a) + F(1.7) * t


@wp.kernel
def k_slerp(a: wp.array(dtype=Q), b: wp.array(dtype=Q), t: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = qsum(wp.quat_slerp(a[i], b[i], t[i]))


@wp.kernel
def k_rpy(r: wp.array(dtype=V3), q: wp.array(dtype=Q), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = qsum(wp.quat_rpy(r[i][0], r[i][1], r[i][2])) + vsum(wp.quat_to_rpy(q[i]))


@wp.kernel
def k_euler(
    e: wp.array(dtype=V3), q: wp.array(dtype=Q), axes: wp.array(dtype=wp.vec3i), y: wp.array(dtype=F)
):
    i = wp.tid()
    s = axes[i]
    y[i] = qsum(wp.quat_from_euler(e[i], s[0], s[1], s[2])) + vsum(wp.quat_to_euler(q[i], s[0], s[1], s[2]))


@wp.kernel
def k_from_matrix(m: wp.array(dtype=M33), n: wp.array(dtype=M44), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = qsum(wp.quat_from_matrix(m[i])) + F(0.5) * qsum(wp.quat_from_matrix(n[i]))


@wp.kernel
def k_twist(axis: wp.array(dtype=V3), q: wp.array(dtype=Q), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = (qsum(wp.quat_twist(axis[i], q[i])) + F(1.3) * wp.quat_twist_angle(axis[i], q[i])
            - F(0.4) * wp.quat_twist_angle_signed(axis[i], q[i]))


@wp.kernel
def k_matrix_transforms(
    t: wp.array(dtype=T), m: wp.array(dtype=M44), p: wp.array(dtype=V3), y: wp.array(dtype=F)
):
    i = wp.tid()
    y[i] = (m44sum(wp.transform_to_matrix(t[i])) + tsum(wp.transform_from_matrix(m[i]))
            + vsum(wp.transform_point(m[i], p[i])) + F(0.6) * vsum(wp.transform_vector(m[i], p[i])))


@wp.kernel
def k_compose(p: wp.array(dtype=V3), q: wp.array(dtype=Q), s: wp.array(dtype=V3), m: wp.array(dtype=M44),
              y: wp.array(dtype=F)):
    i = wp.tid()
    pos, rot, scale = wp.transform_decompose(m[i])
    y[i] = m44sum(wp.transform_compose(p[i], q[i], s[i])) + vsum(pos) + qsum(rot) - F(0.8) * vsum(scale)


@wp.kernel
def k_set_parts(t: wp.array(dtype=T), p: wp.array(dtype=V3), q: wp.array(dtype=Q), y: wp.array(dtype=F)):
    i = wp.tid()
    a = wp.transform_set_translation_copy(t[i], p[i])
    b = wp.transform_set_rotation_copy(t[i], q[i])
    c = t[i] * t[i]
    wp.transform_set_translation(c, p[i] * F(2.0))
    d = t[i]
    wp.transform_set_rotation(d, q[i] * q[i])
    y[i] = tsum(a) + F(0.5) * tsum(b) - tsum(c) + F(1.5) * tsum(d)


@wp.kernel
def k_spatial(t: wp.array(dtype=T), x: wp.array(dtype=V6), r: wp.array(dtype=M33), s: wp.array(dtype=M33),
              y: wp.array(dtype=F)):
    i = wp.tid()
    a = wp.spatial_adjoint(r[i], s[i])
    total = ssum(wp.transform_twist(t[i], x[i])) + F(0.7) * ssum(wp.transform_wrench(t[i], x[i]))
    for j in range(6):
        for k in range(6):
            total = total + F(0.05) * F(j * 6 + k + 1) * a[j, k]
    y[i] = total + a[4, 1] * a[1, 1]


@wp.kernel
def k_norms(v: wp.array(dtype=V3), d: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = (wp.norm_huber(v[i]) + F(1.3) * wp.norm_huber(v[i], d[i]) + wp.norm_pseudo_huber(v[i])
            - F(0.7) * wp.norm_pseudo_huber(v[i], d[i]) + vsum(wp.smooth_normalize(v[i]))
            + F(0.9) * vsum(wp.smooth_normalize(v[i], d[i])))


@wp.kernel
def k_componentwise(a: wp.array(dtype=V3), b: wp.array(dtype=V3), s: wp.array(dtype=F), q: wp.array(dtype=Q),
                    y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = vsum(wp.mod(a[i], b[i])) + qsum(wp.div_approx(s[i], q[i]))


@wp.kernel
def k_svd3(a: wp.array(dtype=M33), y: wp.array(dtype=F)):
    i = wp.tid()
    u, s, v = wp.svd3(a[i])
    y[i] = msum(u) + F(0.8) * vsum(s) - F(1.2) * msum(v)


@wp.kernel
def k_svd2(a: wp.array(dtype=M22), y: wp.array(dtype=F)):
    i = wp.tid()
    u, s, v = wp.svd2(a[i])
    y[i] = m22sum(u) + F(0.8) * s[0] - s[1] * s[1] - F(1.2) * m22sum(v)


@wp.kernel
def k_qr3(a: wp.array(dtype=M33), y: wp.array(dtype=F)):
    i = wp.tid()
    q, r = wp.qr3(a[i])
    y[i] = msum(q) + F(0.6) * msum(r)


def _euler_inputs():
    axes = np.array([[0, 1, 2], [2, 1, 0], [0, 1, 0], [2, 0, 2], [1, 2, 0], [1, 0, 1]], dtype=np.int32)
    return [vec3s(), quats(), wp.array(axes, dtype=wp.vec3i)]


def _from_matrix_inputs():
    qs = branch_quats()
    m3 = np.array([rotation_matrix(q) for q in qs]) + 0.05 * RNG.normal(size=(N, 3, 3))
    m4 = np.zeros((N, 4, 4))
    m4[:, :3, :3] = np.array([rotation_matrix(q) for q in qs[::-1]])
    m4 += 0.05 * RNG.normal(size=(N, 4, 4))
    return [wp.array(m3, dtype=M33), wp.array(m4, dtype=M44)]


def _rigid_matrices(scales: bool = False):
    m = np.zeros((N, 4, 4))
    for k, q in enumerate(branch_quats()):
        s = RNG.uniform(0.5, 2.0, 3) if scales else np.ones(3)
        m[k, :3, :3] = rotation_matrix(q) * s
        m[k, :3, 3] = RNG.normal(size=3)
        m[k, 3, 3] = 1.0
    return m


def _twist_inputs():
    return [vec3s(), quats(mixed_sign_quats())]


def _norm_inputs():
    v = (
        RNG.normal(size=(N, 3)) * np.array([0.3, 0.3, 0.3, 1.5, 1.5, 1.5])[:, None]
    )  # inside and outside delta
    return [wp.array(v, dtype=V3), f64(RNG.uniform(0.6, 1.4, N))]


def _componentwise_inputs():
    a = RNG.uniform(-5, 5, size=(N, 3))
    b = RNG.uniform(0.7, 2.0, size=(N, 3)) * RNG.choice([-1.0, 1.0], size=(N, 3))
    q = RNG.uniform(0.5, 2.0, size=(N, 4)) * RNG.choice([-1.0, 1.0], size=(N, 4))
    return [wp.array(a, dtype=V3), wp.array(b, dtype=V3), f64(RNG.uniform(0.5, 2, N)), quats(q)]


CASES = {
    "quat_axis_angle": (
        k_axis_angle,
        ["quat_from_axis_angle", "quat_to_axis_angle"],
        lambda: [vec3s(), f64(RNG.uniform(-3, 3, N)), quats(mixed_sign_quats())],
    ),
    "quat_slerp": (k_slerp, ["quat_slerp"], lambda: [quats(), quats(), f64(RNG.uniform(0, 1, N))]),
    "quat_rpy": (k_rpy, ["quat_rpy", "quat_to_rpy"], lambda: [vec3s(), quats()]),
    "quat_euler": (k_euler, ["quat_from_euler", "quat_to_euler"], _euler_inputs),
    "quat_from_matrix": (k_from_matrix, ["quat_from_matrix"], _from_matrix_inputs),
    "quat_twist": (k_twist, ["quat_twist", "quat_twist_angle", "quat_twist_angle_signed"], _twist_inputs),
    "transform_matrices": (
        k_matrix_transforms,
        ["transform_to_matrix", "transform_from_matrix", "transform_point"],
        lambda: [transforms(), wp.array(_rigid_matrices(), dtype=M44), vec3s()],
    ),
    "transform_compose": (
        k_compose,
        ["transform_compose", "transform_decompose"],
        lambda: [
            vec3s(),
            quats(),
            wp.array(RNG.uniform(0.5, 2, (N, 3)), dtype=V3),
            wp.array(_rigid_matrices(scales=True), dtype=M44),
        ],
    ),
    "transform_set_parts": (
        k_set_parts,
        [
            "transform_set_translation",
            "transform_set_rotation",
            "transform_set_translation_copy",
            "transform_set_rotation_copy",
        ],
        lambda: [transforms(), vec3s(), quats()],
    ),
    "spatial": (
        k_spatial,
        ["transform_twist", "transform_wrench", "spatial_adjoint"],
        lambda: [transforms(), spatials(), matrices((3, 3)), matrices((3, 3))],
    ),
    "huber_norms": (k_norms, ["norm_huber", "norm_pseudo_huber", "smooth_normalize"], _norm_inputs),
    "componentwise": (k_componentwise, ["mod", "div_approx"], _componentwise_inputs),
    "svd3": (
        k_svd3,
        ["svd3"],
        lambda: [
            wp.array(
                np.concatenate(
                    [with_singular_values([3.0, 1.5, 0.6])[:3], with_singular_values([2.5, 1.1, -0.4])[:3]]
                ),
                dtype=M33,
            )
        ],
    ),
    "svd2": (
        k_svd2,
        ["svd2"],
        lambda: [
            wp.array(
                np.concatenate([with_singular_values([2.0, 0.7])[:3], with_singular_values([1.6, -0.5])[:3]]),
                dtype=M22,
            )
        ],
    ),
    "qr3": (k_qr3, ["qr3"], lambda: [matrices((3, 3), offset=2.0)]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_more_builtin_gradients(case):
    check_builtin_case(CASES[case], N, eps=1e-6, tol=1e-5)


# -- every differentiable builtin overload has a derivative rule ---------------------------------------

def _sample_types() -> list:
    from warp.types import scalars as S
    from warp.types.composite import matrix, quaternion, transformation, vector

    out = [S.float16, S.float32, S.float64, S.int8, S.int32, S.int64, S.uint32]
    for f in (S.float32, S.float64):
        out += [vector(n, f) for n in (2, 3, 4, 6)]
        out += [matrix(shape, f) for shape in ((2, 2), (3, 3), (4, 4), (6, 6), (2, 3), (3, 2), (3, 4))]
        out += [quaternion(f), transformation(f)]
    return out


def uncovered_overloads() -> list[tuple[str, str]]:
    """(builtin, signature) of differentiable overloads of warp-core and warp-builtins that some
    float argument types reach without a derivative rule (the transform would warn and drop the
    gradient)."""
    from warp.compiler.registry import builtin_registry, match_type
    from warp_autodiff.rules import lookup_rule
    from warp_autodiff.adjoint_types import is_differentiable

    samples = _sample_types()
    out = []
    for name in builtin_registry.names():
        for ov in builtin_registry.get(name).overloads:
            if not ov.differentiable or ov.package not in ("warp-core", "warp-builtins"):
                continue  # (tests register builtins of their own)
            if ov.variadic:
                combos = ([t, t] for t in samples)
            else:
                combos = itertools.product(
                    *[[t for t in samples if match_type(p, t, {})] for _, p in ov.params]
                )
            for types in combos:
                types = list(types)
                if ov.bind(types) is None or not any(is_differentiable(t) for t in types):
                    continue
                if lookup_rule(name, types) is None:
                    out.append((name, ov.signature()))
                    break
    return out


def test_every_differentiable_builtin_overload_has_a_rule():
    assert uncovered_overloads() == []


# -- float32: the reference functions and adjoints specialize for it ------------------------------------

@wp.func
def all_new_builtins(q: Any, v: Any, m: Any):
    """Every builtin given a rule here, in the precision of the arguments (a scalar loss)."""
    total = wp.quat_slerp(q, q * q, v[0] * 0.0 + 0.3)[1] + wp.dot(wp.quat_from_axis_angle(v, v[1] * 0.7), q)
    a, t = wp.quat_to_axis_angle(q)
    total += wp.dot(a, v) + t + wp.quat_rpy(v[0], v[1], v[2])[2] + wp.quat_to_rpy(q)[1]
    total += wp.quat_from_euler(v, 0, 1, 2)[0] + wp.quat_to_euler(q, wp.int64(2), 0, 2)[2]
    total += wp.quat_from_matrix(wp.quat_to_matrix(q))[3] + wp.quat_twist(v, q)[1]
    total += wp.quat_twist_angle(v, q) + wp.quat_twist_angle_signed(v, q)
    tf = wp.transformation(v, q)
    mm = wp.transform_to_matrix(tf)
    c = wp.transform_compose(v, q, wp.cw_mul(v, v) + wp.normalize(v))
    p, r, s = wp.transform_decompose(c)
    total += (
        p[0]
        + r[1] * s[2]
        + wp.transform_from_matrix(mm)[5]
        + wp.transform_point(mm, v)[1]
        + wp.transform_vector(c, v)[2]
    )
    sv = wp.vector(v[0], v[1], v[2], q[0], q[1], q[2])
    total += wp.dot(wp.transform_twist(tf, sv), sv) + wp.dot(wp.transform_wrench(tf, sv), sv)
    total += wp.spatial_adjoint(m, m * m)[4, 1]
    total += wp.norm_huber(v) + wp.norm_pseudo_huber(v, v[0] * 0.0 + 0.8) + wp.smooth_normalize(v)[1]
    e, d = wp.eig3(m + wp.transpose(m))
    total += d[1] + e[0, 0] * e[1, 0]
    u, sg, w = wp.svd3(m)
    total += sg[2] + u[0, 1] * w[1, 2]
    u2, sg2, w2 = wp.svd2(wp.matrix(m[0, 0], m[0, 1], m[1, 0], m[1, 1], shape=(2, 2)))
    total += sg2[0] * sg2[1] + u2[0, 1] * w2[1, 0]
    qq, rr = wp.qr3(m)
    total += qq[0, 1] * rr[1, 2] + rr[2, 2]
    t2 = wp.transform_set_translation_copy(tf, v)
    wp.transform_set_rotation(t2, q * q)
    return total + t2[0] * t2[4]


@wp.kernel
def all_new_builtins_f32(
    q: wp.array(dtype=wp.quatf),
    v: wp.array(dtype=wp.vec3f),
    m: wp.array(dtype=wp.mat33f),
    y: wp.array(dtype=wp.float32),
):
    i = wp.tid()
    y[i] = all_new_builtins(q[i], v[i], m[i])


@wp.kernel
def all_new_builtins_f64(
    q: wp.array(dtype=Q), v: wp.array(dtype=V3), m: wp.array(dtype=M33), y: wp.array(dtype=F)
):
    i = wp.tid()
    y[i] = all_new_builtins(q[i], v[i], m[i])


@pytest.mark.slow
def test_float32_adjoints_match_float64_finite_differences():
    needed = [
        "quat_slerp",
        "quat_to_euler",
        "transform_decompose",
        "spatial_adjoint",
        "norm_huber",
        "eig3",
        "svd3",
    ]
    if not all(has_builtin(n) for n in needed):
        pytest.skip("builtins not installed")
    qn = RNG.normal(size=(4, 4))
    qn /= np.linalg.norm(qn, axis=1, keepdims=True)
    vn, mn = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3, 3)) + 2 * np.eye(3)
    arrays = [
        wp.array(x, dtype=t, requires_grad=True)
        for x, t in zip((qn, vn, mn), (wp.quatf, wp.vec3f, wp.mat33f))
    ]
    y = wp.zeros(4, dtype=wp.float32, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", wp.AdjointWarning)
        tape = wp.Tape()
        with tape:
            wp.launch(all_new_builtins_f32, 4, inputs=arrays, outputs=[y])
        tape.backward(grads={y: wp.array(np.ones(4), dtype=wp.float32)})
    # reference: finite differences of the float64 kernel (its forward pass only)
    inputs64 = [wp.array(x, dtype=t) for x, t in zip((qn, vn, mn), (Q, V3, M33))]
    fd = wp.autograd.jacobian_fd(all_new_builtins_f64, 4, inputs64, [wp.zeros(4, dtype=F)], eps=1e-6)
    for k, a in enumerate(arrays):
        g32 = a.grad.numpy().astype(np.float64).reshape(-1)
        g64 = fd[(k, 0)].numpy().sum(axis=0)
        assert np.all(np.isfinite(g32)) and np.abs(g64).max() > 0
        np.testing.assert_allclose(g32, g64, atol=1e-4 * np.abs(g64).max())
