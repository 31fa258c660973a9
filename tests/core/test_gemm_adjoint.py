"""wp.batched_matmul's adjoint on a tape, and the adjoint of an in-place wp.matmul (c is d),
against NumPy's products."""

import numpy as np
import pytest

import warp as wp

pytestmark = pytest.mark.needs_plugin("autodiff")  # wp.Tape


@wp.kernel
def _square_sum_3d(d: wp.array3d(dtype=float), loss: wp.array(dtype=float)):
    n, i, j = wp.tid()
    wp.atomic_add(loss, 0, d[n, i, j] * d[n, i, j])


@wp.kernel
def _square_sum_2d(d: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(loss, 0, d[i, j] * d[i, j])


def _arrays(*values):
    return [wp.array(v, dtype=float, requires_grad=True, device="cpu") for v in values]


def test_batched_matmul_gradients_match_numpy():
    rng = np.random.default_rng(11)
    an, bn, cn = (rng.random(s).astype(np.float32) for s in ((2, 3, 4), (2, 4, 5), (2, 3, 5)))
    A, B, C = _arrays(an, bn, cn)
    D = wp.zeros((2, 3, 5), dtype=float, requires_grad=True, device="cpu")
    loss = wp.zeros(1, dtype=float, requires_grad=True, device="cpu")
    tape = wp.Tape()
    with tape:
        wp.batched_matmul(A, B, C, D, alpha=1.5, beta=0.25, device="cpu")
        wp.launch(_square_sum_3d, dim=D.shape, inputs=[D, loss], device="cpu")
    tape.backward(loss=loss)
    dn = 1.5 * an @ bn + 0.25 * cn
    g = 2.0 * dn
    np.testing.assert_allclose(D.numpy(), dn, rtol=1e-5)
    np.testing.assert_allclose(A.grad.numpy(), 1.5 * g @ bn.transpose(0, 2, 1), rtol=1e-5)
    np.testing.assert_allclose(B.grad.numpy(), 1.5 * an.transpose(0, 2, 1) @ g, rtol=1e-5)
    np.testing.assert_allclose(C.grad.numpy(), 0.25 * g, rtol=1e-5)


def test_in_place_matmul_gradient_of_the_old_d():
    rng = np.random.default_rng(12)
    an, bn, cn = (rng.random(s).astype(np.float32) for s in ((3, 4), (4, 2), (3, 2)))
    A, B, C = _arrays(an, bn, cn)
    loss = wp.zeros(1, dtype=float, requires_grad=True, device="cpu")
    tape = wp.Tape()
    with tape:
        wp.matmul(A, B, C, C, alpha=2.0, beta=3.0, device="cpu")  # c = 2 a @ b + 3 c
        wp.launch(_square_sum_2d, dim=C.shape, inputs=[C, loss], device="cpu")
    tape.backward(loss=loss)
    g = 2.0 * (2.0 * an @ bn + 3.0 * cn)
    np.testing.assert_allclose(A.grad.numpy(), 2.0 * g @ bn.T, rtol=1e-5)
    np.testing.assert_allclose(B.grad.numpy(), 2.0 * an.T @ g, rtol=1e-5)
    np.testing.assert_allclose(C.grad.numpy(), 3.0 * g, rtol=1e-5)  # the old c's gradient replaces
