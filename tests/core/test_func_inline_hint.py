"""``@wp.func(inline=...)``: False keeps a function out of line (LLVM ``noinline``), True/None
inline it; the hint is part of the kernel cache key. Results compared with NumPy."""

from __future__ import annotations

import re

import numpy as np
import pytest

import warp as wp
from warp.compiler.frontend.translator import build_kernel
from warp.compiler.lowering.kernel import lower_kernel
from warp.compiler.options import compiling, resolve_options
from warp.targets import get_target, target_for_kind


def _lowered_ir(kernel) -> str:
    options = resolve_options(kernel, target=target_for_kind("cpu"))
    with compiling(options):
        entry = get_target(wp.get_device("cpu")).define_entry
        return lower_kernel(build_kernel(kernel), options, entry).llvm_ir


def _make(inline):
    @wp.func(inline=inline, module="unique")
    def poly(x: float, y: float) -> float:
        return x * x + 3.0 * y

    @wp.kernel(module=poly.module)
    def use(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = poly(a[i], 2.0)

    return poly, use


@pytest.mark.parametrize("inline", [None, False, True])
def test_hint_sets_the_llvm_attribute_and_keeps_results(inline):
    poly, use = _make(inline)
    ir = _lowered_ir(use)
    define = next(line for line in ir.splitlines() if line.startswith("define") and "poly" in line)
    attrs = re.search(r"#(\d+)", define)
    text = define if attrs is None else define + next(
        line for line in ir.splitlines() if line.startswith(f"attributes #{attrs.group(1)} ")
    )
    assert ("noinline" in text) == (inline is False) and ("alwaysinline" in text) == (inline is not False)
    values = np.linspace(-2.0, 2.0, 17, dtype=np.float32)
    out = wp.zeros(17, dtype=float)
    wp.launch(use, 17, inputs=[wp.array(values, dtype=float), out])
    np.testing.assert_allclose(out.numpy(), values * values + 6.0, rtol=1e-6)


def test_hint_enters_the_module_hash():
    hashes = {_make(inline)[0].module.hash_module() for inline in (None, False, True)}
    assert len(hashes) == 3
    assert _make(False)[0].module.hash_module() == _make(False)[0].module.hash_module()


@pytest.mark.parametrize("bad", [1, "no", 0.0])
def test_hint_must_be_a_bool(bad):
    with pytest.raises(TypeError, match="inline must be a bool or None"):

        @wp.func(inline=bad)
        def f(x: float) -> float:
            return x
