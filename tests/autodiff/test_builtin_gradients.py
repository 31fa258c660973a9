"""Every differentiable builtin: adjoint vs. finite differences (float64) and vs. the analytic derivative.

Scalar math builtins come from warp-builtins; a test is skipped when its builtin is not installed.
Inputs avoid kinks and discontinuities (floor, abs, ...) by more than the finite-difference step.
"""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from adutil import F, adjoint_grads, check_gradients, f64, has_builtin

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

sps = pytest.importorskip("scipy.special")

# -- unary scalar math -------------------------------------------------------------------------

@wp.kernel
def k_sin(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.sin(x[i])


@wp.kernel
def k_cos(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.cos(x[i])


@wp.kernel
def k_tan(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.tan(x[i])


@wp.kernel
def k_exp(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.exp(x[i])


@wp.kernel
def k_log(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.log(x[i])


@wp.kernel
def k_log2(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.log2(x[i])


@wp.kernel
def k_log10(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.log10(x[i])


@wp.kernel
def k_sqrt(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.sqrt(x[i])


@wp.kernel
def k_cbrt(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.cbrt(x[i])


@wp.kernel
def k_sinh(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.sinh(x[i])


@wp.kernel
def k_cosh(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.cosh(x[i])


@wp.kernel
def k_tanh(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.tanh(x[i])


@wp.kernel
def k_asin(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.asin(x[i])


@wp.kernel
def k_acos(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.acos(x[i])


@wp.kernel
def k_atan(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.atan(x[i])


@wp.kernel
def k_erf(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.erf(x[i])


@wp.kernel
def k_erfc(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.erfc(x[i])


@wp.kernel
def k_erfinv(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.erfinv(x[i])


@wp.kernel
def k_erfcinv(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.erfcinv(x[i])


@wp.kernel
def k_degrees(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.degrees(x[i])


@wp.kernel
def k_radians(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.radians(x[i])


@wp.kernel
def k_abs(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.abs(x[i])


@wp.kernel
def k_frac(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.frac(x[i])


@wp.kernel
def k_floor(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.floor(x[i])


@wp.kernel
def k_ceil(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.ceil(x[i])


@wp.kernel
def k_round(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.round(x[i])


@wp.kernel
def k_rint(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.rint(x[i])


@wp.kernel
def k_trunc(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.trunc(x[i])


@wp.kernel
def k_sign(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.sign(x[i])


@wp.kernel
def k_step(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.step(x[i])


@wp.kernel
def k_nonzero(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.nonzero(x[i])


UNARY = {
    "sin": (k_sin, lambda x: np.cos(x), -3, 3),
    "cos": (k_cos, lambda x: -np.sin(x), -3, 3),
    "tan": (k_tan, lambda x: 1/np.cos(x)**2, -1.2, 1.2),
    "exp": (k_exp, lambda x: np.exp(x), -2, 2),
    "log": (k_log, lambda x: 1/x, 0.2, 3),
    "log2": (k_log2, lambda x: 1/(x*np.log(2)), 0.2, 3),
    "log10": (k_log10, lambda x: 1/(x*np.log(10)), 0.2, 3),
    "sqrt": (k_sqrt, lambda x: 0.5/np.sqrt(x), 0.2, 3),
    "cbrt": (k_cbrt, lambda x: 1/(3*np.cbrt(x)**2), 0.2, 3),
    "sinh": (k_sinh, lambda x: np.cosh(x), -2, 2),
    "cosh": (k_cosh, lambda x: np.sinh(x), -2, 2),
    "tanh": (k_tanh, lambda x: 1-np.tanh(x)**2, -2, 2),
    "asin": (k_asin, lambda x: 1/np.sqrt(1-x*x), -0.9, 0.9),
    "acos": (k_acos, lambda x: -1/np.sqrt(1-x*x), -0.9, 0.9),
    "atan": (k_atan, lambda x: 1/(1+x*x), -3, 3),
    "erf": (k_erf, lambda x: 2/np.sqrt(np.pi)*np.exp(-x*x), -2, 2),
    "erfc": (k_erfc, lambda x: -2/np.sqrt(np.pi)*np.exp(-x*x), -2, 2),
    "erfinv": (k_erfinv, lambda x: np.sqrt(np.pi)/2*np.exp(sps.erfinv(x)**2), -0.9, 0.9),
    "erfcinv": (k_erfcinv, lambda x: -np.sqrt(np.pi)/2*np.exp(sps.erfcinv(x)**2), 0.1, 1.9),
    "degrees": (k_degrees, lambda x: np.full_like(x, 180/np.pi), -3, 3),
    "radians": (k_radians, lambda x: np.full_like(x, np.pi/180), -3, 3),
    "abs": (k_abs, lambda x: np.sign(x), -3, 3),
    "frac": (k_frac, lambda x: np.ones_like(x), -3, 3),
    "floor": (k_floor, lambda x: np.zeros_like(x), -3, 3),
    "ceil": (k_ceil, lambda x: np.zeros_like(x), -3, 3),
    "round": (k_round, lambda x: np.zeros_like(x), -3, 3),
    "rint": (k_rint, lambda x: np.zeros_like(x), -3, 3),
    "trunc": (k_trunc, lambda x: np.zeros_like(x), -3, 3),
    "sign": (k_sign, lambda x: np.zeros_like(x), -3, 3),
    "step": (k_step, lambda x: np.zeros_like(x), -3, 3),
    "nonzero": (k_nonzero, lambda x: np.zeros_like(x), -3, 3),
}


def _samples(lo: float, hi: float, n: int = 9) -> np.ndarray:
    x = np.linspace(lo, hi, n)
    # stay away from integers and zero (kinks of abs/floor/round/sign/step...)
    return x + 0.0371


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_builtin_gradient(name):
    if not has_builtin(name, F):
        pytest.skip(f"builtin wp.{name} is not installed")
    kernel, deriv, lo, hi = UNARY[name]
    xs = _samples(lo, hi)
    x, y = f64(xs), wp.zeros(len(xs), dtype=F)
    check_gradients(kernel, len(xs), [x], [y])
    (g,) = adjoint_grads(kernel, len(xs), [x], [y], {y: np.ones(len(xs))})
    np.testing.assert_allclose(g, deriv(xs), rtol=1e-9, atol=1e-9)


# -- binary and ternary scalar math -------------------------------------------------------------

@wp.kernel
def k_pow(x: wp.array(dtype=F), z: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.pow(x[i], z[i])


@wp.kernel
def k_pow_operator(x: wp.array(dtype=F), z: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = x[i] ** z[i]


@wp.kernel
def k_atan2(x: wp.array(dtype=F), z: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.atan2(x[i], z[i])


@wp.kernel
def k_min(x: wp.array(dtype=F), z: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.min(x[i], z[i])


@wp.kernel
def k_max(x: wp.array(dtype=F), z: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.max(x[i], z[i])


@wp.kernel
def k_copysign(x: wp.array(dtype=F), z: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.copysign(x[i], z[i])


A = np.array([0.3, 1.7, -0.8, 2.2, -1.9, 0.6])
B = np.array([1.1, 0.4, 0.9, -1.3, -0.5, 2.5])

BINARY = {
    # name: (kernel, da, db, a values, b values)
    "pow": (k_pow, lambda a, b: b * a ** (b - 1), lambda a, b: np.log(a) * a**b, np.abs(A) + 0.2, B),
    "pow_operator": (
        k_pow_operator,
        lambda a, b: b * a ** (b - 1),
        lambda a, b: np.log(a) * a**b,
        np.abs(A) + 0.2,
        B,
    ),
    "atan2": (k_atan2, lambda a, b: b / (a * a + b * b), lambda a, b: -a / (a * a + b * b), A, B),
    "min": (k_min, lambda a, b: (a < b) * 1.0, lambda a, b: (a >= b) * 1.0, A, B),
    "max": (k_max, lambda a, b: (a > b) * 1.0, lambda a, b: (a <= b) * 1.0, A, B),
    "copysign": (k_copysign, lambda a, b: np.sign(a) * np.sign(b), lambda a, b: 0 * a, A, B),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_builtin_gradient(name):
    builtin = "pow" if name == "pow_operator" else name
    if not has_builtin(builtin, F, F):
        pytest.skip(f"builtin wp.{builtin} is not installed")
    kernel, da, db, av, bv = BINARY[name]
    a, b, y = f64(av), f64(bv), wp.zeros(len(av), dtype=F)
    check_gradients(kernel, len(av), [a, b], [y])
    ga, gb = adjoint_grads(kernel, len(av), [a, b], [y], {y: np.ones(len(av))})
    np.testing.assert_allclose(ga, da(av, bv), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gb, db(av, bv), rtol=1e-9, atol=1e-12)


@wp.kernel
def k_clamp(x: wp.array(dtype=F), lo: wp.array(dtype=F), hi: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.clamp(x[i], lo[i], hi[i])


@wp.kernel
def k_lerp(a: wp.array(dtype=F), b: wp.array(dtype=F), t: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.lerp(a[i], b[i], t[i])


@wp.kernel
def k_smoothstep(a: wp.array(dtype=F), b: wp.array(dtype=F), x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.smoothstep(a[i], b[i], x[i])


def test_clamp_gradient():
    if not has_builtin("clamp", F, F, F):
        pytest.skip("wp.clamp is not installed")
    xv = np.array([-2.0, -0.3, 0.4, 1.7, 3.1])
    lov, hiv = np.full(5, -1.0), np.full(5, 1.5)
    x, lo, hi, y = f64(xv), f64(lov), f64(hiv), wp.zeros(5, dtype=F)
    check_gradients(k_clamp, 5, [x, lo, hi], [y])
    gx, glo, ghi = adjoint_grads(k_clamp, 5, [x, lo, hi], [y], {y: np.ones(5)})
    np.testing.assert_array_equal(gx, [0, 1, 1, 0, 0])
    np.testing.assert_array_equal(glo, [1, 0, 0, 0, 0])
    np.testing.assert_array_equal(ghi, [0, 0, 0, 1, 1])


def test_lerp_gradient():
    if not has_builtin("lerp", F, F, F):
        pytest.skip("wp.lerp is not installed")
    av, bv, tv = A, B, np.array([0.1, 0.5, 0.9, 0.3, 0.7, 0.25])
    a, b, t, y = f64(av), f64(bv), f64(tv), wp.zeros(6, dtype=F)
    check_gradients(k_lerp, 6, [a, b, t], [y])
    ga, gb, gt = adjoint_grads(k_lerp, 6, [a, b, t], [y], {y: np.ones(6)})
    np.testing.assert_allclose(ga, 1 - tv)
    np.testing.assert_allclose(gb, tv)
    np.testing.assert_allclose(gt, bv - av)


def test_smoothstep_gradient():
    if not has_builtin("smoothstep", F, F, F):
        pytest.skip("wp.smoothstep is not installed")
    av, bv = np.full(6, -1.0), np.full(6, 2.0)
    xv = np.array([-0.7, 0.1, 0.9, 1.6, -1.5, 2.5])
    a, b, x, y = f64(av), f64(bv), f64(xv), wp.zeros(6, dtype=F)
    check_gradients(k_smoothstep, 6, [a, b, x], [y])
    ga, gb, gx = adjoint_grads(k_smoothstep, 6, [a, b, x], [y], {y: np.ones(6)})
    t = np.clip((xv - av) / (bv - av), 0, 1)
    ds = 6 * t * (1 - t) / (bv - av)
    np.testing.assert_allclose(gx, ds, atol=1e-12)
    np.testing.assert_allclose(ga, ds * (t - 1), atol=1e-12)
    np.testing.assert_allclose(gb, -ds * t, atol=1e-12)
