"""sin, cos and tan of large arguments: the full-range (Payne-Hanek style) reduction.

Arguments from 1e5 up to the largest float32 / float64, random and hard cases (the float
nearest to k*pi/2, 1e22, the largest finite value, the float64 argument closest to a multiple
of pi/2), through the IR library, kernels and Python scope. References: NumPy's float64
function of the float32 input (float32), mpmath at 400 bits (float64).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_mathlib_accuracy import compile_math
from ulp import assert_ulp

import warp as wp

FUNCS = {"sin": np.sin, "cos": np.cos, "tan": np.tan}

#: float64 arguments closest to a multiple of pi/2 (|x mod pi/2| ~ 2**-61), and other hard ones
HARD64 = [
    6381956970095103.0 * 2.0**797,
    5261692873635770.0 * 2.0**499,
    1.5707963267948966,  # fl(pi/2): cos is ~6e-17
    3.141592653589793,
    1e22,
    1e300,
    np.finfo(np.float64).max,
    2.0**1023,
    5e-324,
    2.2250738585072014e-308,
]


def _mp_reference(name: str, x: np.ndarray) -> np.ndarray:
    mpmath = pytest.importorskip("mpmath")
    fn = getattr(mpmath, name)
    with mpmath.workprec(400):
        return np.array([float(fn(mpmath.mpf(float(v)))) for v in x])


def _mp_ulp(name: str, got: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Error of float64 results in ulp against mpmath (fractional, not rounded to a double)."""
    mpmath = pytest.importorskip("mpmath")
    fn = getattr(mpmath, name)
    errs = []
    with mpmath.workprec(400):
        for g, v in zip(got, x):
            exact = fn(mpmath.mpf(float(v)))
            spacing = np.spacing(abs(float(exact)))
            errs.append(float(abs(mpmath.mpf(float(g)) - exact) / mpmath.mpf(spacing)))
    return np.array(errs)


def float32_samples(n: int = 40000, seed: int = 11) -> np.ndarray:
    rng = np.random.default_rng(seed)
    mag = 10.0 ** rng.uniform(5, 38.5, n) * rng.choice([-1.0, 1.0], n)
    with np.errstate(over="ignore"):
        x = mag.astype(np.float32)
    k = rng.integers(1, 2**40, 2000).astype(np.float64)
    near = (k * (np.pi / 2)).astype(np.float32)  # the float32 nearest k*pi/2
    special = np.array([1e22, -1e22, 3.4028235e38, -3.4028235e38, 16367173 * 2.0**72, 1e5, 2.0**24, 2.0**100],
                       dtype=np.float32)
    x = np.concatenate([x[np.isfinite(x)], near, special])
    return x


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_float32_large_arguments_ir(name: str) -> None:
    x = float32_samples()
    got = compile_math(name, np.float32)(x)
    ref = FUNCS[name](x.astype(np.float64))
    assert_ulp(got, ref, np.float32, 1.0, (x,))


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_float64_large_arguments_ir(name: str) -> None:
    rng = np.random.default_rng(12)
    x = 10.0 ** rng.uniform(5, 308, 1500) * rng.choice([-1.0, 1.0], 1500)
    k = rng.integers(1, 2**52, 300).astype(np.float64)
    x = np.concatenate([x, k * (np.pi / 2), HARD64, [-v for v in HARD64]])
    x = x[np.isfinite(x)]
    got = compile_math(name, np.float64)(x)
    err = _mp_ulp(name, got, x)
    worst = int(np.argmax(err))
    assert err[worst] <= 2.0, f"{err[worst]:.3g} ulp at {x[worst]!r}: got {got[worst]!r}"


def test_float64_hard_cases_near_multiples_of_pi_over_2() -> None:
    """cos(fl(pi/2)) and friends: |x - k*pi/2| far below ulp(x) must keep full relative accuracy."""
    k = np.arange(1, 4000, dtype=np.float64)
    x = k * (np.pi / 2)  # rounded: each is within half an ulp of k*pi/2
    for name in ("sin", "cos"):
        got = compile_math(name, np.float64)(x)
        err = _mp_ulp(name, got, x)
        worst = int(np.argmax(err))
        assert err[worst] <= 1.0, f"{name}: {err[worst]:.3g} ulp at {x[worst]!r}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_inf_and_nan_give_nan(name: str, dtype: type) -> None:
    x = np.array([np.inf, -np.inf, np.nan, -np.nan], dtype=dtype)
    assert np.all(np.isnan(compile_math(name, dtype)(x)))


@wp.kernel
def _trig32(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32, ndim=2)):
    i = wp.tid()
    out[0, i] = wp.sin(x[i])
    out[1, i] = wp.cos(x[i])
    out[2, i] = wp.tan(x[i])


@wp.kernel
def _trig64(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64, ndim=2)):
    i = wp.tid()
    out[0, i] = wp.sin(x[i])
    out[1, i] = wp.cos(x[i])
    out[2, i] = wp.tan(x[i])


