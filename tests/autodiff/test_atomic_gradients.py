"""Gradients of atomic updates: min/max pass the adjoint to the winning contribution."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

from adutil import F, adjoint_grads, check_gradients, f64

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def atomic_max_squares(x: wp.array(dtype=F), out: wp.array(dtype=F)):
    i = wp.tid()
    wp.atomic_max(out, i % 3, x[i] * x[i])


@wp.kernel
def atomic_min_scaled(x: wp.array(dtype=F), out: wp.array(dtype=F)):
    i = wp.tid()
    wp.atomic_min(out, i % 2, F(3.0) * x[i] - F(10.0))


def test_atomic_max_gradient_goes_to_the_winner(force_parallel):
    xv = np.array([0.3, -1.7, 0.9, 1.2, 0.4, -0.2, 2.1, 0.5, 1.1])
    x, out = f64(xv), wp.zeros(3, dtype=F)
    check_gradients(atomic_max_squares, 9, [x], [out])
    (g,) = adjoint_grads(atomic_max_squares, 9, [x], [out], {out: [1.0, 10.0, 100.0]})
    expected = np.zeros(9)
    for slot, seed in enumerate([1.0, 10.0, 100.0]):
        members = np.arange(slot, 9, 3)
        winner = members[np.argmax(xv[members] ** 2)]
        expected[winner] = seed * 2 * xv[winner]
    np.testing.assert_allclose(g, expected)


def test_atomic_min_gradient_goes_to_the_winner(force_parallel):
    xv = np.array([0.3, -1.7, 0.9, 1.2, 0.4, -0.2, 2.1, 0.5])
    x, out = f64(xv), wp.zeros(2, dtype=F)
    check_gradients(atomic_min_scaled, 8, [x], [out])
    (g,) = adjoint_grads(atomic_min_scaled, 8, [x], [out], {out: [2.0, 5.0]})
    expected = np.zeros(8)
    expected[np.argmin(np.where(np.arange(8) % 2 == 0, xv, np.inf))] = 3.0 * 2.0
    expected[np.argmin(np.where(np.arange(8) % 2 == 1, xv, np.inf))] = 3.0 * 5.0
    np.testing.assert_allclose(g, expected)


def test_atomic_max_initial_value_wins_no_gradient():
    """When the array's own value stays the maximum no contribution receives a gradient."""
    x, out = f64([0.5, -0.25]), f64([7.0, 7.0])  # thread i updates out[i % 3]
    (g,) = adjoint_grads(atomic_max_squares, 2, [x], [out], {out: [1.0, 1.0]})
    np.testing.assert_array_equal(g, [0.0, 0.0])


@pytest.mark.parametrize("op", ["min", "max"])
def test_atomic_min_max_are_registered_differentiable(op):
    from warp.compiler.registry import builtin_registry
    from warp.types.array_type import ArrayType

    res = builtin_registry.resolve(f"atomic_{op}", [ArrayType(F, 1), wp.int32, F])
    assert res is not None and res.overload.differentiable


@wp.kernel
def vector_atomics(p: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    wp.atomic_add(out, i % 2, p[i] * p[i][0])
    wp.atomic_sub(out, 2, F(2.0) * p[i])


@wp.kernel
def vector_atomic_old(p: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d),
                      old: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    old[i] = wp.atomic_add(out, i % 2, p[i] * p[i][0])


@wp.kernel
def vector_min_max(p: wp.array(dtype=wp.vec3d), hi: wp.array(dtype=wp.vec3d), lo: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    wp.atomic_max(hi, 0, p[i] * p[i][1])
    wp.atomic_min(lo, 0, p[i] - wp.vec3d(F(1.0), F(2.0), F(3.0)))


@wp.kernel
def matrix_atomics(m: wp.array(dtype=wp.mat22d), out: wp.array(dtype=wp.mat22d)):
    i = wp.tid()
    wp.atomic_add(out, 0, m[i] * m[i])
    wp.atomic_max(out, 1, m[i] * F(3.0))


P = np.array([[0.3, -1.2, 0.8], [1.1, 0.4, -0.6], [-0.7, 0.9, 1.3], [0.5, 1.5, -1.1]])


def test_vector_atomic_add_sub_values_and_gradients(force_parallel):
    p = wp.array(P, dtype=wp.vec3d)
    out = wp.zeros(3, dtype=wp.vec3d)
    wp.launch(vector_atomics, 4, inputs=[p, out])
    expected = np.zeros((3, 3))
    for i in range(4):
        expected[i % 2] += P[i] * P[i][0]
    expected[2] = -2.0 * P.sum(axis=0)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    # the old values returned: each slot's contributions in some order, so old[i] is a partial sum
    out, old = wp.zeros(2, dtype=wp.vec3d), wp.zeros(4, dtype=wp.vec3d)
    wp.launch(vector_atomic_old, 4, inputs=[p, out, old])
    olds = old.numpy()
    for slot in (0, 1):
        members = [i for i in range(4) if i % 2 == slot]
        partials = [olds[i] for i in members]
        assert any(np.allclose(q, 0.0) for q in partials)
        assert any(np.allclose(q, P[j] * P[j][0]) for q in partials for j in members)
    check_gradients(vector_atomics, 4, [p], [wp.zeros(3, dtype=wp.vec3d)])  # it writes out[0..2]


def test_vector_atomic_min_max_gradients_per_component(force_parallel):
    p = wp.array(P, dtype=wp.vec3d)
    hi, lo = wp.full(1, value=wp.vec3d(-9.0, -9.0, -9.0), dtype=wp.vec3d), wp.zeros(1, dtype=wp.vec3d)
    wp.launch(vector_min_max, 4, inputs=[p, hi, lo])
    np.testing.assert_allclose(hi.numpy()[0], (P * P[:, 1:2]).max(axis=0))
    np.testing.assert_allclose(lo.numpy()[0], np.minimum((P - [1.0, 2.0, 3.0]).min(axis=0), 0.0))
    check_gradients(vector_min_max, 4, [p], [hi, lo])
    (g,) = adjoint_grads(vector_min_max, 4, [p], [hi, lo], {hi: [[1.0, 10.0, 100.0]], lo: [[0.0, 0.0, 0.0]]})
    expected = np.zeros((4, 3))
    prod = P * P[:, 1:2]
    for c, seed in enumerate([1.0, 10.0, 100.0]):
        w = np.argmax(prod[:, c])
        expected[w, c] += seed * P[w, 1]
        expected[w, 1] += seed * P[w, c]
    np.testing.assert_allclose(g, expected, rtol=1e-12)


def test_matrix_atomics(force_parallel):
    ms = np.array([[[0.3, -1.2], [0.8, 1.1]], [[0.4, -0.6], [-0.7, 0.9]], [[1.3, 0.5], [1.5, -1.1]]])
    m, out = wp.array(ms, dtype=wp.mat22d), wp.zeros(2, dtype=wp.mat22d)
    wp.launch(matrix_atomics, 3, inputs=[m, out])
    np.testing.assert_allclose(out.numpy()[0], sum(a @ a for a in ms), rtol=1e-12)
    np.testing.assert_allclose(out.numpy()[1], np.maximum((3.0 * ms).max(axis=0), 0.0))
    check_gradients(matrix_atomics, 3, [m], [out])
