"""Interop on each device present (``real_device``: cpu, and every cuda:N on a GPU host): warp
arrays shared zero-copy with PyTorch, JAX and DLPack consumers where the memory lives, kernels
launched over them, gradients shared."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

from interop_kernels import scale2, square_sum


def test_torch_zero_copy_launch_and_gradients(real_device) -> None:
    torch = pytest.importorskip("torch")
    if real_device.is_cuda and not torch.cuda.is_available():
        pytest.skip("this torch has no CUDA")
    tdev = torch.device(str(real_device))
    x_t = torch.arange(5, dtype=torch.float32, device=tdev).requires_grad_()
    loss_t = torch.zeros(1, device=tdev, requires_grad=True)
    x, loss = wp.from_torch(x_t), wp.from_torch(loss_t)
    assert x.device == real_device and x.ptr == x_t.data_ptr()
    y = wp.zeros(5, dtype=float, device=real_device)
    wp.launch(scale2, dim=5, inputs=[x, y], device=real_device)
    y_t = wp.to_torch(y)
    assert y_t.device == tdev and y_t.data_ptr() == y.ptr
    np.testing.assert_array_equal(y_t.cpu().numpy(), 2.0 * np.arange(5))
    tape = wp.Tape()
    with tape:
        wp.launch(square_sum, dim=5, inputs=[x, loss], device=real_device)
    tape.backward(loss=loss)
    np.testing.assert_allclose(x_t.grad.cpu().numpy(), 2.0 * np.arange(5))


def test_jax_zero_copy_both_ways(real_device) -> None:
    jax = pytest.importorskip("jax")
    platform = "cpu" if real_device.is_cpu else "gpu"
    try:
        jdev = jax.devices(platform)[real_device.ordinal if real_device.is_cuda else 0]
    except (RuntimeError, IndexError):
        pytest.skip(f"JAX has no {platform} device for {real_device}")
    j = jax.device_put(jax.numpy.arange(8, dtype=jax.numpy.float32), jdev)
    a = wp.from_jax(j)
    assert a.device == real_device
    out = wp.zeros(8, dtype=float, device=real_device)
    wp.launch(scale2, dim=8, inputs=[a, out], device=real_device)
    back = wp.to_jax(out)
    assert back.devices() == {jdev}
    np.testing.assert_array_equal(np.asarray(back), 2.0 * np.arange(8))


def test_dlpack_round_trip_keeps_the_memory(real_device) -> None:
    a = wp.array(np.arange(6, dtype=np.float32), device=real_device)
    b = wp.from_dlpack(a)
    assert b.ptr == a.ptr and b.device == real_device
    wp.launch(scale2, dim=6, inputs=[b, a], device=real_device)
    np.testing.assert_array_equal(a.numpy(), 2.0 * np.arange(6))
