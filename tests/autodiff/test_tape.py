"""wp.Tape: recording, backward from a loss or from seed gradients, gradients map, zero/reset."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from adutil import F, f64, has_builtin

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def scale_square(x: wp.array(dtype=F), s: F, y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = s * x[i] * x[i]


@wp.kernel
def plus_sin_like(y: wp.array(dtype=F), w: wp.array(dtype=F), z: wp.array(dtype=F)):
    i = wp.tid()
    v = y[i]
    z[i] = v * w[i] - v * v * v / F(6.0)


@wp.kernel
def sum_loss(z: wp.array(dtype=F), loss: wp.array(dtype=F)):
    i = wp.tid()
    wp.atomic_add(loss, 0, z[i])


def _chain(n=8, seed=0):
    rng = np.random.default_rng(seed)
    xv, wv = rng.normal(size=n), rng.normal(size=n)
    x, w = f64(xv, requires_grad=True), f64(wv, requires_grad=True)
    y, z = wp.zeros(n, dtype=F, requires_grad=True), wp.zeros(n, dtype=F, requires_grad=True)
    loss = wp.zeros(1, dtype=F, requires_grad=True)
    return xv, wv, x, w, y, z, loss


def _expected(xv, wv, s):
    yv = s * xv * xv
    dz_dy = wv - yv * yv / 2.0
    return dz_dy * 2 * s * xv, yv  # dloss/dx, dloss/dw


def _record(tape, x, w, y, z, loss, s=1.5):
    with tape:
        wp.launch(scale_square, dim=len(x), inputs=[x, s], outputs=[y])
        wp.launch(plus_sin_like, dim=len(x), inputs=[y, w], outputs=[z])
        wp.launch(sum_loss, dim=len(x), inputs=[z], outputs=[loss])


def test_backward_from_scalar_loss_through_three_kernels():
    xv, wv, x, w, y, z, loss = _chain()
    tape = wp.Tape()
    _record(tape, x, w, y, z, loss)
    assert len(tape.launches) == 3
    tape.backward(loss=loss)
    gx, gw = _expected(xv, wv, 1.5)
    np.testing.assert_allclose(x.grad.numpy(), gx)
    np.testing.assert_allclose(w.grad.numpy(), gw)
    assert tape.gradients[x] is x.grad and tape.gradients[w] is w.grad
    assert loss.grad.numpy()[0] == 1.0


def test_backward_positional_loss_and_context_manager_value():
    xv, wv, x, w, y, z, loss = _chain()
    with wp.Tape() as tape:
        wp.launch(scale_square, dim=len(x), inputs=[x, 1.5], outputs=[y])
        wp.launch(plus_sin_like, dim=len(x), inputs=[y, w], outputs=[z])
        wp.launch(sum_loss, dim=len(x), inputs=[z], outputs=[loss])
    tape.backward(loss)
    np.testing.assert_allclose(x.grad.numpy(), _expected(xv, wv, 1.5)[0])


def test_gradients_accumulate_until_zeroed():
    xv, wv, x, w, y, z, loss = _chain()
    tape = wp.Tape()
    with tape:
        wp.launch(scale_square, dim=len(x), inputs=[x, 1.5], outputs=[y])
    seed = f64(np.ones(len(x)))
    tape.backward(grads={y: seed})
    tape.backward(grads={y: seed})  # the seed is assigned, the input gradient accumulates
    np.testing.assert_allclose(x.grad.numpy(), 2 * 3.0 * xv)
    tape.zero()
    assert not np.any(x.grad.numpy()) and not np.any(y.grad.numpy())
    # through the chain: intermediate gradients accumulate too, hence zero() between passes
    tape = wp.Tape()
    _record(tape, x, w, y, z, loss)
    tape.backward(loss=loss)
    tape.zero()
    tape.backward(loss=loss)
    np.testing.assert_allclose(x.grad.numpy(), _expected(xv, wv, 1.5)[0])


def test_reset_forgets_launches_and_zeroes():
    xv, wv, x, w, y, z, loss = _chain()
    tape = wp.Tape()
    _record(tape, x, w, y, z, loss)
    tape.backward(loss=loss)
    tape.reset()
    assert tape.launches == [] and not np.any(x.grad.numpy())
    tape.backward(loss=loss)  # nothing recorded: gradients stay zero
    assert not np.any(x.grad.numpy())


def test_arrays_without_gradients_are_skipped():
    xv, wv, x, _, y, z, loss = _chain()
    w = f64(wv)  # no requires_grad
    tape = wp.Tape()
    _record(tape, x, w, y, z, loss)
    tape.backward(loss=loss)
    assert w.grad is None and w not in tape.gradients
    np.testing.assert_allclose(x.grad.numpy(), _expected(xv, wv, 1.5)[0])


def test_backward_with_seed_gradients():
    xv, wv, x, w, y, z, loss = _chain()
    tape = wp.Tape()
    with tape:
        wp.launch(scale_square, dim=len(x), inputs=[x, 2.0], outputs=[y])
    seed = np.arange(len(x), dtype=np.float64)
    tape.backward(grads={y: f64(seed)})
    np.testing.assert_allclose(x.grad.numpy(), seed * 4.0 * xv)
    # an output array without a gradient adopts the seed array
    out = wp.zeros(len(x), dtype=F)
    x.grad.zero_()
    tape = wp.Tape()
    with tape:
        wp.launch(scale_square, dim=len(x), inputs=[x, 2.0], outputs=[out])
    tape.backward(grads={out: f64(seed)})
    np.testing.assert_allclose(x.grad.numpy(), seed * 4.0 * xv)


def test_only_launches_inside_the_block_are_recorded():
    _, _, x, w, y, z, loss = _chain()
    tape = wp.Tape()
    wp.launch(scale_square, dim=len(x), inputs=[x, 1.0], outputs=[y])
    with tape:
        wp.launch(scale_square, dim=len(x), inputs=[x, 1.0], outputs=[y])
        wp.launch(scale_square, dim=len(x), inputs=[x, 1.0], outputs=[y], record_tape=False)
    wp.launch(scale_square, dim=len(x), inputs=[x, 1.0], outputs=[y])
    assert len(tape.launches) == 1


def test_loss_errors():
    _, _, x, _, y, _, _ = _chain()
    tape = wp.Tape()
    with tape:
        wp.launch(scale_square, dim=len(x), inputs=[x, 1.0], outputs=[y])
    with pytest.raises(RuntimeError, match="scalar loss"):
        tape.backward(loss=y)
    with pytest.raises(RuntimeError, match="requires_grad"):
        tape.backward(loss=wp.zeros(1, dtype=F))


def test_nested_tapes_are_rejected():
    with wp.Tape():
        with pytest.raises(RuntimeError, match="already recording"):
            with wp.Tape():
                pass


def test_record_func_runs_custom_backward():
    _, _, x, _, y, _, _ = _chain()
    calls = []
    tape = wp.Tape()
    with tape:
        wp.launch(scale_square, dim=len(x), inputs=[x, 1.0], outputs=[y])
        tape.record_func(lambda: calls.append(len(calls)), [y])
    tape.backward(grads={y: f64(np.ones(len(x)))})
    assert calls == [0] and tape.gradients[y] is y.grad
    with pytest.raises(RuntimeError):
        tape.record_func(lambda: None, [f64([1.0])])


@wp.kernel
def loss_pow(xs: wp.array(dtype=float, ndim=2), l: wp.array(dtype=float)):
    tid = wp.tid()
    wp.atomic_add(l, 0, xs[tid, 0] ** 2.0 + xs[tid, 1] ** 2.0)


@wp.kernel
def loss_mul(xs: wp.array(dtype=float, ndim=2), l: wp.array(dtype=float)):
    tid = wp.tid()
    wp.atomic_add(l, 0, xs[tid, 0] * xs[tid, 0] + xs[tid, 1] * xs[tid, 1])


@pytest.mark.parametrize("kernel", [loss_pow, loss_mul], ids=["pow", "mul"])
def test_optimization_loop_from_the_interoperability_guide(kernel):
    """The guide's Tape-driven loop (``wp.to_torch`` variant) with a NumPy gradient step."""
    if kernel is loss_pow and not has_builtin("pow", wp.float32, wp.float32):
        pytest.skip("wp.pow is not installed")
    xs = wp.array(np.random.default_rng(0).normal(size=(100, 2)), dtype=wp.float32, requires_grad=True)
    l = wp.zeros(1, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=len(xs), inputs=[xs], outputs=[l], device=xs.device)
    first = l.numpy()[0]
    for _ in range(50):
        tape.zero()
        tape.backward(loss=l)
        np.testing.assert_allclose(xs.grad.numpy(), 2 * xs.numpy(), rtol=1e-5)
        xs.assign(xs.numpy() - 0.1 * xs.grad.numpy())  # numpy() of a cuda array is a copy
        l.zero_()
        wp.launch(kernel, dim=len(xs), inputs=[xs], outputs=[l], device=xs.device)
    assert l.numpy()[0] < 1e-6 * first


