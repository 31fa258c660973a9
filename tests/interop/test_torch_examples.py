"""The PyTorch examples of the interoperability guide, run on the CPU.

Each example is the guide's code with fewer iterations; results are compared with the same
computation done by PyTorch alone (autograd on the same loss and the same optimizer).
"""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

from guide_rosenbrock import eval_rosenbrock, torch_rosenbrock_function
from interop_kernels import minimize_loss, saxpy

torch = pytest.importorskip("torch")


def torch_rosenbrock(xy: torch.Tensor) -> torch.Tensor:
    x, y = xy[:, 0], xy[:, 1]
    return (1.0 - x) ** 2 + 100.0 * (y - x**2) ** 2


def reference_adam(x0: torch.Tensor, lr: float, steps: int, loss_fn) -> torch.Tensor:
    """The optimization done by PyTorch alone: autograd gradients, the same optimizer."""
    x = x0.detach().clone().requires_grad_(True)
    opt = torch.optim.Adam([x], lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        loss_fn(x).backward()
        opt.step()
    return x.detach()


def test_saxpy_with_torch_tensors_launched_directly():
    n = 64
    device = "cpu"
    x = torch.arange(n, dtype=torch.float32, device=device)
    y = torch.ones(n, dtype=torch.float32, device=device)
    wp.launch(saxpy, dim=n, inputs=[x, y, 1.0], device=device)
    np.testing.assert_array_equal(y.numpy(), np.arange(n, dtype=np.float32) + 1.0)


def test_to_torch_and_from_torch_share_memory():
    w = wp.array([1.0, 2.0, 3.0], dtype=float, device="cpu")
    t = wp.to_torch(w)
    w2 = wp.from_torch(t)
    t[1] = 20.0
    assert w.numpy().tolist() == [1.0, 20.0, 3.0]
    assert w2.ptr == w.ptr and w2.numpy().tolist() == [1.0, 20.0, 3.0]


def test_optimization_using_from_torch():
    torch.manual_seed(0)
    xs = torch.randn(100, 2, requires_grad=True)
    x0 = xs.detach().clone()
    l = torch.zeros(1, requires_grad=True)
    opt = torch.optim.Adam([xs], lr=0.1)

    wp_xs = wp.from_torch(xs)
    wp_l = wp.from_torch(l)

    steps = 50
    losses = minimize_loss(wp_xs, wp_l, opt, steps, read_loss=l.item)

    expected = reference_adam(x0, 0.1, steps, lambda x: (x**2).sum())
    np.testing.assert_allclose(xs.detach().numpy(), expected.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(losses[-1], float((expected**2).sum()), rtol=1e-4)
    assert losses[-1] < 0.5 * losses[0]


def test_optimization_using_to_torch():
    rng = np.random.default_rng(1)
    x_init = rng.standard_normal((100, 2)).astype(np.float32)
    xs = wp.array(x_init, dtype=wp.float32, requires_grad=True)
    l = wp.zeros(1, dtype=wp.float32, requires_grad=True)
    opt = torch.optim.Adam([wp.to_torch(xs)], lr=0.1)

    steps = 50
    minimize_loss(xs, l, opt, steps)

    expected = reference_adam(torch.from_numpy(x_init), 0.1, steps, lambda x: (x**2).sum())
    np.testing.assert_allclose(xs.numpy(), expected.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(l.numpy()[0], float((expected**2).sum()), rtol=1e-4)


#: the guide's torch.autograd.Function
Rosenbrock = torch_rosenbrock_function()


def rosenbrock_start(num_points: int) -> torch.Tensor:
    torch_device = wp.device_to_torch(wp.get_device())
    rng = np.random.default_rng(42)
    return torch.tensor(
        rng.normal(size=(num_points, 2)), dtype=torch.float32, requires_grad=True, device=torch_device
    )


def test_autograd_function_forward_and_gradient():
    xy = rosenbrock_start(64)
    z = Rosenbrock.apply(xy, 64)
    np.testing.assert_allclose(z.detach().numpy(), torch_rosenbrock(xy.detach()).numpy(), rtol=1e-5)
    z.backward(torch.ones_like(z))
    ref = xy.detach().clone().requires_grad_(True)
    torch_rosenbrock(ref).sum().backward()
    # The returned gradient aliases xy.grad (allocated by from_torch), so autograd's accumulation
    # into xy.grad doubles it: the behaviour of the guide's code (Adam is invariant to the scale).
    np.testing.assert_allclose(xy.grad.numpy(), 2.0 * ref.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_optimization_using_autograd_function():
    num_points = 1500
    learning_rate = 5e-2
    xy = rosenbrock_start(num_points)
    x0 = xy.detach().clone()
    opt = torch.optim.Adam([xy], lr=learning_rate)

    steps = 100
    for _ in range(steps):
        opt.zero_grad()
        z = Rosenbrock.apply(xy, num_points)
        z.backward(torch.ones_like(z))
        opt.step()

    expected = reference_adam(x0, learning_rate, steps, lambda x: torch_rosenbrock(x).sum())
    np.testing.assert_allclose(xy.detach().numpy(), expected.numpy(), rtol=1e-3, atol=1e-3)


@pytest.mark.slow
def test_optimization_using_autograd_function_under_torch_compile():
    num_points = 256
    xy = rosenbrock_start(num_points)
    x0 = xy.detach().clone()
    opt = torch.optim.Adam([xy], lr=5e-2)

    @torch.compile(backend="aot_eager")
    def step_loss(xy):
        return Rosenbrock.apply(xy, num_points)

    for _ in range(20):
        opt.zero_grad()
        z = step_loss(xy)
        z.backward(torch.ones_like(z))
        opt.step()

    expected = reference_adam(x0, 5e-2, 20, lambda x: torch_rosenbrock(x).sum())
    np.testing.assert_allclose(xy.detach().numpy(), expected.numpy(), rtol=1e-3, atol=1e-3)


@torch.library.custom_op("wp::warp_rosenbrock", mutates_args=())
def warp_rosenbrock(xy: torch.Tensor, num_points: int) -> torch.Tensor:
    wp_xy = wp.from_torch(xy, dtype=wp.vec2)
    wp_z = wp.zeros(num_points, dtype=wp.float32)

    wp.launch(kernel=eval_rosenbrock, dim=num_points, inputs=[wp_xy], outputs=[wp_z])

    return wp.to_torch(wp_z)


@warp_rosenbrock.register_fake
def _(xy, num_points):
    return torch.empty(num_points, dtype=torch.float32)


@torch.library.custom_op("wp::warp_rosenbrock_backward", mutates_args=())
def warp_rosenbrock_backward(
    xy: torch.Tensor, num_points: int, z: torch.Tensor, adj_z: torch.Tensor
) -> torch.Tensor:
    wp_xy = wp.from_torch(xy, dtype=wp.vec2)
    wp_z = wp.from_torch(z, requires_grad=False)
    wp_adj_z = wp.from_torch(adj_z, requires_grad=False)

    wp.launch(
        kernel=eval_rosenbrock,
        dim=num_points,
        inputs=[wp_xy],
        outputs=[wp_z],
        adj_inputs=[wp_xy.grad],
        adj_outputs=[wp_adj_z],
        adjoint=True,
    )

    return wp.to_torch(wp_xy.grad)


@warp_rosenbrock_backward.register_fake
def _(xy, num_points, z, adj_z):
    return torch.empty_like(xy)


def custom_op_backward(ctx, adj_z):
    ctx.xy.grad = warp_rosenbrock_backward(ctx.xy, ctx.num_points, ctx.z, adj_z)
    return ctx.xy.grad, None


def setup_context(ctx, inputs, output):
    ctx.xy, ctx.num_points = inputs
    ctx.z = output


warp_rosenbrock.register_autograd(custom_op_backward, setup_context=setup_context)


@pytest.mark.parametrize("backend", ["inductor", "aot_eager"])
@pytest.mark.slow
def test_optimization_using_custom_op_under_torch_compile(backend):
    num_points = 1500
    learning_rate = 5e-2
    xy = rosenbrock_start(num_points)
    x0 = xy.detach().clone()
    opt = torch.optim.Adam([xy], lr=learning_rate)

    @torch.compile(fullgraph=True, backend=backend)
    def forward():
        return warp_rosenbrock(xy, num_points)

    steps = 60
    for _ in range(steps):
        opt.zero_grad()
        z = forward()
        z.backward(torch.ones_like(z))
        opt.step()

    expected = reference_adam(x0, learning_rate, steps, lambda x: torch_rosenbrock(x).sum())
    np.testing.assert_allclose(xy.detach().numpy(), expected.numpy(), rtol=1e-3, atol=1e-3)


def test_custom_op_gradient_matches_autograd():
    xy = rosenbrock_start(32)
    z = warp_rosenbrock(xy, 32)
    np.testing.assert_allclose(z.detach().numpy(), torch_rosenbrock(xy.detach()).numpy(), rtol=1e-5)
    z.backward(torch.ones_like(z))
    ref = xy.detach().clone().requires_grad_(True)
    torch_rosenbrock(ref).sum().backward()
    # backward() assigns ctx.xy.grad and returns it, so autograd accumulates it once more (x2)
    np.testing.assert_allclose(xy.grad.numpy(), 2.0 * ref.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_performance_note_loops_compute_saxpy():
    device = "cpu"
    n = 32
    x_t = torch.arange(n, dtype=torch.float32, device=device)
    y_t = torch.ones(n, dtype=torch.float32, device=device)
    for _ in range(10):  # converting on every iteration
        x_w = wp.from_torch(x_t)
        y_w = wp.from_torch(y_t)
        wp.launch(saxpy, dim=n, inputs=[x_w, y_w, 1.0], device=device)
    x_w = wp.from_torch(x_t)  # converting once
    y_w = wp.from_torch(y_t)
    for _ in range(10):
        wp.launch(saxpy, dim=n, inputs=[x_w, y_w, 1.0], device=device)
    for _ in range(10):  # passing the tensors directly
        wp.launch(saxpy, dim=n, inputs=[x_t, y_t, 1.0], device=device)
    np.testing.assert_array_equal(y_t.numpy(), 1.0 + 30.0 * np.arange(n, dtype=np.float32))

    for n in range(1, 10):  # descriptors of new tensors on every iteration
        x_t = torch.arange(n, dtype=torch.float32, device=device)
        y_t = torch.ones(n, dtype=torch.float32, device=device)
        x_ctype = wp.from_torch(x_t, return_ctype=True)
        y_ctype = wp.from_torch(y_t, return_ctype=True)
        wp.launch(saxpy, dim=n, inputs=[x_ctype, y_ctype, 1.0], device=device)
        np.testing.assert_array_equal(y_t.numpy(), 1.0 + np.arange(n, dtype=np.float32))


# -- case study: deferred gradient allocation (CPU, small N) ------------------------------------

N = 1000


@wp.kernel(enable_backward=False)
def forward_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float), output: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    output[i] = x * x + y * y


@wp.kernel(enable_backward=False)
def backward_kernel(
    grad_output: wp.array(dtype=float),
    a: wp.array(dtype=float),
    b: wp.array(dtype=float),
    grad_a: wp.array(dtype=float),
    grad_b: wp.array(dtype=float),
):
    i = wp.tid()
    x = a[i]
    y = b[i]
    adj_z = grad_output[i]
    grad_a[i] = 2.0 * x * adj_z
    grad_b[i] = 2.0 * y * adj_z


@wp.kernel
def forward_kernel_differentiable(
    a: wp.array(dtype=float), b: wp.array(dtype=float), output: wp.array(dtype=float)
):
    i = wp.tid()
    x = a[i]
    y = b[i]
    output[i] = x * x + y * y


class BaselineFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        device = wp.device_from_torch(a.device)
        output = torch.empty(N, device=a.device)
        wp.launch(kernel=forward_kernel, dim=(N), device=device,
                  inputs=[wp.from_torch(a), wp.from_torch(b), wp.from_torch(output)])
        return output

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        device = wp.device_from_torch(a.device)
        grad_a = torch.empty_like(a)
        grad_b = torch.empty_like(b)
        wp.launch(kernel=backward_kernel, dim=(N), device=device,
                  inputs=[wp.from_torch(grad_output.contiguous()), wp.from_torch(a), wp.from_torch(b),
                          wp.from_torch(grad_a), wp.from_torch(grad_b)])
        return grad_a, grad_b


class SolutionA(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        device = wp.device_from_torch(a.device)
        output = torch.empty(N, device=a.device)
        wp.launch(kernel=forward_kernel, dim=(N), device=device,
                  inputs=[wp.from_torch(a, requires_grad=False), wp.from_torch(b, requires_grad=False),
                          wp.from_torch(output, requires_grad=False)])
        return output

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        device = wp.device_from_torch(a.device)
        grad_a = torch.empty_like(a)
        grad_b = torch.empty_like(b)
        wp.launch(kernel=backward_kernel, dim=(N), device=device,
                  inputs=[wp.from_torch(grad_output.contiguous(), requires_grad=False),
                          wp.from_torch(a, requires_grad=False), wp.from_torch(b, requires_grad=False),
                          wp.from_torch(grad_a, requires_grad=False),
                          wp.from_torch(grad_b, requires_grad=False)])
        return grad_a, grad_b


class SolutionB(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.a = a.detach()
        ctx.b = b.detach()
        device = wp.device_from_torch(a.device)
        output = torch.empty(N, device=a.device)
        wp.launch(kernel=forward_kernel, dim=(N), device=device, inputs=[ctx.a, ctx.b, output])
        return output

    @staticmethod
    def backward(ctx, grad_output):
        device = wp.device_from_torch(ctx.a.device)
        grad_a = torch.empty_like(ctx.a)
        grad_b = torch.empty_like(ctx.b)
        wp.launch(kernel=backward_kernel, dim=(N), device=device,
                  inputs=[grad_output.detach(), ctx.a, ctx.b, grad_a, grad_b])
        return grad_a, grad_b


class SolutionC1(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        if a.grad is None:
            a.grad = torch.empty_like(a)
        if b.grad is None:
            b.grad = torch.empty_like(b)
        ctx.save_for_backward(a, b)
        device = wp.device_from_torch(a.device)
        output = torch.empty(N, device=a.device)
        wp.launch(kernel=forward_kernel, dim=(N), device=device,
                  inputs=[wp.from_torch(a), wp.from_torch(b), wp.from_torch(output)])
        return output

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        device = wp.device_from_torch(a.device)
        wp.launch(kernel=backward_kernel, dim=(N), device=device,
                  inputs=[wp.from_torch(grad_output.contiguous()), wp.from_torch(a), wp.from_torch(b),
                          wp.from_torch(a.grad), wp.from_torch(b.grad)])
        return a.grad, b.grad


class SolutionC2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        device = wp.device_from_torch(a.device)
        output = torch.zeros(N, device=a.device)
        if a.grad is None:
            a.grad = torch.empty_like(a)
        if b.grad is None:
            b.grad = torch.empty_like(b)
        wp_output = wp.from_torch(output)
        with wp.Tape() as tape:
            wp.launch(kernel=forward_kernel_differentiable, dim=(N), device=device,
                      inputs=[wp.from_torch(a), wp.from_torch(b), wp_output])
        ctx.tape = tape
        ctx.wp_output = wp_output
        ctx.a = a
        ctx.b = b
        return output

    @staticmethod
    def backward(ctx, grad_output):
        ctx.tape.backward(grads={ctx.wp_output: wp.from_torch(grad_output.contiguous())})
        grad_a = ctx.a.grad
        grad_b = ctx.b.grad
        ctx.tape = None
        ctx.wp_output = None
        return grad_a, grad_b


@pytest.mark.parametrize("function", [BaselineFunction, SolutionA, SolutionB, SolutionC1, SolutionC2])
def test_deferred_gradient_case_study(function):
    torch.manual_seed(3)
    a = torch.randn(N, dtype=torch.float32, requires_grad=True)
    b = torch.randn(N, dtype=torch.float32, requires_grad=True)
    a_torch = a.clone().detach().requires_grad_(True)
    b_torch = b.clone().detach().requires_grad_(True)
    if function is SolutionC2:  # pre-allocated at creation time, zeroed: the tape accumulates
        a_torch.grad = torch.zeros_like(a_torch)
        b_torch.grad = torch.zeros_like(b_torch)
    output = function.apply(a_torch, b_torch)
    np.testing.assert_allclose(output.detach().numpy(), (a**2 + b**2).detach().numpy(), rtol=1e-6)
    output.sum().backward()
    scale = 2.0 if function in (SolutionC1, SolutionC2) else 1.0  # returned grads alias .grad
    np.testing.assert_allclose(a_torch.grad.numpy(), scale * 2.0 * a.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(b_torch.grad.numpy(), scale * 2.0 * b.detach().numpy(), rtol=1e-5)


class RosenbrockOwnGrad(torch.autograd.Function):
    """The safe pattern of docs/interop.md: warp gets a gradient buffer of its own."""

    @staticmethod
    def forward(ctx, xy, num_points):
        ctx.xy = wp.from_torch(xy, dtype=wp.vec2, grad=torch.zeros_like(xy))
        ctx.z = wp.zeros(num_points, requires_grad=True)
        wp.launch(eval_rosenbrock, dim=num_points, inputs=[ctx.xy], outputs=[ctx.z])
        return wp.to_torch(ctx.z, requires_grad=False)

    @staticmethod
    def backward(ctx, adj_z):
        wp.launch(eval_rosenbrock, dim=len(ctx.z), inputs=[ctx.xy], outputs=[ctx.z],
                  adj_inputs=[ctx.xy.grad], adj_outputs=[wp.from_torch(adj_z)], adjoint=True)
        return wp.to_torch(ctx.xy.grad), None


def test_autograd_function_with_its_own_gradient_buffer_is_exact():
    xy = rosenbrock_start(64)
    other = (xy**2).sum()  # a second use of xy: its gradient must be added once, too
    z = RosenbrockOwnGrad.apply(xy, 64)
    (z.sum() + other).backward()
    ref = xy.detach().clone().requires_grad_(True)
    (torch_rosenbrock(ref).sum() + (ref**2).sum()).backward()
    np.testing.assert_allclose(xy.grad.numpy(), ref.grad.numpy(), rtol=1e-4, atol=1e-3)
    # and a scale-sensitive optimizer takes the true step
    xy2 = rosenbrock_start(64)
    opt = torch.optim.SGD([xy2], lr=1e-4)
    x0 = xy2.detach().clone()
    opt.zero_grad()
    RosenbrockOwnGrad.apply(xy2, 64).sum().backward()
    opt.step()
    ref0 = x0.clone().requires_grad_(True)
    torch_rosenbrock(ref0).sum().backward()
    np.testing.assert_allclose(xy2.detach().numpy(), (x0 - 1e-4 * ref0.grad).numpy(), rtol=1e-5, atol=1e-6)


@wp.kernel
def affine(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 0.5 - x[i] * 2.0


class AffineExternalAdjoint(torch.autograd.Function):
    """A custom op whose backward hands torch's incoming gradient to warp as an explicit
    ``adj_outputs`` buffer (not the output's own ``.grad``)."""

    @staticmethod
    def forward(ctx, x):
        y = torch.empty_like(x)
        ctx.x, ctx.y = x.detach(), y.detach()
        wp.launch(affine, dim=len(x), inputs=[wp.from_torch(ctx.x)], outputs=[wp.from_torch(ctx.y)])
        return y

    @staticmethod
    def backward(ctx, adj_y):
        adj_x = torch.zeros_like(ctx.x)
        wp.launch(affine, dim=len(ctx.x), inputs=[wp.from_torch(ctx.x)], outputs=[wp.from_torch(ctx.y)],
                  adj_inputs=[wp.from_torch(adj_x)], adj_outputs=[wp.from_torch(adj_y)], adjoint=True)
        return adj_x


def test_incoming_gradient_shared_by_two_custom_ops_reaches_both():
    """torch hands the same gradient tensor to both operands of an addition: the first op's
    adjoint launch must not consume it before the second reads it."""
    w = torch.arange(1.0, 9.0)  # the gradient of the sum: w itself, one tensor for both operands
    x1 = torch.ones(8, requires_grad=True)
    x2 = torch.ones(8, requires_grad=True)
    ((AffineExternalAdjoint.apply(x1) + AffineExternalAdjoint.apply(x2)) * w).sum().backward()
    np.testing.assert_array_equal(x1.grad.numpy(), -2.0 * w.numpy())
    np.testing.assert_array_equal(x2.grad.numpy(), -2.0 * w.numpy())


def test_caller_gradient_outputs_are_left_unchanged():
    grad_out = torch.arange(32, dtype=torch.float32)[::2]  # non-contiguous, as in torch.autograd.grad
    expected_grad_out = grad_out.clone()
    for _ in range(3):
        x = torch.ones(16, requires_grad=True)
        (grad,) = torch.autograd.grad(AffineExternalAdjoint.apply(x), (x,), grad_outputs=grad_out)
        np.testing.assert_array_equal(grad.numpy(), -2.0 * expected_grad_out.numpy())
        np.testing.assert_array_equal(grad_out.numpy(), expected_grad_out.numpy())
