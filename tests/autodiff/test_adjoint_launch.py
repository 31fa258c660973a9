"""wp.launch(..., adjoint=True): the Rosenbrock example of the interoperability guide, None
adjoints, and kernels compiled without backward code."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from adutil import F, f64, has_builtin
from guide_rosenbrock import eval_rosenbrock, torch_rosenbrock_function  # the guide's example, as written

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


# The same with products instead of ``**`` (runs with warp-core alone).
@wp.func
def rosenbrock_mul(x: float, y: float):
    return (1.0 - x) * (1.0 - x) + 100.0 * (y - x * x) * (y - x * x)


@wp.kernel
def eval_rosenbrock_mul(xs: wp.array(dtype=wp.vec2), z: wp.array(dtype=float)):
    i = wp.tid()
    x = xs[i]
    z[i] = rosenbrock_mul(x[0], x[1])


def _rosenbrock_grad(xy):
    x, y = xy[:, 0].astype(np.float64), xy[:, 1].astype(np.float64)
    return np.stack([-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x)], axis=1)


def _kernel(name):
    if name == "pow":
        if not has_builtin("pow", wp.float32, wp.float32):
            pytest.skip("wp.pow is not installed")
        return eval_rosenbrock
    return eval_rosenbrock_mul


class Rosenbrock:
    """The guide's torch.autograd.Function, with the framework parts done in NumPy."""

    @staticmethod
    def forward(ctx, kernel, xy):
        ctx.xy = xy
        ctx.num_points = len(xy)
        ctx.z = wp.zeros(ctx.num_points, requires_grad=True)
        wp.launch(kernel=kernel, dim=ctx.num_points, inputs=[ctx.xy], outputs=[ctx.z])
        return ctx.z

    @staticmethod
    def backward(ctx, kernel, adj_z):
        ctx.z.grad = adj_z
        wp.launch(
            kernel=kernel,
            dim=ctx.num_points,
            inputs=[ctx.xy],
            outputs=[ctx.z],
            adj_inputs=[ctx.xy.grad],
            adj_outputs=[ctx.z.grad],
            adjoint=True,
        )
        return ctx.xy.grad


@pytest.mark.parametrize("name", ["pow", "mul"])
def test_rosenbrock_adjoint_launch(name):
    kernel = _kernel(name)
    rng = np.random.default_rng(42)
    xy = wp.array(rng.normal(size=(64, 2)).astype(np.float32), dtype=wp.vec2, requires_grad=True)

    class Ctx:
        pass

    ctx = Ctx()
    z = Rosenbrock.forward(ctx, kernel, xy)
    x, y = xy.numpy()[:, 0], xy.numpy()[:, 1]
    np.testing.assert_allclose(z.numpy(), (1 - x) ** 2 + 100 * (y - x * x) ** 2, rtol=1e-5)
    grad = Rosenbrock.backward(ctx, kernel, wp.ones(64, dtype=float))
    expected = _rosenbrock_grad(xy.numpy())
    np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-4, atol=1e-3 * np.abs(expected).max())


@pytest.mark.parametrize("name", ["pow", "mul"])
def test_rosenbrock_optimization_with_adam(name):
    """Minimize with Adam driven by adjoint launches (the guide's loop, shortened): the mean
    point approaches the minimum at (1, 1)."""
    kernel = _kernel(name)
    num_points, lr = 200, 5e-2
    xy_np = np.random.default_rng(42).normal(size=(num_points, 2)).astype(np.float32)
    xy = wp.array(xy_np, dtype=wp.vec2, requires_grad=True)
    z = wp.zeros(num_points, requires_grad=True)
    ones = wp.ones(num_points, dtype=float)
    m, v = np.zeros_like(xy_np), np.zeros_like(xy_np)
    b1, b2 = 0.9, 0.999
    for step in range(1, 3001):
        xy.grad.zero_()
        wp.launch(kernel, dim=num_points, inputs=[xy], outputs=[z])
        wp.launch(kernel, dim=num_points, inputs=[xy], outputs=[z], adj_inputs=[xy.grad], adj_outputs=[ones],
                  adjoint=True)
        g = xy.grad.numpy()
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        xy.assign(xy.numpy() - lr * (m / (1 - b1**step)) / (np.sqrt(v / (1 - b2**step)) + 1e-8))
    np.testing.assert_allclose(np.mean(xy.numpy(), axis=0), [1.0, 1.0], atol=0.1)


