"""Gradients through structs built in a kernel (``S(a.x, a.v)``, ``s.f = arr``) holding arrays:
writes through their array fields reach the gradient arrays of the arrays they came from."""

from __future__ import annotations

import numpy as np

import warp as wp


@wp.struct
class Params:
    scale: float
    m: wp.array(dtype=float)


@wp.struct
class Pair:
    x: wp.array(dtype=wp.vec3)
    y: wp.array(dtype=wp.vec3)


@wp.kernel
def step_with_copies(src: Pair, dst: Pair, params: Params):
    i = wp.tid()
    rescaled = Params(2.0, params.m)
    out = Pair(dst.x, dst.y)
    out.y[i] = src.y[i] * rescaled.m[i] * rescaled.scale
    moved = Pair()
    moved.x = out.x
    moved.x[i] = src.x[i] + out.y[i]


@wp.kernel
def sum_squares(x: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.dot(x[i], x[i]))


def _run(m, x, y):
    params = Params()
    params.scale = 1.0
    params.m = wp.array(m, dtype=float, requires_grad=True, device="cpu")
    src = Pair()
    src.x = wp.array(x, dtype=wp.vec3, requires_grad=True, device="cpu")
    src.y = wp.array(y, dtype=wp.vec3, requires_grad=True, device="cpu")
    dst = Pair()
    dst.x = wp.zeros_like(src.x, requires_grad=True)
    dst.y = wp.zeros_like(src.y, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True, device="cpu")
    tape = wp.Tape()
    with tape:
        wp.launch(step_with_copies, dim=len(m), inputs=[src, dst, params], device="cpu")
        wp.launch(sum_squares, dim=len(m), inputs=[dst.x, loss], device="cpu")
    tape.backward(loss)
    return loss.numpy()[0], src.x.grad.numpy(), src.y.grad.numpy(), params.m.grad.numpy()


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(7)
    n = 4
    m = rng.random(n) + 0.5
    x = rng.normal(size=(n, 3))
    y = rng.normal(size=(n, 3))
    _, gx, gy, gm = _run(m, x, y)

    def loss_of(m_, x_, y_):
        z = x_ + y_ * m_[:, None] * 2.0
        return float((z * z).sum())

    eps = 1e-3
    for arr, grad in ((x, gx), (y, gy)):
        fd = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            plus, minus = arr.copy(), arr.copy()
            plus[idx] += eps
            minus[idx] -= eps
            args = [(plus if a is arr else a) for a in (m, x, y)]
            args_m = [(minus if a is arr else a) for a in (m, x, y)]
            fd[idx] = (loss_of(*args) - loss_of(*args_m)) / (2 * eps)
        np.testing.assert_allclose(grad, fd, rtol=2e-3, atol=2e-3)
    fd_m = np.zeros(n)
    for i in range(n):
        plus, minus = m.copy(), m.copy()
        plus[i] += eps
        minus[i] -= eps
        fd_m[i] = (loss_of(plus, x, y) - loss_of(minus, x, y)) / (2 * eps)
    np.testing.assert_allclose(gm, fd_m, rtol=2e-3, atol=2e-3)
    assert np.abs(gx).sum() > 0 and np.abs(gm).sum() > 0
