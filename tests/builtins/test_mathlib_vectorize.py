"""The IR math functions vectorize: a loop calling one of them becomes AVX/AVX-512 code at O3."""

from __future__ import annotations

import re

import numpy as np
import pytest
import warp.types.scalars as wps
from llvm_harness import JitModule, add_elementwise, optimized_ir, timed
from llvmlite import ir
from warp_builtins.mathlib import arity, call_math, math_function_names

VECTOR_FLOAT = re.compile(r"<(\d+) x (float|double)>")
CALLEE = re.compile(r"call [^@]*@\"?([\w.$]+)")


def _loop_module(name: str, wt, width: int | None = None) -> str:
    module = ir.Module(f"vec_{name}")
    n = arity(name)
    add_elementwise(module, "f", [wt] * n, wt, lambda b, vals: call_math(b, name, *vals))
    text = str(module)
    if width:  # "prefer-vector-width" lifts the 256-bit preference of recent Intel CPUs
        text = re.sub(r'(define void @"f"\([^)]*\))', r"\1 #7", text)
        text += f'\nattributes #7 = {{ "prefer-vector-width"="{width}" }}\n'
    return text


def _host_has_simd() -> bool:
    import llvmlite.binding as llvm
    from llvm_harness import _init

    _init()
    features = llvm.get_host_cpu_features()
    return bool(features.get("avx2") or features.get("avx512f") or features.get("sse4.2"))


pytestmark = pytest.mark.skipif(not _host_has_simd(), reason="host without SIMD float support")


@pytest.mark.parametrize("ty", ["float", "double"])
@pytest.mark.parametrize("name", math_function_names())
def test_loop_vectorizes(name: str, ty: str) -> None:
    wt = wps.float32 if ty == "float" else wps.float64
    opt = optimized_ir(_loop_module(name, wt))
    widths = {int(w) for w, t in VECTOR_FLOAT.findall(opt) if t == ty}
    assert any(w >= 4 for w in widths), f"no <N x {ty}> in optimized IR of {name}"
    callees = set(CALLEE.findall(opt))
    assert all(c.startswith("llvm.") for c in callees), f"scalar calls left: {callees}"


@pytest.mark.parametrize("ty", ["float", "double"])
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_fast_math_variants_vectorize(name: str, ty: str) -> None:
    wt = wps.float32 if ty == "float" else wps.float64
    module = ir.Module(f"vec_fast_{name}")
    add_elementwise(module, "f", [wt], wt, lambda b, vals: call_math(b, name, *vals, fast=True))
    opt = optimized_ir(str(module))
    assert any(int(w) >= 4 for w, t in VECTOR_FLOAT.findall(opt) if t == ty)
    assert "two_over_pi" not in opt  # the Cody-Waite variant needs no table


def test_sin_vectorizes_to_512_bits_when_preferred() -> None:
    import llvmlite.binding as llvm

    if not llvm.get_host_cpu_features().get("avx512f"):
        pytest.skip("no AVX-512")
    opt = optimized_ir(_loop_module("sin", wps.float32, width=512))
    # float32 sin works in double after the argument reduction: 8 lanes of double fill 512 bits
    assert "<16 x float>" in opt or "<8 x double>" in opt


def test_vectorized_sin_is_fast_and_matches_numpy() -> None:
    """Times sin over 1M floats (printed, not asserted) and checks the result."""
    jm = JitModule(_loop_module("sin", wps.float32, width=512))
    f = jm.elementwise("f", [wps.float32], wps.float32)
    x = np.random.default_rng(0).uniform(-100, 100, 1_000_000).astype(np.float32)
    out = np.empty_like(x)
    t_ir = timed(lambda: f(x, out=out), 5)
    t_np = timed(lambda: np.sin(x), 5)
    print(f"\nsin, 1M float32: IR {t_ir * 1e3:.2f} ms, numpy {t_np * 1e3:.2f} ms")
    np.testing.assert_allclose(out, np.sin(x.astype(np.float64)), rtol=0, atol=2e-7)