def test_rosenbrock_torch_autograd_function():
    torch = pytest.importorskip("torch")
    if not hasattr(wp, "from_torch"):
        pytest.skip("warp-interop (wp.from_torch) is not installed")
    device = wp.get_device()
    if device.is_cuda and (not torch.cuda.is_available() or device.ordinal >= torch.cuda.device_count()):
        pytest.skip(f"torch cannot allocate on {device}")

    TorchRosenbrock = torch_rosenbrock_function(eval_rosenbrock_mul)

    xy = torch.tensor(np.random.default_rng(0).normal(size=(16, 2)), dtype=torch.float32,
                      device=str(device), requires_grad=True)
    z = TorchRosenbrock.apply(xy, 16)
    z.backward(torch.ones_like(z))
    # from_torch allocates xy.grad and the gradient returned by backward() aliases it, so autograd's
    # accumulation into xy.grad adds it a second time (as with NVIDIA Warp; Adam is scale invariant).
    expected = 2.0 * _rosenbrock_grad(xy.detach().cpu().numpy())
    np.testing.assert_allclose(xy.grad.cpu().numpy(), expected, rtol=1e-4, atol=1e-2)


@wp.kernel
def two_inputs(a: wp.array(dtype=F), b: wp.array(dtype=F), out: wp.array(dtype=F)):
    i = wp.tid()
    out[i] = a[i] * b[i] + a[i]


def test_none_adjoints_are_skipped():
    """None for an array without a gradient: no adjoint (arrays here have no .grad)."""
    a, b, out = f64([1.0, 2.0]), f64([3.0, 4.0]), wp.zeros(2, dtype=F)
    adj_a = wp.zeros(2, dtype=F)
    adj_out = f64([1.0, 10.0])
    wp.launch(two_inputs, 2, inputs=[a, b], outputs=[out], adj_inputs=[adj_a, None], adj_outputs=[adj_out],
              adjoint=True)
    np.testing.assert_allclose(adj_a.numpy(), [4.0, 50.0])
    # a missing output adjoint reads as zero
    adj_b = wp.zeros(2, dtype=F)
    wp.launch(two_inputs, 2, inputs=[a, b], outputs=[out], adj_inputs=[None, adj_b], adj_outputs=[None],
              adjoint=True)
    assert not np.any(adj_b.numpy())


def test_given_output_adjoint_is_left_in_place():
    """An output adjoint the caller passes (not the output's own .grad) is read, not consumed: a
    framework's incoming gradient may be shared with other consumers. Each launch gives the same
    input adjoint (d out / d a = b + 1)."""
    a, b, out = f64([1.0, 2.0]), f64([3.0, 4.0]), wp.zeros(2, dtype=F)
    seed = f64([1.0, 10.0])
    for _ in range(2):
        adj_a = wp.zeros(2, dtype=F)
        wp.launch(two_inputs, 2, inputs=[a, b], outputs=[out], adj_inputs=[adj_a, None], adj_outputs=[seed],
                  adjoint=True)
        np.testing.assert_allclose(adj_a.numpy(), [4.0, 50.0])
        np.testing.assert_allclose(seed.numpy(), [1.0, 10.0])


def test_given_output_adjoints_without_input_adjoints():
    """Only output adjoints given (adj_inputs empty: the inputs' own .grad): the given output
    seed is still left in place and the input gradient accumulates d out / d a = b + 1."""
    a, b = f64([1.0, 2.0], requires_grad=True), f64([3.0, 4.0])
    seed = f64([1.0, 10.0])
    wp.launch(two_inputs, 2, inputs=[a, b], outputs=[wp.zeros(2, dtype=F)], adj_outputs=[seed], adjoint=True)
    np.testing.assert_allclose(a.grad.numpy(), [4.0, 50.0])
    np.testing.assert_allclose(seed.numpy(), [1.0, 10.0])


def test_own_output_gradient_is_consumed():
    """The output's own .grad (given or by None) is consumed by the adjoint of the store, as on a
    tape: the overwritten value receives no gradient after it."""
    a, b = f64([1.0, 2.0]), f64([3.0, 4.0])
    out = wp.zeros(2, dtype=F, requires_grad=True)
    for given in (None, out.grad):
        out.grad.assign(np.array([1.0, 10.0]))
        adj_a = wp.zeros(2, dtype=F)
        wp.launch(two_inputs, 2, inputs=[a, b], outputs=[out], adj_inputs=[adj_a, None], adj_outputs=[given],
                  adjoint=True)
        np.testing.assert_allclose(adj_a.numpy(), [4.0, 50.0])
        assert not np.any(out.grad.numpy())


def test_adjoint_launch_argument_count():
    a, b, out = f64([1.0]), f64([3.0]), wp.zeros(1, dtype=F)
    with pytest.raises(TypeError, match="one adjoint argument per argument"):
        wp.launch(
            two_inputs, 1, inputs=[a, b], outputs=[out], adj_inputs=[None], adj_outputs=[None], adjoint=True
        )


@wp.kernel
def strided_kernel(a: wp.array(dtype=F), out: wp.array(dtype=F)):
    i = wp.tid()
    out[i] = a[i] * a[i]


