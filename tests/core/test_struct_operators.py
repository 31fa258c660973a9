"""Structs in kernels: positional construction (fields in declaration order) and arithmetic
operators overloaded by a @wp.func named after the operator's builtin (add, sub, mul, ...)."""

import numpy as np
import pytest

import warp as wp


@wp.struct
class Complex:
    real: float
    imag: float


@wp.func
def add(a: Complex, b: Complex) -> Complex:
    return Complex(a.real + b.real, a.imag + b.imag)


@wp.func
def mul(a: Complex, b: Complex) -> Complex:
    return Complex(a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real)


@wp.func
def mul(a: float, b: Complex) -> Complex:  # noqa: F811  (a second overload)
    return Complex(a * b.real, a * b.imag)


@wp.kernel
def complex_math(x: wp.array(dtype=wp.vec2), y: wp.array(dtype=wp.vec2), out: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    a = Complex(x[i][0], x[i][1])
    b = Complex(y[i][0], imag=y[i][1])
    c = 2.0 * (a * b + a)
    out[i] = wp.vec2(c.real, c.imag)


def test_struct_operators_call_the_functions_named_after_them():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, 16, 2)).astype(np.float32)
    out = wp.zeros(16, dtype=wp.vec2)
    wp.launch(complex_math, dim=16, inputs=[wp.array(x, dtype=wp.vec2), wp.array(y, dtype=wp.vec2), out])
    a, b = x[:, 0] + 1j * x[:, 1], y[:, 0] + 1j * y[:, 1]
    expected = 2.0 * (a * b + a)
    np.testing.assert_allclose(out.numpy(), np.stack([expected.real, expected.imag], axis=1), rtol=1e-5)


@wp.struct
class Plain:
    v: float


@wp.kernel(module="unique")
def subtract_plain(out: wp.array(dtype=float)):
    p = Plain(1.0) - Plain(2.0)
    out[0] = p.v


@wp.kernel(module="unique")
def too_many_fields(out: wp.array(dtype=float)):
    p = Plain(1.0, 2.0)
    out[0] = p.v


@wp.kernel(module="unique")
def field_twice(out: wp.array(dtype=float)):
    p = Plain(1.0, v=2.0)
    out[0] = p.v


@pytest.mark.parametrize(
    "kernel, message",
    [
        (subtract_plain, r"operator 'sub' has no definition for \(Plain, Plain\): define a @wp.func named"),
        (too_many_fields, r"struct Plain\(\) takes at most 1 positional arguments \(its fields\), got 2"),
        (field_twice, r"struct Plain\(\) got multiple values for field 'v'"),
    ],
)
def test_struct_construction_and_operator_errors(kernel, message):
    with pytest.raises(wp.WarpCodegenError, match=message):
        wp.launch(kernel, dim=1, inputs=[wp.zeros(1, dtype=float)])