@wp.kernel
def _sincos_loop32(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    """The shape that is vectorized as an outer loop (the thread loop around an inner loop)."""
    i = wp.tid()
    s = float(0.0)
    w = float(1.0)
    for k in range(3):
        s += wp.sin(x[i] * float(k + 1)) * w
        w = w * 100.0
    out[i] = s


def test_kernels_large_arguments() -> None:
    x32 = float32_samples(4000)
    out = wp.zeros((3, x32.shape[0]), dtype=wp.float32)
    wp.launch(_trig32, dim=x32.shape[0], inputs=[wp.array(x32, dtype=wp.float32), out])
    for row, name in enumerate(("sin", "cos", "tan")):
        assert_ulp(out.numpy()[row], FUNCS[name](x32.astype(np.float64)), np.float32, 1.0, (x32,))

    x64 = np.array(HARD64 + [1e16, -1e16, 1e100, 7.5e200], dtype=np.float64)
    out64 = wp.zeros((3, x64.shape[0]), dtype=wp.float64)
    wp.launch(_trig64, dim=x64.shape[0], inputs=[wp.array(x64, dtype=wp.float64), out64])
    for row, name in enumerate(("sin", "cos", "tan")):
        err = _mp_ulp(name, out64.numpy()[row], x64)
        assert err.max() <= 2.0, (name, x64[int(np.argmax(err))], err.max())


def test_outer_loop_kernel_large_arguments() -> None:
    x = np.array([1e22, -3e30, 1e10, 12345.678, 3.4028235e38 / 27, 0.5, 1e5, -7e12], dtype=np.float32)
    out = wp.zeros(x.shape[0], dtype=wp.float32)
    wp.launch(_sincos_loop32, dim=x.shape[0], inputs=[wp.array(x, dtype=wp.float32), out])
    xs = [(x * np.float32(k + 1)).astype(np.float64) for k in range(3)]
    ref = sum(np.sin(v) * 10.0 ** (2 * k) for k, v in enumerate(xs))
    np.testing.assert_allclose(out.numpy(), ref, rtol=2e-6, atol=1e-6)


def test_python_scope_large_arguments() -> None:
    assert wp.sin(1e22) == float(np.float32(np.sin(np.float64(np.float32(1e22)))))
    assert wp.cos(wp.float32(3.0e38)) == float(np.float32(np.cos(np.float64(np.float32(3.0e38)))))
    assert wp.sin(wp.float64(1e16)) == pytest.approx(0.7796880066069787, rel=1e-15)
    ref = _mp_reference("sin", np.array([1e300]))[0]
    assert wp.sin(wp.float64(1e300)) == pytest.approx(ref, rel=2e-16)
    assert math.isnan(wp.sin(float("inf"))) and math.isnan(wp.tan(wp.float64(float("-inf"))))
    assert math.isnan(wp.cos(float("nan")))


FAST_MODULE = "test_trig_large_arguments_fast_math"


@wp.kernel(module=FAST_MODULE)
def _sin_fast(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = wp.sin(x[i])


def test_fast_math_selects_the_cheaper_reduction() -> None:
    """``fast_math=True`` uses the Cody-Waite variant: a few ulp below ~1e5, not full range."""
    from warp.compiler.frontend.translator import build_kernel
    from warp.compiler.lowering.kernel import lower_kernel
    from warp.compiler.options import CompileOptions
    from warp.targets import target_for_kind

    cpu = target_for_kind("cpu")
    fast_options = CompileOptions(target=cpu, fast_math=True)
    fast_ir = lower_kernel(build_kernel(_sin_fast), fast_options, cpu.define_entry)
    exact_ir = lower_kernel(build_kernel(_sin_fast), CompileOptions(target=cpu), cpu.define_entry)
    fast_ir, exact_ir = fast_ir.llvm_ir, exact_ir.llvm_ir
    assert "__wp_sin_fast_f32" in fast_ir and "__wp_two_over_pi_f32" not in fast_ir
    # the default: LLVM's intrinsic, defined after vectorization (warp_builtins.mathlib.trig_lanes)
    assert "__wp_sin_fast_f32" not in exact_ir and "llvm.sin.f32" in exact_ir

    wp.set_module_options({"fast_math": True}, module=FAST_MODULE)
    try:
        x = np.random.default_rng(13).uniform(-1e5, 1e5, 20000).astype(np.float32)
        out = wp.zeros(x.shape[0], dtype=wp.float32)
        wp.launch(_sin_fast, dim=x.shape[0], inputs=[wp.array(x, dtype=wp.float32), out])
        assert_ulp(out.numpy(), np.sin(x.astype(np.float64)), np.float32, 2.0, (x,))
    finally:
        wp.set_module_options({"fast_math": False}, module=FAST_MODULE)
