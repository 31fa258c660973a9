"""Gradients of atomic updates: min/max pass the adjoint to the winning contribution."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

from adutil import F, adjoint_grads, check_gradients, f64


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
    x, out = f64([0.5, -0.25]), f64([7.0])
    (g,) = adjoint_grads(atomic_max_squares, 2, [x], [out], {out: [1.0]})
    np.testing.assert_array_equal(g, [0.0, 0.0])


@pytest.mark.parametrize("op", ["min", "max"])
def test_atomic_min_max_are_registered_differentiable(op):
    from warp.compiler.registry import builtin_registry
    from warp.types.array_type import ArrayType

    res = builtin_registry.resolve(f"atomic_{op}", [ArrayType(F, 1), wp.int32, F])
    assert res is not None and res.overload.differentiable
