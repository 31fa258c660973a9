"""sin, cos and tan on the CPU as late intrinsics (warp_builtins.mathlib.trig_lanes).

A SIMD vector takes the short path (a Cody-Waite reduction, exact for |x| <= 2**30) unless a
lane has a larger argument, inf or NaN: then the whole vector takes the full-range reduction.
These tests mix both kinds of lane in one vector, in elementwise kernels and in kernels vectorized as an outer
loop, and check the short path's accuracy. References: NumPy's float64 functions (float32
results), mpmath (float64).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_trig_large_arguments import _mp_ulp, _trig32, _trig64
from ulp import assert_ulp

import warp as wp
from warp.compiler.frontend.translator import build_kernel
from warp.compiler.lowering.kernel import lower_kernel
from warp.compiler.options import CompileOptions
from warp.targets.cpu import jit as cpu_jit
from warp.targets import target_for_kind
from warp_builtins.mathlib.trig_lanes import LIMIT

FUNCS = {"sin": np.sin, "cos": np.cos, "tan": np.tan}


@wp.kernel
def _sincos_loop(x: wp.array(dtype=wp.float32), out: wp.array2d(dtype=wp.float32)):
    """A thread loop around an inner loop: vectorized as an outer loop."""
    i = wp.tid()
    for k in range(2):
        out[k, i] = wp.sin(x[i] * float(k + 1))


def _mixed32(n: int, seed: int) -> np.ndarray:
    """Mostly ordinary arguments, every 37th one huge, a few at the edge of the short path."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-50.0, 50.0, n)
    x[::37] = 10.0 ** rng.uniform(10, 38, x[::37].shape[0]) * rng.choice([-1, 1], x[::37].shape[0])
    x[5:9] = [LIMIT, -LIMIT, np.nextafter(np.float32(LIMIT), np.float32(np.inf)), 3.4e38]
    return x.astype(np.float32)


def _run(kernel, x: np.ndarray, rows: int, dtype) -> np.ndarray:
    out = wp.zeros((rows, x.shape[0]), dtype=dtype)
    wp.launch(kernel, dim=x.shape[0], inputs=[wp.array(x, dtype=dtype), out])
    return out.numpy()


def test_mixed_lanes_float32() -> None:
    x = _mixed32(4099, 3)
    out = _run(_trig32, x, 3, wp.float32)
    for row, name in enumerate(FUNCS):
        assert_ulp(out[row], FUNCS[name](x.astype(np.float64)), np.float32, 1.0, (x,))


def test_mixed_lanes_outer_loop() -> None:
    x = _mixed32(1027, 5)
    out = _run(_sincos_loop, x, 2, wp.float32)
    for k in range(2):
        with np.errstate(over="ignore", invalid="ignore"):  # 3.4e38 * 2 is inf: sin gives NaN
            arg = (x * np.float32(k + 1)).astype(np.float64)
            ref = np.sin(arg)
        assert_ulp(out[k], ref, np.float32, 1.0, (x,))


def test_mixed_lanes_float64() -> None:
    rng = np.random.default_rng(7)
    x = rng.uniform(-100.0, 100.0, 203)
    x[::13] = [1e22, -3e30, 1e300, 2.0**30 + 0.5, 1e15, -7e12, 6381956970095103.0 * 2.0**797, 1e200,
               2.0**30, 5e10, -1e100, 1e17, 3e9, 9e8, 1e19, 4e20][: x[::13].shape[0]]
    out = _run(_trig64, x, 3, wp.float64)
    for row, name in enumerate(FUNCS):
        err = _mp_ulp(name, out[row], x)
        assert err.max() <= (2.0 if name == "tan" else 1.0), (name, x[int(np.argmax(err))], err.max())


def test_short_path_accuracy_float32() -> None:
    rng = np.random.default_rng(11)
    n = 1 << 20
    x = np.concatenate([10.0 ** rng.uniform(-8, np.log10(LIMIT), n // 2), rng.uniform(0, 20, n // 2)])
    x = (x * rng.choice([-1, 1], n)).astype(np.float32)
    out = _run(_trig32, x, 3, wp.float32)
    for row, name in enumerate(FUNCS):
        bound = 0.6 if name == "tan" else 0.51
        assert_ulp(out[row], FUNCS[name](x.astype(np.float64)), np.float32, bound, (x,))


def test_short_path_accuracy_float64() -> None:
    rng = np.random.default_rng(12)
    x = np.concatenate([10.0 ** rng.uniform(-8, np.log10(LIMIT), 300), rng.uniform(0, 20, 300)])
    x *= rng.choice([-1, 1], x.shape[0])
    out = _run(_trig64, x, 3, wp.float64)
    for row, name in enumerate(FUNCS):
        err = _mp_ulp(name, out[row], x)
        assert err.max() <= (2.0 if name == "tan" else 0.8), (name, x[int(np.argmax(err))], err.max())


def test_signed_zero_inf_nan() -> None:
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan] + [1.0] * 27, dtype=np.float32)
    out = _run(_trig32, x, 3, wp.float32)
    assert np.signbit(out[0, 1]) and not np.signbit(out[0, 0]) and np.signbit(out[2, 1])
    assert out[1, 0] == 1.0 and out[1, 1] == 1.0
    assert np.isnan(out[:, 2:5]).all()


def test_half_precision() -> None:
    @wp.kernel
    def trig16(x: wp.array(dtype=wp.float16), out: wp.array(dtype=wp.float16)):
        i = wp.tid()
        out[i] = wp.sin(x[i]) + wp.cos(x[i])

    x = np.linspace(-60000.0, 60000.0, 999).astype(np.float16)
    out = wp.zeros(x.shape[0], dtype=wp.float16)
    wp.launch(trig16, dim=x.shape[0], inputs=[wp.array(x, dtype=wp.float16), out])
    ref = np.sin(x.astype(np.float64)) + np.cos(x.astype(np.float64))
    np.testing.assert_allclose(out.numpy().astype(np.float64), ref, rtol=0, atol=2e-3)


@pytest.mark.parametrize("kernel", [_trig32, _sincos_loop], ids=["elementwise", "outer_loop"])
def test_vectorized_with_a_cold_full_range_call(kernel) -> None:
    """The optimized kernel calls a vector definition: the full-range lanes function appears."""
    cpu = target_for_kind("cpu")
    lowered = lower_kernel(build_kernel(kernel), CompileOptions(target=cpu), cpu.define_entry)
    text = cpu_jit.optimize_ir(lowered.llvm_ir, name=kernel.key)
    assert "llvm.sin" not in text
    assert re.search(r"fcmp ugt <\d+ x float>", text)  # the whole-vector check of the short path
    assert re.search(r"@__wp_late_sin_full_v\d+f32", text)  # the vector loop's slow path
    assert "@__wp_late_sin_full_f32" in text  # the full-range reduction itself
