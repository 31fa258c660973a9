"""The Paddle examples of the interoperability guide, run on the CPU.

Results are compared with the same optimization done by Paddle alone (autograd on the same
loss, the same optimizer).
"""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

from interop_kernels import minimize_loss, saxpy

paddle = pytest.importorskip("paddle")


def reference_adam(x0: np.ndarray, lr: float, steps: int) -> np.ndarray:
    """Paddle alone: autograd gradients of sum(x**2), the same optimizer."""
    x = paddle.to_tensor(x0.copy(), stop_gradient=False)
    opt = paddle.optimizer.Adam(learning_rate=lr, parameters=[x])
    for _ in range(steps):
        (x * x).sum().backward()
        opt.step()
        opt.clear_grad()
    return x.numpy()


def test_paddle_tensors_convert_both_ways():
    w = wp.array([1.0, 2.0, 3.0], dtype=float, device="cpu")
    t = wp.to_paddle(w)
    w2 = wp.from_paddle(t)
    t[1] = 20.0
    assert w.numpy().tolist() == [1.0, 20.0, 3.0] and w2.ptr == w.ptr


def test_optimization_using_from_paddle():
    wp.init()
    paddle.seed(0)
    xs = paddle.randn([100, 2])
    xs.stop_gradient = False
    x0 = xs.numpy().copy()
    l = paddle.zeros([1])
    l.stop_gradient = False
    opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=[xs])

    wp_xs = wp.from_paddle(xs)
    wp_l = wp.from_paddle(l)

    steps = 50
    losses = minimize_loss(wp_xs, wp_l, opt, steps, read_loss=l.item)

    expected = reference_adam(x0, 0.1, steps)
    np.testing.assert_allclose(xs.numpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(losses[-1], float((expected**2).sum()), rtol=1e-4)
    assert losses[-1] < 0.5 * losses[0]


def test_optimization_using_to_paddle():
    rng = np.random.default_rng(2)
    x_init = rng.standard_normal((100, 2)).astype(np.float32)
    xs = wp.array(x_init, dtype=wp.float32, requires_grad=True)
    l = wp.zeros(1, dtype=wp.float32, requires_grad=True)
    opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=[wp.to_paddle(xs)])

    steps = 50
    minimize_loss(xs, l, opt, steps)

    expected = reference_adam(x_init, 0.1, steps)
    np.testing.assert_allclose(xs.numpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(l.numpy()[0], float((expected**2).sum()), rtol=1e-4)


def test_performance_note_loops_compute_saxpy():
    device = "cpu"
    n = 16
    x_t = paddle.arange(n, dtype=paddle.float32).to(device=wp.device_to_paddle(device))
    y_t = paddle.ones([n], dtype=paddle.float32).to(device=wp.device_to_paddle(device))
    for _ in range(10):
        x_w = wp.from_paddle(x_t)
        y_w = wp.from_paddle(y_t)
        wp.launch(saxpy, dim=n, inputs=[x_w, y_w, 1.0], device=device)
    x_w = wp.from_paddle(x_t)
    y_w = wp.from_paddle(y_t)
    for _ in range(10):
        wp.launch(saxpy, dim=n, inputs=[x_w, y_w, 1.0], device=device)
    for _ in range(10):  # tensors passed directly are written in place
        wp.launch(saxpy, dim=n, inputs=[x_t, y_t, 1.0], device=device)
    np.testing.assert_array_equal(y_t.numpy(), 1.0 + 30.0 * np.arange(n, dtype=np.float32))

    for n in range(1, 10):
        x_t = paddle.arange(n, dtype=paddle.float32).to(device=wp.device_to_paddle(device))
        y_t = paddle.ones([n], dtype=paddle.float32).to(device=wp.device_to_paddle(device))
        x_ctype = wp.from_paddle(x_t, return_ctype=True)
        y_ctype = wp.from_paddle(y_t, return_ctype=True)
        wp.launch(saxpy, dim=n, inputs=[x_ctype, y_ctype, 1.0], device=device)
        np.testing.assert_array_equal(y_t.numpy(), 1.0 + np.arange(n, dtype=np.float32))


def test_dlpack_with_paddle():
    paddle_tensor = paddle.arange(6, dtype=paddle.float32)
    warp_array3 = wp.from_dlpack(paddle.utils.dlpack.to_dlpack(paddle_tensor))
    assert warp_array3.ptr == paddle_tensor.data_ptr()
    assert wp.from_dlpack(paddle_tensor).ptr == paddle_tensor.data_ptr()
    warp_array = wp.array(np.arange(4, dtype=np.float64))
    consumers = (paddle.utils.dlpack.from_dlpack(warp_array),
                 paddle.utils.dlpack.from_dlpack(wp.to_dlpack(warp_array)))
    for t in consumers:
        assert t.data_ptr() == warp_array.ptr and t.dtype == paddle.float64
        t[0] = 5.0
        assert warp_array.numpy()[0] == 5.0