def test_adjoint_with_strided_arrays():
    base = f64(np.arange(8.0))
    a = base[::2]
    grad_base = wp.zeros(8, dtype=F)
    adj_a = grad_base[::2]
    out = wp.zeros(4, dtype=F)
    wp.launch(strided_kernel, 4, inputs=[a], outputs=[out], adj_inputs=[adj_a], adj_outputs=[f64(np.ones(4))],
              adjoint=True)
    np.testing.assert_allclose(grad_base.numpy(), [0, 0, 4, 0, 8, 0, 12, 0])


def test_adjoint_in_debug_mode_checks_bounds(debug_mode):
    a, out = f64([1.0, 2.0, 3.0]), wp.zeros(3, dtype=F)
    adj_a = wp.zeros(3, dtype=F)
    wp.launch(
        strided_kernel, 3, inputs=[a], outputs=[out], adj_inputs=[adj_a], adj_outputs=[None], adjoint=True
    )
    assert not np.any(adj_a.numpy())
    wp.launch(strided_kernel, 3, inputs=[a], outputs=[out], adj_inputs=[adj_a], adj_outputs=[f64(np.ones(3))],
              adjoint=True)
    np.testing.assert_allclose(adj_a.numpy(), [2.0, 4.0, 6.0])
    with pytest.raises(IndexError):
        wp.launch(
            strided_kernel,
            4,
            inputs=[f64(np.ones(4))],
            outputs=[out],
            adj_inputs=[wp.zeros(4, dtype=F)],
            adj_outputs=[f64(np.ones(3))],
            adjoint=True,
        )


@wp.kernel
def _square(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def test_none_adjoint_of_an_array_with_grad_is_its_grad():
    values = np.array([1.0, -2.0, 3.5])
    x = wp.array(values, dtype=F, requires_grad=True)
    y = wp.empty_like(x)
    seed = np.array([1.0, 0.5, 2.0])
    y.grad.assign(seed)
    wp.launch(_square, dim=3, inputs=[x, y], adj_inputs=[None, None], adjoint=True)
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * values * seed)
    # no adjoints at all: the same
    x.grad.zero_()
    y.grad.assign(seed)
    wp.launch(_square, dim=3, inputs=[x, y], adjoint=True)
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * values * seed)
    # a recorded adjoint launch, and one built with wp.Launch and parameters set by name
    x.grad.zero_()
    y.grad.assign(seed)
    cmd = wp.launch(_square, dim=3, inputs=[x, y], adj_inputs=[None, None], adjoint=True, record_cmd=True)
    cmd.launch()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * values * seed)
    x.grad.zero_()
    y.grad.assign(seed)
    cmd = wp.Launch(_square, x.device, adjoint=True)
    cmd.set_param_by_name("x", x)
    cmd.set_param_by_name("y", y)
    cmd.set_dim(3)
    cmd.launch()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * values * seed)
    # an adjoint set explicitly wins over the array's .grad
    other = wp.zeros(3, dtype=F)
    y.grad.assign(seed)
    cmd.set_param_by_name("x", other, adjoint=True)
    cmd.set_param_by_name("x", x)
    cmd.launch()
    np.testing.assert_allclose(other.numpy(), 2.0 * values * seed)



@wp.struct
class _Inner:
    w: wp.array(dtype=F)


@wp.struct
class _Params:
    x: wp.array(dtype=F)
    inner: _Inner
    scale: F


@wp.kernel
def _struct_loss(p: _Params, y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = p.x[i] * p.x[i] * p.inner.w[i] * p.scale


def test_none_adjoint_of_a_struct_is_a_struct_of_its_arrays_grads():
    xv, wv, seed = np.array([1.0, -2.0, 3.0]), np.array([0.5, 4.0, -1.0]), np.array([1.0, 2.0, 0.5])
    p = _Params()
    p.x = wp.array(xv, dtype=F, requires_grad=True)
    p.inner = _Inner()
    p.inner.w = wp.array(wv, dtype=F, requires_grad=True)
    p.scale = 3.0
    y = wp.zeros(3, dtype=F, requires_grad=True)
    y.grad.assign(seed)
    wp.launch(_struct_loss, dim=3, inputs=[p, y], adj_inputs=[None, None], adjoint=True)
    np.testing.assert_allclose(p.x.grad.numpy(), 2.0 * xv * wv * 3.0 * seed)
    np.testing.assert_allclose(p.inner.w.grad.numpy(), xv * xv * 3.0 * seed)
    # no adjoints at all: the same; an array field without a gradient is left out
    p.x.grad.zero_()
    p.inner.w = wp.array(wv, dtype=F)
    y.grad.assign(seed)
    wp.launch(_struct_loss, dim=3, inputs=[p, y], adjoint=True)
    np.testing.assert_allclose(p.x.grad.numpy(), 2.0 * xv * wv * 3.0 * seed)
