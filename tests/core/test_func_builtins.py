"""Builtins implemented in the kernel language (registry.add(..., func=...))."""

from __future__ import annotations

import numpy as np

import warp as wp
from warp.compiler.registry import builtin_registry


@wp.func
def _sq_plus(x: float, y: float):
    return x * x + y


if "test_sq_plus" not in builtin_registry:
    builtin_registry.add("test_sq_plus", params={"x": wp.float32, "y": wp.float32}, result=wp.float32,
                         func=_sq_plus, doc="x*x + y, written as a @wp.func.", group="Test")


def test_func_backed_builtin_compiles_to_a_call_of_its_function():
    @wp.kernel
    def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = wp.test_sq_plus(a[i], 1.0)

    a = np.linspace(-1, 1, 5).astype(np.float32)
    out = wp.zeros(5, dtype=float)
    wp.launch(k, dim=5, inputs=[a, out])
    np.testing.assert_allclose(out.numpy(), a * a + 1.0, rtol=1e-6)