def test_exports():
    import warp.autograd
    from warp_autodiff import Tape

    assert wp.Tape is Tape
    assert warp.autograd is wp.autograd
    assert callable(wp.autograd.gradcheck) and callable(wp.autograd.jacobian)


@pytest.mark.parametrize(
    "bad",
    [
        lambda x, w, y: wp.launch(scale_square, dim=len(x), inputs=[x, "1.5"], outputs=[y]),  # wrong type
        lambda x, w, y: wp.launch(scale_square, dim=len(x), inputs=[x], outputs=[y]),  # missing argument
        lambda x, w, y: wp.launch(scale_square, dim=-3, inputs=[x, 1.5], outputs=[y]),  # bad dims
        lambda x, w, y: wp.launch(
            plus_sin_like, dim=len(x), inputs=[y, wp.zeros(3, dtype=wp.int32)], outputs=[y]
        ),
    ],
)
def test_a_refused_launch_leaves_no_trace_on_the_tape(bad):
    xv, wv, x, w, y, z, loss = _chain()
    tape = wp.Tape()
    s = 1.5
    with tape:
        wp.launch(scale_square, dim=len(x), inputs=[x, s], outputs=[y])
        with pytest.raises((TypeError, ValueError)):
            bad(x, w, y)
        wp.launch(plus_sin_like, dim=len(x), inputs=[y, w], outputs=[z])
        wp.launch(sum_loss, dim=len(x), inputs=[z], outputs=[loss])
    assert len(tape.launches) == 3
    for _ in range(2):  # every backward works, not only the first
        tape.backward(loss)
        dx, dw = _expected(xv, wv, s)
        np.testing.assert_allclose(x.grad.numpy(), dx, rtol=1e-10)
        np.testing.assert_allclose(w.grad.numpy(), dw, rtol=1e-10)
        tape.zero()


