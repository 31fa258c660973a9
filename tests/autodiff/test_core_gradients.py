"""Derivative rules of core builtins: operators, casts, comparisons, array access, atomics,
composite values and structs; adjoints checked against finite differences and closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from adutil import F, adjoint_grads, check_gradients, f64

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

A = np.array([0.3, 1.7, -0.8, 2.2, -1.9, 0.6])
B = np.array([1.1, 0.4, 0.9, -1.3, -0.5, 2.5])


@wp.kernel
def arith(a: wp.array(dtype=F), b: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    x = a[i]
    z = b[i]
    y[i] = (x + z) * (x - z) / (F(2.0) + z * z) + (-x) * (+z) - x * F(3.0)


def test_arithmetic_operators():
    a, b, y = f64(A), f64(B), wp.zeros(6, dtype=F)
    check_gradients(arith, 6, [a, b], [y])
    ga, gb = adjoint_grads(arith, 6, [a, b], [y], {y: np.ones(6)})
    d = 2.0 + B * B
    np.testing.assert_allclose(ga, 2 * A / d - B - 3.0)
    np.testing.assert_allclose(gb, -2 * B / d - (A * A - B * B) * 2 * B / d**2 - A)


@wp.kernel
def modulo(a: wp.array(dtype=F), b: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = a[i] % b[i]


def test_float_modulo():
    av, bv = np.array([5.3, -7.2, 2.9]), np.array([2.0, 3.1, 1.3])
    a, b, y = f64(av), f64(bv), wp.zeros(3, dtype=F)
    check_gradients(modulo, 3, [a, b], [y])
    ga, gb = adjoint_grads(modulo, 3, [a, b], [y], {y: np.ones(3)})
    np.testing.assert_allclose(ga, 1.0)
    np.testing.assert_allclose(gb, -np.trunc(av / bv))


@wp.kernel
def casts(a: wp.array(dtype=F), y: wp.array(dtype=wp.float32), z: wp.array(dtype=F)):
    i = wp.tid()
    x32 = wp.float32(a[i])
    y[i] = x32 * x32
    h = wp.float16(x32)
    z[i] = wp.float64(h) * F(2.0) + wp.float64(int(a[i]))  # int path carries no gradient


def test_float_casts():
    a, y, z = f64(A), wp.zeros(6, dtype=wp.float32), wp.zeros(6, dtype=F)
    (g,) = adjoint_grads(casts, 6, [a], [y, z], {y: np.ones(6), z: np.ones(6)})
    np.testing.assert_allclose(g, 2 * A + 2.0, rtol=1e-5)


@wp.kernel
def compare(a: wp.array(dtype=F), b: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    x = a[i]
    z = b[i]
    flag = F(0.0)
    if x < z and x != z:
        flag = F(1.0)
    y[i] = flag + x * z


def test_comparisons_have_zero_gradient():
    a, b, y = f64(A), f64(B), wp.zeros(6, dtype=F)
    check_gradients(compare, 6, [a, b], [y])
    ga, gb = adjoint_grads(compare, 6, [a, b], [y], {y: np.ones(6)})
    np.testing.assert_allclose(ga, B)
    np.testing.assert_allclose(gb, A)


@wp.kernel
def gather_scatter(x: wp.array(dtype=F), idx: wp.array(dtype=int), y: wp.array2d(dtype=F)):
    i = wp.tid()
    j = idx[i]
    y[i, 0] = x[j] * x[j]
    y[i, 1] = F(3.0) * x[i]


def test_array_loads_and_stores_with_indirection():
    xv = np.array([0.5, -1.5, 2.0, 0.25])
    iv = np.array([2, 2, 0, 1], dtype=np.int32)
    x, idx, y = f64(xv), wp.array(iv, dtype=int), wp.zeros((4, 2), dtype=F)
    check_gradients(gather_scatter, 4, [x, idx], [y])
    gx, gi = adjoint_grads(gather_scatter, 4, [x, idx], [y], {y: np.ones((4, 2))})
    expected = np.full(4, 3.0)
    np.add.at(expected, iv, 2 * xv[iv])
    np.testing.assert_allclose(gx, expected)
    assert gi is None or not np.any(gi)


@wp.kernel
def atomics(x: wp.array(dtype=F), total: wp.array(dtype=F), diff: wp.array(dtype=F)):
    i = wp.tid()
    wp.atomic_add(total, 0, x[i] * x[i])
    wp.atomic_sub(diff, i % 2, F(2.0) * x[i])
    total[1] += x[i]
    diff[1] -= x[i] * F(0.5)


def test_atomic_add_and_sub(force_parallel):
    xv = np.linspace(-1, 1, 64)
    x, total, diff = f64(xv), wp.zeros(2, dtype=F), wp.zeros(2, dtype=F)
    check_gradients(atomics, 64, [x], [total, diff])
    (g,) = adjoint_grads(atomics, 64, [x], [total, diff], {total: [1.0, 10.0], diff: [100.0, 1000.0]})
    expected = 2 * xv + 10.0 - 0.5 * 1000.0 + np.where(np.arange(64) % 2 == 0, -200.0, -2000.0)
    np.testing.assert_allclose(g, expected)


@wp.kernel
def shared_load(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = x[0] * x[i]


def test_atomic_accumulation_of_shared_reads(force_parallel):
    xv = np.linspace(0.5, 2.0, 1000)
    x, y = f64(xv), wp.zeros(1000, dtype=F)
    (g,) = adjoint_grads(shared_load, 1000, [x], [y], {y: np.ones(1000)})
    expected = xv[0] * np.ones(1000)
    expected[0] += xv.sum()
    np.testing.assert_allclose(g, expected)


# -- composite values ---------------------------------------------------------------------------

@wp.kernel
def vectors(p: wp.array(dtype=wp.vec3d), s: wp.array(dtype=F), out: wp.array(dtype=wp.vec2d)):
    i = wp.tid()
    v = p[i]
    w = wp.vec3d(v[1] * s[i], v.x, F(2.0))
    w[2] = v.z * v.z
    out[i] = wp.vec2d(w[0] + w[2], w[1] * w[0])


def test_vector_components_construction_and_arrays():
    rng = np.random.default_rng(1)
    pv, sv = rng.normal(size=(5, 3)), rng.normal(size=5)
    p = wp.array(pv, dtype=wp.vec3d)
    s, out = f64(sv), wp.zeros(5, dtype=wp.vec2d)
    check_gradients(vectors, 5, [p, s], [out])
    gp, gs = adjoint_grads(vectors, 5, [p, s], [out], {out: np.ones((5, 2))})
    x, y, z = pv[:, 0], pv[:, 1], pv[:, 2]
    # out0 = y s + z^2, out1 = x * y * s
    np.testing.assert_allclose(gp[:, 0], y * sv)
    np.testing.assert_allclose(gp[:, 1], sv + x * sv)
    np.testing.assert_allclose(gp[:, 2], 2 * z)
    np.testing.assert_allclose(gs, y + x * y)


@wp.kernel
def matrices(m: wp.array(dtype=wp.mat22d), out: wp.array(dtype=F)):
    i = wp.tid()
    a = m[i]
    row = a[1]
    b = wp.mat22d(a[0, 0], row[0], F(1.0), a[0, 1] * row[1])
    out[i] = b[0, 0] * b[0, 1] + b[1, 1]


def test_matrix_components():
    mv = np.random.default_rng(2).normal(size=(4, 2, 2))
    m, out = wp.array(mv, dtype=wp.mat22d), wp.zeros(4, dtype=F)
    check_gradients(matrices, 4, [m], [out])


@wp.kernel
def fill_convert(x: wp.array(dtype=F), out: wp.array(dtype=wp.vec3f)):
    i = wp.tid()
    v = wp.vec3d(x[i])
    v[1] = v[1] * x[i]
    out[i] = wp.vec3f(v)


def test_vector_fill_and_conversion():
    xv = np.array([0.5, -1.25, 2.0])
    x, out = f64(xv), wp.zeros(3, dtype=wp.vec3f)
    (g,) = adjoint_grads(fill_convert, 3, [x], [out], {out: np.ones((3, 3))})
    np.testing.assert_allclose(g, 2.0 + 2 * xv, rtol=1e-6)


# -- structs ------------------------------------------------------------------------------------

@wp.struct
class Params:
    scale: F
    offset: F
    weights: wp.array(dtype=F)


@wp.func
def weighted(p: Params, i: int, x: F):
    return p.scale * p.weights[i] * x + p.offset


@wp.kernel
def structs(p: Params, x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    q = Params()
    q.scale = p.scale * x[i]
    y[i] = weighted(p, i, x[i]) + q.scale * q.scale


def test_struct_fields_and_struct_arrays_on_a_tape():
    wv, xv = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
    p = Params()
    p.scale, p.offset = 1.5, 0.25
    p.weights = f64(wv, requires_grad=True)
    x, y = f64(xv, requires_grad=True), wp.zeros(3, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(structs, 3, inputs=[p, x], outputs=[y])
    tape.backward(grads={y: f64(np.ones(3))})
    np.testing.assert_allclose(x.grad.numpy(), 1.5 * wv + 2 * 1.5**2 * xv)
    np.testing.assert_allclose(p.weights.grad.numpy(), 1.5 * xv)
    assert tape.gradients[p.weights] is p.weights.grad


@wp.kernel
def square16(x: wp.array(dtype=wp.float16), y: wp.array(dtype=wp.float16)):
    i = wp.tid()
    y[i] = x[i] * x[i] + x[i]


@wp.kernel
def square32(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = x[i] * x[i] + x[i]


@pytest.mark.parametrize("dtype", [wp.float16, wp.float32])
def test_lower_precision_floats(dtype):
    square = square16 if dtype is wp.float16 else square32
    xv = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    x = wp.array(xv, dtype=dtype, requires_grad=True)
    y = wp.zeros(3, dtype=dtype, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square, 3, inputs=[x], outputs=[y])
    y.grad.fill_(1.0)
    tape.backward()
    np.testing.assert_allclose(x.grad.numpy().astype(np.float32), 2 * xv + 1, rtol=1e-3)


@wp.struct
class Particle:
    pos: wp.vec2d
    mass: F
    alive: bool


@wp.kernel
def particle_energy(ps: wp.array(dtype=Particle), e: wp.array(dtype=F)):
    i = wp.tid()
    p = ps[i]
    if p.alive:
        e[i] = F(0.5) * p.mass * wp.vec2d(p.pos).x * p.pos[1]


def test_arrays_of_structs():
    ps = wp.zeros(3, dtype=Particle, requires_grad=True)
    for k in range(3):
        p = Particle()
        p.pos, p.mass, p.alive = wp.vec2d(k + 1.0, 2.0 - k), 1.5 + k, k != 1
        ps[k] = p
    e = wp.zeros(3, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(particle_energy, 3, inputs=[ps], outputs=[e])
    tape.backward(grads={e: f64(np.ones(3))})
    g = ps.grad.numpy()
    for k in range(3):
        x, y, m = k + 1.0, 2.0 - k, 1.5 + k
        alive = k != 1
        np.testing.assert_allclose(g["pos"][k], [0.5 * m * y, 0.5 * m * x] if alive else [0, 0])
        np.testing.assert_allclose(g["mass"][k], 0.5 * x * y if alive else 0)


@wp.kernel
def own_and_shared(a: wp.array(dtype=F), b: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = a[i] * F(2.0) + b[(i * 7) % 1000] * F(3.0)


def test_same_gradient_array_for_two_parameters(force_parallel):
    """a[i] (thread-exclusive) and b[j] (shared) with a is b: updates must not race."""
    x = f64(np.linspace(0, 1, 1000), requires_grad=True)
    y = wp.zeros(1000, dtype=F, requires_grad=True)
    for _ in range(3):
        x.grad.zero_()
        tape = wp.Tape()
        with tape:
            wp.launch(own_and_shared, 1000, inputs=[x, x], outputs=[y])
        tape.backward(grads={y: f64(np.ones(1000))})
        np.testing.assert_allclose(x.grad.numpy(), np.full(1000, 5.0))
