"""The Rosenbrock example of the interoperability guide, as written (``**`` needs wp.pow, from
warp-builtins): shared by tests/autodiff/test_adjoint_launch.py and
tests/interop/test_torch_examples.py."""

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
