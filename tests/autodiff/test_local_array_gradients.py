"""Kernel-local arrays (``wp.zeros`` in kernel code) carry no gradient: the adjoint says so."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import warp as wp

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def through_local(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    buf = wp.zeros(shape=2, dtype=wp.float32)
    buf[0] = x[i] * 2.0
    y[i] = buf[0] + x[i]


@wp.kernel
def int_local(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    counts = wp.zeros(shape=2, dtype=wp.int32)
    counts[0] = 3
    y[i] = x[i] * float(counts[0])


def _backward(kernel):
    x = wp.array(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    y = wp.zeros(2, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=2, inputs=[x], outputs=[y])
    tape.backward(grads={y: wp.ones(2, dtype=wp.float32)})
    return x.grad.numpy()


def test_float_local_array_warns_that_gradients_stop_there():
    with pytest.warns(wp.AdjointWarning, match="gradients do not flow through kernel-local arrays"):
        grad = _backward(through_local)
    # the path through the local array contributes nothing; the direct term still does
    np.testing.assert_array_equal(grad, [1.0, 1.0])


def test_integer_local_array_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", wp.AdjointWarning)
        grad = _backward(int_local)
    np.testing.assert_array_equal(grad, [3.0, 3.0])


@wp.kernel
def histogram_then_scale(x: wp.array(dtype=wp.float32), n: int, y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    counts = wp.zeros(shape=3, dtype=wp.int32)
    for k in range(n):  # a dynamic loop filling the local array
        counts[k % 3] += 1
    y[i] = x[i] * float(counts[1]) + x[i] * x[i]


def test_integer_local_array_filled_in_a_dynamic_loop_is_replayed():
    x = wp.array(np.array([1.0, -2.0, 0.5], dtype=np.float32), requires_grad=True)
    y = wp.zeros(3, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(histogram_then_scale, dim=3, inputs=[x, 8], outputs=[y])
    tape.backward(grads={y: wp.ones(3, dtype=wp.float32)})
    count1 = sum(1 for k in range(8) if k % 3 == 1)  # 3
    np.testing.assert_allclose(y.numpy(), x.numpy() * count1 + x.numpy() ** 2)
    np.testing.assert_allclose(x.grad.numpy(), count1 + 2.0 * x.numpy())
