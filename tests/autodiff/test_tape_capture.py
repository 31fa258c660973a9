"""``Tape.backward`` recorded by graph capture: every step of it (seeding gradients from arrays,
copy adjoints, zeroing) runs on the device, so replaying the graph computes fresh gradients."""

import numpy as np
import pytest

import warp as wp


@wp.kernel
def _sum(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, a[i])


@wp.kernel
def _scale(a: wp.array(dtype=float), k: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = k * a[i] * a[i]


def test_copy_adjoint_of_strided_view_replays(device):
    n = 4
    x = wp.array(np.arange(2 * n, dtype=np.float32).reshape(n, 2), requires_grad=True, device=device)
    col = x[:, 1]
    dst = wp.zeros(n, dtype=float, requires_grad=True, device=device)
    loss = wp.zeros(1, dtype=float, requires_grad=True, device=device)
    tape = wp.Tape()
    with tape:
        wp.copy(dst, col)
        wp.launch(_sum, dim=n, inputs=[dst], outputs=[loss], device=device)
    tape.backward(loss)  # loads the modules outside the capture
    tape.zero()
    with wp.ScopedCapture(device, force_module_load=False) as capture:
        tape.backward(loss)
    assert not x.grad.numpy().any(), "the backward pass ran while capturing"
    for _ in range(3):
        wp.capture_launch(capture.graph)
    expected = np.zeros((n, 2), np.float32)
    expected[:, 1] = 3.0  # one contribution per replay
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    np.testing.assert_array_equal(dst.grad.numpy(), 0.0)  # consumed by the copy's adjoint


def test_copy_adjoint_keeps_retained_gradient(device):
    src = wp.array(np.ones(3, np.float32), requires_grad=True, device=device)
    dst = wp.zeros(3, dtype=float, requires_grad=True, device=device)
    dst.retain_grad = True
    tape = wp.Tape()
    with tape:
        wp.copy(dst, src)
    tape.backward(grads={dst: wp.array([1.0, 2.0, 3.0], dtype=float, device=device)})
    np.testing.assert_array_equal(src.grad.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(dst.grad.numpy(), [1.0, 2.0, 3.0])


def test_backward_seeded_by_arrays_replays_current_seed(device):
    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True, device=device)
    y = wp.zeros(3, dtype=float, requires_grad=True, device=device)
    seed = wp.zeros(3, dtype=float, device=device)
    tape = wp.Tape()
    with tape:
        wp.launch(_scale, dim=3, inputs=[x, 2.0], outputs=[y], device=device)
    tape.backward(grads={y: seed})
    tape.zero()
    with wp.ScopedCapture(device, force_module_load=False) as backward:
        tape.backward(grads={y: seed})
    with wp.ScopedCapture(device, force_module_load=False) as zero:
        tape.zero()
    for values in ([1.0, 0.0, 0.0], [0.5, 1.0, 2.0]):
        seed.assign(np.float32(values))
        x.grad.fill_(0.25)
        wp.capture_launch(backward.graph)
        # d(2 x^2)/dx = 4 x, times the seed of this replay
        np.testing.assert_allclose(x.grad.numpy(), 4.0 * np.float32([1, 2, 3]) * values + 0.25)
        wp.capture_launch(zero.graph)
        np.testing.assert_array_equal(x.grad.numpy(), 0.0)
        np.testing.assert_array_equal(y.grad.numpy(), 0.0)


def test_cross_device_copy_adjoint_refused_while_capturing(fake_cuda):
    src = wp.ones(4, dtype=float, requires_grad=True, device="cpu")
    dst = wp.zeros(4, dtype=float, requires_grad=True, device="cuda:0")
    tape = wp.Tape()
    with tape:
        wp.copy(dst, src)
    dst.grad.fill_(1.0)
    message = r"Cannot run CPU/CUDA wp.copy\(\) adjoints during CUDA graph capture"
    with pytest.raises(RuntimeError, match=message):
        with wp.ScopedCapture("cuda:0", force_module_load=False):
            tape.backward()
    assert not wp.get_device("cuda:0").is_capturing
    tape.backward()  # outside a capture it goes through the host
    np.testing.assert_array_equal(src.grad.numpy(), 1.0)
