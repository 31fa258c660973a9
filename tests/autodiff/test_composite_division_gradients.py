"""Gradient of a composite divided by a scalar with respect to the scalar: -<g, c> / (s * s),
checked against the analytic value in float64 and, in float16, against NumPy's float16
arithmetic carried out step by step (as Warp computes it)."""

import numpy as np
import pytest

import warp as wp

TYPES = {
    np.float64: (wp.float64, wp.quatd, wp.vec3d),
    np.float16: (wp.float16, wp.quath, wp.vec3h),
}


def _division_kernel(scalar, comp):
    @wp.kernel(module="unique")
    def divide(s: wp.array(dtype=scalar), c: wp.array(dtype=comp), k: int, out: wp.array(dtype=scalar)):
        r = c[0] / s[0]
        out[0] = scalar(2.0) * r[k]

    return divide


@pytest.mark.parametrize("np_type", [np.float64, np.float16])
@pytest.mark.parametrize("kind", [1, 2])
def test_composite_over_scalar_gradient_of_the_divisor(np_type, kind):
    scalar, quat, vec = TYPES[np_type]
    comp, width = (quat, 4) if kind == 1 else (vec, 3)
    kernel = _division_kernel(scalar, comp)
    rng = np.random.default_rng(123)
    for trial in range(8):
        s_np = rng.standard_normal(1).astype(np_type)
        c_np = rng.standard_normal((1, width)).astype(np_type)
        s = wp.array(s_np, dtype=scalar, requires_grad=True)
        c = wp.array(c_np, dtype=comp, requires_grad=True)
        for k in range(width):
            out = wp.zeros(1, dtype=scalar, requires_grad=True)
            tape = wp.Tape()
            with tape:
                wp.launch(kernel, dim=1, inputs=[s, c, k, out])
            tape.backward(loss=out)
            # d(2 c_k / s)/ds = -2 c_k / (s * s), each operation in the array's precision
            expected = -(np_type(2) * c_np[0, k]) / (s_np[0] * s_np[0])
            got = s.grad.numpy()[0]
            if np_type is np.float16:
                assert got == expected, (trial, k, got, expected)
            else:
                np.testing.assert_allclose(got, expected, rtol=1e-12)
            expected_c = np.zeros(width, dtype=np_type)
            expected_c[k] = np_type(2) / s_np[0]
            rtol = 1e-3 if np_type is np.float16 else 1e-12
            np.testing.assert_allclose(c.grad.numpy()[0], expected_c, rtol=rtol)
            tape.zero()
