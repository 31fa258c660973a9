"""Adjoints through if/else, static and dynamic loops, while loops, break/continue, early
returns and user functions; warnings for kernels that break the documented restrictions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import warp as wp
from adutil import F, adjoint_grads, check_gradients, f64

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

X = np.array([0.5, -1.2, 1.7, -0.3, 2.4, 0.9])


@wp.kernel
def branches(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    v = x[i]
    r = F(0.0)
    if v > F(1.0):
        r = v * v * v
    elif v > F(0.0):
        r = F(2.0) * v
        if v > F(0.7):
            r = r * v
    else:
        r = -v * F(5.0)
    y[i] = r + (v * F(3.0) if v < F(0.0) else v)


def test_if_else_takes_the_branch_that_ran():
    x, y = f64(X), wp.zeros(6, dtype=F)
    check_gradients(branches, 6, [x], [y])
    (g,) = adjoint_grads(branches, 6, [x], [y], {y: np.ones(6)})
    expected = np.where(X > 1, 3 * X**2, np.where(X > 0.7, 4 * X, np.where(X > 0, 2.0, -5.0)))
    expected += np.where(X < 0, 3.0, 1.0)
    np.testing.assert_allclose(g, expected)


@wp.kernel
def static_loop(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    v = x[i]
    acc = F(1.0)
    for k in range(4):  # unrolled: may reassign freely
        acc = acc * v + F(k)
    y[i] = acc


def test_static_loop():
    x, y = f64(X), wp.zeros(6, dtype=F)
    check_gradients(static_loop, 6, [x], [y])


@wp.func
def term(v: F, k: int):
    return v * F(k) + v * v


@wp.kernel
def dynamic_loop_no_mutation(x: wp.array(dtype=F), n: int, y: wp.array(dtype=F)):
    i = wp.tid()
    v = x[i]
    for k in range(n):
        wp.atomic_add(y, i, term(v, k) * x[(i + k) % 6])


def test_dynamic_loop_following_the_restriction():
    x, y = f64(X), wp.zeros(6, dtype=F)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no restriction warning for this loop
        check_gradients(dynamic_loop_no_mutation, 6, [x, 5], [y])


@wp.kernel
def linear_accumulation(x: wp.array(dtype=F), n: int, y: wp.array(dtype=F)):
    i = wp.tid()
    s = F(0.0)
    for k in range(n):
        s = s + x[(i + k) % 6] * x[i]
    y[i] = s * s


def test_loop_carried_sum_is_exact_without_warning():
    """A carried value that only accumulates linearly costs nothing extra: no warning."""
    x, y = f64(X), wp.zeros(6, dtype=F)
    with warnings.catch_warnings():
        warnings.simplefilter("error", wp.AdjointWarning)
        check_gradients(linear_accumulation, 6, [x, 4], [y])


@wp.kernel
def nonlinear_carry(x: wp.array(dtype=F), n: int, y: wp.array(dtype=F)):
    i = wp.tid()
    p = F(1.0)
    for k in range(n):
        p = p * x[i] + F(0.5) * x[(i + k) % 6] * p
    y[i] = p


def test_nonlinear_loop_carried_value_warns_and_is_stored_exactly():
    x, y = f64(X), wp.zeros(6, dtype=F)
    with pytest.warns(wp.AdjointWarning, match="stores them"):
        check_gradients(nonlinear_carry, 6, [x, 5], [y])


@wp.kernel
def while_loop(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    v = x[i]
    k = int(0)
    acc = F(0.0)
    while acc < F(4.0) and k < 10:
        acc = acc + v * v + F(0.5)
        k += 1
    y[i] = acc * v


def test_while_loop():
    """The reverse needs only the trip count (the body uses acc linearly): exact, no warning."""
    x, y = f64(X), wp.zeros(6, dtype=F)
    with warnings.catch_warnings():
        warnings.simplefilter("error", wp.AdjointWarning)
        check_gradients(while_loop, 6, [x], [y])


@wp.kernel
def break_continue(x: wp.array(dtype=F), n: int, y: wp.array(dtype=F)):
    i = wp.tid()
    for k in range(n):
        v = x[k] * x[i]
        if v > F(2.0):
            break
        if k == 1:
            continue
        wp.atomic_add(y, i, v * v)


def test_break_and_continue():
    x, y = f64(X), wp.zeros(6, dtype=F)
    check_gradients(break_continue, 6, [x, 6], [y])


@wp.kernel
def nested_loops(x: wp.array(dtype=F), n: int, y: wp.array(dtype=F)):
    i = wp.tid()
    for j in range(n):
        for k in range(j, n):
            w = x[j] * x[k]
            if w > F(0.0):
                wp.atomic_add(y, i, w * x[i])
            else:
                wp.atomic_sub(y, i, w)


def test_nested_dynamic_loops():
    x, y = f64(X), wp.zeros(6, dtype=F)
    check_gradients(nested_loops, 6, [x, 6], [y])


@wp.kernel
def early_return(x: wp.array(dtype=F), y: wp.array(dtype=F), total: wp.array(dtype=F)):
    i = wp.tid()
    a = x[i] * F(2.0)
    wp.atomic_add(total, 0, a * x[i])
    if x[i] < F(0.0):
        return
    y[i] = a * a


def test_early_return():
    x, y, total = f64(X), wp.zeros(6, dtype=F), wp.zeros(1, dtype=F)
    check_gradients(early_return, 6, [x], [y, total])
    (g,) = adjoint_grads(early_return, 6, [x], [y, total], {y: np.ones(6), total: [1.0]})
    np.testing.assert_allclose(g, 4 * X + np.where(X < 0, 0.0, 8 * X))


@wp.func
def piecewise(v: F):
    if v < F(0.0):
        return -v * v
    s = F(0.0)
    for k in range(3):
        s = s + v * F(k + 1)
    return s


@wp.func
def two_results(a: F, b: F):
    return a * b, a + piecewise(b)


@wp.func
def write_into(out: wp.array(dtype=F), i: int, v: F):
    out[i] = v * v


@wp.kernel
def functions(x: wp.array(dtype=F), w: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    p, q = two_results(x[i], w[i])
    write_into(y, i, p + piecewise(q))


def test_user_functions_with_branches_loops_returns_and_arrays():
    x, w, y = f64(X), f64(X[::-1].copy()), wp.zeros(6, dtype=F)
    check_gradients(functions, 6, [x, w], [y])


@wp.kernel
def overwrite(x: wp.array(dtype=F)):
    i = wp.tid()
    x[i] = x[i] * F(2.0)


def test_overwriting_an_array_that_is_read_is_exact_without_warning():
    """x[i] = x[i] * 2: the store's adjoint consumes x's gradient, the load adds it back doubled."""
    x = f64([1.0, 2.0], requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(overwrite, 2, inputs=[x])
    with warnings.catch_warnings():
        warnings.simplefilter("error", wp.AdjointWarning)
        tape.backward(grads={x: f64([1.0, 10.0])})
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 20.0])


@wp.kernel
def loop_return(x: wp.array(dtype=F), y: wp.array(dtype=F), n: int):
    i = wp.tid()
    for k in range(n):
        if x[k] > F(1.0):
            return
        wp.atomic_add(y, i, x[k])


def test_return_inside_a_dynamic_loop():
    x, y = f64(X), wp.zeros(6, dtype=F)
    check_gradients(loop_return, 6, [x], [y, 6])


@wp.func
def first_big(x: wp.array(dtype=F), v: F, n: int):
    k = int(0)
    while k < n:
        for j in range(n):
            if x[j] * v > F(1.0) + F(k):
                return x[j] * v * v
        k += 1
    return v * F(3.0)


@wp.kernel
def return_from_nested_loops(x: wp.array(dtype=F), n: int, y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = first_big(x, x[i], n) * x[i]


def test_return_from_nested_loops_in_a_function():
    x, y = f64(X), wp.zeros(6, dtype=F)
    with pytest.warns(wp.AdjointWarning):
        check_gradients(return_from_nested_loops, 6, [x, 6], [y])


@wp.kernel
def running_sum(x: wp.array(dtype=F), n: int, y: wp.array2d(dtype=F)):
    i = wp.tid()
    s = F(0.0)
    for k in range(n):
        s = s + x[k] * x[i]
        y[i, k] = s


def test_storing_a_linearly_carried_value_needs_no_recomputation():
    x, y = f64(X), wp.zeros((6, 6), dtype=F)
    with warnings.catch_warnings():
        warnings.simplefilter("error", wp.AdjointWarning)
        check_gradients(running_sum, 6, [x, 6], [y])
