"""More shapes of kernels: while with break, loops inside functions, arrays chosen by a
condition, multi-dimensional launches, prints, and functions calling functions with arrays."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from adutil import F, adjoint_grads, check_gradients, f64

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

X = np.array([0.5, -1.2, 1.7, -0.3, 2.4, 0.9])


@wp.kernel
def while_break(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    k = int(0)
    while k < 6:
        v = x[k] * x[i]
        if v > F(1.5):
            break
        wp.atomic_add(y, i, v * v)
        k += 1


def test_while_with_break():
    x, y = f64(X), wp.zeros(6, dtype=F)
    with pytest.warns(wp.AdjointWarning):
        check_gradients(while_break, 6, [x], [y])


@wp.func
def poly(x: wp.array(dtype=F), v: F, n: int):
    acc = F(0.0)
    for k in range(n):
        acc = acc * v + x[k]
    return acc


@wp.kernel
def func_with_loop(x: wp.array(dtype=F), y: wp.array(dtype=F), n: int):
    i = wp.tid()
    y[i] = poly(x, x[i], n)


def test_dynamic_loop_inside_a_function():
    x, y = f64(X), wp.zeros(6, dtype=F)
    with pytest.warns(wp.AdjointWarning, match="stores them"):
        check_gradients(func_with_loop, 6, [x], [y, 5])


@wp.kernel
def choose_array(a: wp.array(dtype=F), b: wp.array(dtype=F), flag: int, y: wp.array(dtype=F)):
    i = wp.tid()
    src = a
    if flag > 0:
        src = b
    y[i] = src[i] * src[i]


def test_array_selected_by_a_condition():
    for flag in (0, 1):
        a, b, y = f64(X), f64(X[::-1].copy()), wp.zeros(6, dtype=F)
        ga, gb = adjoint_grads(choose_array, 6, [a, b, flag], [y], {y: np.ones(6)})[:2]
        src = X[::-1] if flag else X
        np.testing.assert_allclose(gb if flag else ga, 2 * src)
        assert not np.any(ga if flag else gb)


@wp.kernel
def grid2d(x: wp.array2d(dtype=F), y: wp.array2d(dtype=F)):
    i, j = wp.tid()
    v = x[i, j]
    y[j, i] = v * v * F(0.5) + x[i, 0]


def test_two_dimensional_launch(force_parallel):
    rng = np.random.default_rng(4)
    xv = rng.normal(size=(40, 30))
    x, y = wp.array(xv, dtype=F), wp.zeros((30, 40), dtype=F)
    (g,) = adjoint_grads(grid2d, (40, 30), [x], [y], {y: np.ones((30, 40))})
    expected = xv.copy()
    expected[:, 0] += 30.0
    np.testing.assert_allclose(g, expected)


@wp.kernel
def with_print(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    v = x[i] * F(3.0)
    if i == 100:
        print(v)
    y[i] = v


def test_prints_are_not_replayed(capfd):
    x, y = f64(X), wp.zeros(6, dtype=F)
    (g,) = adjoint_grads(with_print, 6, [x], [y], {y: np.ones(6)})
    np.testing.assert_allclose(g, 3.0)


@wp.func
def inner_store(out: wp.array(dtype=F), i: int, v: F):
    wp.atomic_add(out, i, v * v)


@wp.func
def outer_store(src: wp.array(dtype=F), out: wp.array(dtype=F), i: int):
    inner_store(out, i, src[i] + src[(i + 1) % 6])
    return src[i] * F(2.0)


@wp.kernel
def nested_array_funcs(src: wp.array(dtype=F), out: wp.array(dtype=F), extra: wp.array(dtype=F)):
    i = wp.tid()
    extra[i] = outer_store(src, out, i)


def test_functions_calling_functions_with_arrays():
    src, out, extra = f64(X), wp.zeros(6, dtype=F), wp.zeros(6, dtype=F)
    check_gradients(nested_array_funcs, 6, [src], [out, extra])
