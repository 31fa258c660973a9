"""Adjoint of ``wp.eig3``: the gradient with respect to the symmetric matrix decomposed.

``adj_A = sym(Q (diag(adj_d) + F o (Q^T adj_Q)) Q^T)``, checked against central finite
differences along symmetric perturbations ``E_ij + E_ji`` in float64, and at repeated eigenvalues
where losses of the eigenvalues alone must keep finite, exact gradients (``sum(d) = trace(A)``
has gradient ``I``, ``dot(d, d) = trace(A^2)`` gradient ``2A``), not NaN from ``0 / 0``.
"""

from __future__ import annotations

import numpy as np

import warp as wp

M33 = wp.mat33d
RNG = np.random.default_rng(5)


@wp.kernel
def k_eig_mixed(a: wp.array(dtype=M33), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    q, d = wp.eig3(a[i])
    # eigenvectors are defined up to sign: weigh sign-invariant products of their components
    total = wp.float64(0.0)
    for j in range(3):
        total = total + wp.float64(j + 1) * q[0, j] * q[1, j] - wp.float64(0.5) * q[2, j] * q[0, j] * d[j]
    y[i] = total + d[0] + d[1] + d[2]


@wp.kernel
def k_eig_values(a: wp.array(dtype=M33), mode: int, y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    q, d = wp.eig3(a[i])
    if mode == 0:
        y[i] = d[0] + d[1] + d[2]
    else:
        y[i] = wp.dot(d, d)


def _losses(kernel, mats: np.ndarray, *extra) -> np.ndarray:
    y = wp.zeros(len(mats), dtype=wp.float64)
    wp.launch(kernel, dim=len(mats), inputs=[wp.array(mats, dtype=M33), *extra, y])
    return y.numpy()


def _gradient(kernel, mats: np.ndarray, *extra) -> np.ndarray:
    a = wp.array(mats, dtype=M33, requires_grad=True)
    y = wp.zeros(len(mats), dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(kernel, dim=len(mats), inputs=[a, *extra, y])
    tape.backward(grads={y: wp.ones_like(y)})
    return a.grad.numpy()


def _rotated(eigenvalues) -> np.ndarray:
    q, _ = np.linalg.qr(RNG.normal(size=(3, 3)))
    return q @ np.diag(eigenvalues) @ q.T


def test_eig3_gradient_matches_symmetric_finite_differences():
    mats = np.array([_rotated([2.5, 0.8, -1.1]) for _ in range(4)])
    grad = _gradient(k_eig_mixed, mats)
    np.testing.assert_allclose(grad, np.transpose(grad, (0, 2, 1)), atol=1e-9)  # symmetric
    eps = 1e-6
    for i in range(3):
        for j in range(i, 3):
            s = np.zeros((3, 3))
            s[i, j] = s[j, i] = 1.0
            fd = (_losses(k_eig_mixed, mats + eps * s) - _losses(k_eig_mixed, mats - eps * s)) / (2 * eps)
            directional = grad[:, i, j] + (grad[:, j, i] if i != j else 0.0)
            np.testing.assert_allclose(directional, fd, rtol=1e-5, atol=1e-6)


def test_eig3_eigenvalue_gradients_at_repeated_eigenvalues_are_finite():
    mats = np.array([np.diag([2.0, 2.0, 3.0]), np.eye(3), np.zeros((3, 3)), _rotated([2.0, 2.0, 3.0]),
                     np.diag([2.0, 2.0 + 1e-5, 3.0])])
    identity = np.broadcast_to(np.eye(3), mats.shape)
    np.testing.assert_allclose(_gradient(k_eig_values, mats, 0), identity, atol=1e-9)
    np.testing.assert_allclose(_gradient(k_eig_values, mats, 1), 2.0 * mats, atol=1e-9)
