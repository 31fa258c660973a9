"""``print`` in the reverse pass: an adjoint launch prints ``adj:`` and the adjoints of the
printed values at that point (the gradient flowing back from the code after the print), as
NVIDIA Warp's adjoint of ``print`` does; the forward print is not repeated there."""

from typing import Any

import numpy as np

import warp as wp


@wp.kernel
def print_value(x: Any):
    print(x)


@wp.kernel
def print_intermediate(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    v = x[0] * 3.0
    print("v", v)
    y[0] = v * v


def _adjoint_output(capfd, value, adj_value):
    wp.synchronize()
    capfd.readouterr()
    wp.launch(print_value, dim=1, inputs=[value], adj_inputs=[adj_value], adjoint=True)
    wp.synchronize()
    return capfd.readouterr().out


def test_adjoint_launch_prints_the_passed_adjoint(capfd):
    for t in (wp.float16, wp.float32, wp.float64, wp.int32, wp.uint8):
        assert _adjoint_output(capfd, t(17), t(42)) == "adj: 42\n", t
    assert _adjoint_output(capfd, wp.vec3(1.0, 2.0, 3.0), wp.vec3(3.0, 2.0, 1.5)) == "adj: 3 2 1.5 \n"
    assert _adjoint_output(capfd, True, False) == "adj: False\n"


def test_tape_backward_prints_the_gradient_reaching_the_value(capfd):
    x0 = 2.0
    x = wp.array([x0], dtype=float, requires_grad=True)
    y = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(print_intermediate, dim=1, inputs=[x, y])
    wp.synchronize()
    assert capfd.readouterr().out.endswith(f"v {3 * x0:g}\n")
    tape.backward(grads={y: wp.ones(1, dtype=float)})
    wp.synchronize()
    # y = v^2 with v = 3x: dy/dv = 2v at the print, dy/dx = 18x
    assert capfd.readouterr().out == f"adj: v {2 * 3 * x0:g}\n"
    np.testing.assert_allclose(x.grad.numpy(), [18 * x0])
