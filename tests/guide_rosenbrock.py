"""The Rosenbrock example of the interoperability guide, as written (``**`` needs wp.pow, from
warp-builtins), and the guide's torch.autograd.Function around it: shared by
tests/autodiff/test_adjoint_launch.py and tests/interop/test_torch_examples.py."""

from __future__ import annotations

import warp as wp


@wp.func
def rosenbrock(x: float, y: float):
    return (1.0 - x) ** 2.0 + 100.0 * (y - x**2.0) ** 2.0


@wp.kernel
def eval_rosenbrock(
    xs: wp.array(dtype=wp.vec2),
    # outputs
    z: wp.array(dtype=float),
):
    i = wp.tid()
    x = xs[i]
    z[i] = rosenbrock(x[0], x[1])


def torch_rosenbrock_function(kernel=eval_rosenbrock):
    """The guide's torch.autograd.Function launching ``kernel`` (an eval_rosenbrock: vec2 points in,
    float values out) forward and, with adjoint=True, backward. Imports torch."""
    import torch

    class Rosenbrock(torch.autograd.Function):
        @staticmethod
        def forward(ctx, xy, num_points):
            ctx.xy = wp.from_torch(xy, dtype=wp.vec2, requires_grad=True)
            ctx.num_points = num_points

            # allocate output
            ctx.z = wp.zeros(num_points, requires_grad=True)

            wp.launch(kernel=kernel, dim=ctx.num_points, inputs=[ctx.xy], outputs=[ctx.z])

            return wp.to_torch(ctx.z)

        @staticmethod
        def backward(ctx, adj_z):
            # map incoming Torch grads to our output variables
            ctx.z.grad = wp.from_torch(adj_z)

            wp.launch(
                kernel=kernel,
                dim=ctx.num_points,
                inputs=[ctx.xy],
                outputs=[ctx.z],
                adj_inputs=[ctx.xy.grad],
                adj_outputs=[ctx.z.grad],
                adjoint=True,
            )

            # return adjoint w.r.t. inputs
            return (wp.to_torch(ctx.xy.grad), None)

    return Rosenbrock
