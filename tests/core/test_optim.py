"""warp.optim.SGD and Adam against NumPy implementations of the same update rules."""

import numpy as np
import pytest

import warp as wp
import warp.optim

pytestmark = pytest.mark.needs_plugin("builtins")  # wp.sqrt in Adam's kernel


def adam_reference(p, grads, lr, b1, b2, eps):
    p = p.astype(np.float64).copy()
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    for t, g in enumerate(grads, start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        p -= lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
    return p


def sgd_reference(p, grads, lr, momentum, dampening, weight_decay, nesterov):
    p = p.astype(np.float64).copy()
    b = None
    for g in grads:
        g = g + weight_decay * p
        if momentum:
            b = g.copy() if b is None else momentum * b + (1 - dampening) * g
            g = g + momentum * b if nesterov else b
        p -= lr * g
    return p


@pytest.mark.parametrize("dtype, np_dtype, tol",
                         [(wp.float32, np.float32, 1e-5), (wp.float64, np.float64, 1e-12)])
def test_adam_matches_numpy(dtype, np_dtype, tol):
    rng = np.random.default_rng(1)
    p0 = rng.standard_normal(37).astype(np_dtype)
    grads = [rng.standard_normal(37).astype(np_dtype) for _ in range(6)]
    params = wp.array(p0, dtype=dtype)
    opt = warp.optim.Adam([params], lr=0.05, betas=(0.8, 0.99), eps=1e-6)
    for g in grads:
        opt.step([wp.array(g, dtype=dtype)])
    expected = adam_reference(p0, grads, 0.05, 0.8, 0.99, 1e-6)
    np.testing.assert_allclose(params.numpy(), expected, rtol=tol, atol=tol)
    assert opt.t == 6


def test_adam_vector_parameters_update_componentwise():
    rng = np.random.default_rng(2)
    p0 = rng.standard_normal((5, 3)).astype(np.float32)
    grads = [rng.standard_normal((5, 3)).astype(np.float32) for _ in range(4)]
    params = wp.array(p0, dtype=wp.vec3)
    opt = warp.optim.Adam([params], lr=0.01)
    for g in grads:
        opt.step([wp.array(g, dtype=wp.vec3)])
    expected = adam_reference(p0, grads, 0.01, 0.9, 0.999, 1e-8)
    np.testing.assert_allclose(params.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert opt.m[0].dtype == wp.vec3 and opt.m[0].shape == (5,)


def test_adam_float16_parameters_keep_float32_moments():
    params = wp.zeros(4, dtype=wp.float16)
    opt = warp.optim.Adam([params], lr=0.25)
    assert opt.m[0].dtype == wp.float32 and opt.v[0].dtype == wp.float32
    opt.step([wp.array(np.array([1.0, -2.0, 0.5, 0.0], dtype=np.float16), dtype=wp.float16)])
    expected = adam_reference(np.zeros(4), [np.array([1.0, -2.0, 0.5, 0.0])], 0.25, 0.9, 0.999, 1e-8)
    np.testing.assert_allclose(params.numpy().astype(np.float64), expected, atol=1e-3)


def test_adam_set_params_keeps_state_and_reset_clears_it():
    params = wp.zeros(3, dtype=wp.float32)
    opt = warp.optim.Adam([params])
    opt.step([wp.ones(3, dtype=wp.float32)])
    m = opt.m[0]
    opt.set_params([params])
    assert opt.m[0] is m and np.all(m.numpy() > 0)
    opt.reset_internal_state()
    assert opt.t == 0 and np.all(opt.m[0].numpy() == 0) and np.all(opt.v[0].numpy() == 0)


def test_set_params_keeps_the_state_of_bound_arrays_only():
    """Rebinding mid-run continues a kept parameter's trajectory (SGD momentum, Adam moments) and
    starts a new parameter from zeroed state, as the NumPy references do."""
    rng = np.random.default_rng(5)
    grads = [rng.standard_normal(4).astype(np.float32) for _ in range(4)]
    optimizers = {
        warp.optim.SGD: (
            dict(lr=0.1, momentum=0.9),
            lambda gs: sgd_reference(np.zeros(4), gs, 0.1, 0.9, 0.0, 0.0, False),
        ),
        warp.optim.Adam: (dict(lr=0.1), lambda gs: adam_reference(np.zeros(4), gs, 0.1, 0.9, 0.999, 1e-8)),
    }
    for cls, (options, reference) in optimizers.items():
        kept = wp.zeros(4, dtype=wp.float32)
        opt = cls([kept], **options)
        for g in grads[:2]:
            opt.step([wp.array(g)])
        fresh = wp.zeros(4, dtype=wp.float32)
        opt.set_params([fresh, kept])
        for g in grads[2:]:
            opt.step([wp.array(g), wp.array(g)])
        np.testing.assert_allclose(kept.numpy(), reference(grads), rtol=1e-5, atol=1e-6)
        if cls is warp.optim.SGD:  # (Adam's bias correction follows the optimizer's step count)
            np.testing.assert_allclose(fresh.numpy(), reference(grads[2:]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("momentum, dampening, weight_decay, nesterov",
                         [(0.0, 0.0, 0.0, False), (0.9, 0.0, 0.0, False), (0.9, 0.3, 0.01, False),
                          (0.8, 0.0, 0.1, True)])
def test_sgd_matches_numpy(momentum, dampening, weight_decay, nesterov):
    rng = np.random.default_rng(3)
    p0 = rng.standard_normal((4, 2)).astype(np.float32)
    grads = [rng.standard_normal((4, 2)).astype(np.float32) for _ in range(5)]
    params = wp.array(p0, dtype=wp.vec2)
    opt = warp.optim.SGD([params], lr=0.1, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                         nesterov=nesterov)
    for g in grads:
        opt.step([wp.array(g, dtype=wp.vec2)])
    expected = sgd_reference(p0, grads, 0.1, momentum, dampening, weight_decay, nesterov)
    np.testing.assert_allclose(params.numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.needs_plugin("autodiff")
def test_adam_minimizes_through_the_tape():
    @wp.kernel
    def sum_of_squares(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
        i = wp.tid()
        wp.atomic_add(loss, 0, (x[i] - 1.0) * (x[i] - 1.0))

    x = wp.array(np.array([3.0, -2.0, 0.5], dtype=np.float32), requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    opt = warp.optim.Adam([x], lr=0.05)
    tape = wp.Tape()
    for _ in range(400):
        tape.reset()
        loss.zero_()
        with tape:
            wp.launch(sum_of_squares, dim=3, inputs=[x, loss])
        tape.backward(loss)
        opt.step([x.grad])
    np.testing.assert_allclose(x.numpy(), 1.0, atol=1e-2)


@pytest.mark.parametrize("cls", [warp.optim.SGD, warp.optim.Adam])
def test_errors(cls):
    name = cls.__name__
    unset = rf"{name} parameters must be set before calling step\(\), got None"
    with pytest.raises(RuntimeError, match=unset):
        cls().step([])
    params = wp.zeros(2, dtype=wp.float32)
    opt = cls([params])
    bad_dtype = f"{name} gradient dtype must match parameter dtype float32, got int32"
    with pytest.raises(TypeError, match=bad_dtype):
        opt.step([wp.zeros(2, dtype=wp.int32)])
    bad_shape = rf"{name} gradient shape must match parameter shape \(2,\), got \(2, 1\)"
    with pytest.raises(ValueError, match=bad_shape):
        opt.step([wp.zeros((2, 1), dtype=wp.float32)])
    with pytest.raises(ValueError, match=rf"{name}.step\(\) expects 1 gradient arrays"):
        opt.step([])
    with pytest.raises(TypeError, match=f"{name} parameters must be arrays of float16, float32 or float64"):
        cls([wp.zeros(2, dtype=wp.int32)])
    with pytest.raises(ValueError, match=f"{name} parameters must be contiguous"):
        cls([wp.zeros((4, 4), dtype=wp.float32)[:, 1]])
