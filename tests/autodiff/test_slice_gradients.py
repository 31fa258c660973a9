"""Gradients through array slices in kernels reach the sliced array's gradient (the adjoint of a
view is the same slice of the adjoint array): finite differences and analytic values."""

import numpy as np
from adutil import F, check_gradients, f64

import warp as wp


@wp.kernel
def window_energy(x: wp.array(dtype=F), out: wp.array(dtype=F)):
    i = wp.tid()
    w = x[i : i + 3]
    s = F(0.0)
    for k in range(w.shape[0]):
        s += w[k] * w[k] * F(k + 1)
    out[i] = s


@wp.kernel
def reversed_column(x: wp.array2d(dtype=F), j: int, out: wp.array(dtype=F)):
    i = wp.tid()
    col = x[::-2, j]
    out[i] = wp.sin(col[i]) * F(i + 1)


@wp.kernel
def store_into_slice(x: wp.array(dtype=F), y: wp.array2d(dtype=F)):
    i = wp.tid()
    row = y[1, ::2]
    row[i] = F(3.0) * x[i] * x[i]


def test_window_sum_matches_finite_differences_and_analytic():
    data = np.linspace(-1.0, 2.0, 8)
    x = f64(data, requires_grad=True)
    out = wp.zeros(6, dtype=F, requires_grad=True)
    check_gradients(window_energy, 6, [x], [out])
    tape = wp.Tape()
    with tape:
        wp.launch(window_energy, dim=6, inputs=[x, out])
    tape.backward(grads={out: wp.array(np.ones(6), dtype=F)})
    ref = np.zeros(8)
    for i in range(6):
        ref[i : i + 3] += 2.0 * data[i : i + 3] * np.arange(1, 4)
    np.testing.assert_allclose(x.grad.numpy(), ref, rtol=1e-12)


def test_column_of_a_reversed_slice():
    data = np.random.default_rng(5).standard_normal((6, 3))
    x = f64(data, requires_grad=True)
    out = wp.zeros(3, dtype=F, requires_grad=True)
    check_gradients(reversed_column, 3, [x, 2], [out])
    tape = wp.Tape()
    with tape:
        wp.launch(reversed_column, dim=3, inputs=[x, 2, out])
    tape.backward(grads={out: wp.array(np.ones(3), dtype=F)})
    ref = np.zeros_like(data)
    ref[::-2, 2] = np.cos(data[::-2, 2]) * np.arange(1, 4)
    np.testing.assert_allclose(x.grad.numpy(), ref, rtol=1e-12)


def test_store_through_a_slice_sends_its_adjoint_back():
    data = np.array([0.5, -1.0, 2.0])
    x = f64(data, requires_grad=True)
    y = wp.zeros((2, 6), dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(store_into_slice, dim=3, inputs=[x, y])
    ref_y = np.zeros((2, 6))
    ref_y[1, ::2] = 3.0 * data**2
    np.testing.assert_allclose(y.numpy(), ref_y)
    seed = np.arange(12, dtype=np.float64).reshape(2, 6)
    tape.backward(grads={y: wp.array(seed, dtype=F)})
    np.testing.assert_allclose(x.grad.numpy(), 6.0 * data * seed[1, ::2], rtol=1e-12)