def test_launches_have_warps_layout_and_the_adjoint_keeps_the_launch_shape(device):
    """``tape.launches`` entries are NVIDIA Warp's ``[kernel, dim, max_blocks, inputs, outputs,
    device, block_dim, metadata]``; the backward pass launches with the entry's shape."""
    xv, wv, x, w, y, z, loss = _chain()
    tape = wp.Tape()
    with tape:
        wp.launch(scale_square, dim=len(x), inputs=[x, 1.5], outputs=[y], block_dim=64, max_blocks=3)
    entry = tape.launches[0]
    assert len(entry) == 8
    assert entry[0] is scale_square and entry[1] == len(x) and entry[2] == 3
    assert entry[3] == [x, 1.5] and entry[4] == [y] and entry[5] == wp.get_device(device)
    assert entry[6] == 64 and entry[7] is None
    tape.backward(grads={y: wp.ones_like(y)})
    np.testing.assert_allclose(x.grad.numpy(), 3.0 * xv)
    if wp.get_device(device).is_cuda:
        tape.zero()
        entry[6] = 2048  # more threads than a block holds: the adjoint launch is refused
        with pytest.raises(RuntimeError, match=r"Error launching kernel: .*scale_square.*Warp CUDA error"):
            tape.backward(grads={y: wp.ones_like(y)})
