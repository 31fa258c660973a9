"""Adjoints of kernels indexing arrays by a single ``i = wp.tid()`` in multi-dimensional launches.

There ``i`` is the first coordinate, shared by many threads: the gradient accumulations indexed
by it must not be the plain (non-atomic) per-thread updates a 1-D launch allows.
"""

from __future__ import annotations

import numpy as np

import warp as wp


@wp.kernel
def spread(x: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    a, b = wp.tid()
    out[a, b] = x[i] * x[i]


def test_gradient_through_a_shared_first_coordinate_loses_no_update():
    n, m = 1, 4_000_000  # long chunks on every worker thread all updating the same gradient
    xv = np.array([0.5], np.float32)
    x = wp.array(xv, requires_grad=True)
    out = wp.zeros((n, m), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(spread, dim=(n, m), inputs=[x, out])
    np.testing.assert_array_equal(out.numpy(), np.repeat((xv * xv)[:, None], m, axis=1))
    for _ in range(3):  # lost updates are a race: give it several chances
        tape.backward(grads={out: wp.ones((n, m), dtype=float)})
        np.testing.assert_array_equal(x.grad.numpy(), 2.0 * m * xv)  # sums of 1.0: exact in float32
        tape.zero()


def test_one_dimensional_launch_gradients_unchanged():
    xv = np.linspace(-1.0, 1.0, 1000).astype(np.float32)
    x = wp.array(xv, requires_grad=True)
    out = wp.zeros((1000, 1), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(spread, dim=(1000, 1), inputs=[x, out])
    tape.backward(grads={out: wp.ones((1000, 1), dtype=float)})
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * xv, rtol=1e-6)
