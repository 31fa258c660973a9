"""Helpers shared by the autodiff tests."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import warp as wp
from warp.compiler.registry import builtin_registry

F = wp.float64


def has_builtin(name: str, *types: Any) -> bool:
    """True if kernel builtin ``name`` exists (with an overload for ``types`` when given)."""
    if name not in builtin_registry:
        return False
    return not types or builtin_registry.resolve(name, list(types)) is not None


def f64(values: Any, requires_grad: bool = False) -> wp.array:
    return wp.array(np.asarray(values, dtype=np.float64), dtype=F, requires_grad=requires_grad)


def check_gradients(kernel: Any, dim: Any, inputs: list, outputs: list, *, eps: float = 1e-6,
                    tol: float = 1e-6) -> None:
    """Finite differences (float64) must match the adjoint (raises with a report otherwise)."""
    assert any(isinstance(o, wp.array) for o in outputs), "nothing to check: no output array"
    assert wp.autograd.gradcheck(
        kernel, dim, inputs, outputs, eps=eps, atol=tol, rtol=tol, show_summary=False
    )


def check_builtin_case(case: tuple, dim: int, *, eps: float = 1e-6, tol: float = 1e-5) -> None:
    """``case`` = (kernel, builtin names, inputs maker): skip unless those builtins are installed,
    else check_gradients of the kernel over the inputs into one float64 output, every
    wp.AdjointWarning an error (every builtin used has a derivative rule)."""
    kernel, needed, make_inputs = case
    missing = [n for n in needed if not has_builtin(n)]
    if missing:
        pytest.skip(f"builtins not installed: {missing}")
    inputs = make_inputs()
    y = wp.zeros(dim, dtype=F)
    with warnings.catch_warnings():
        warnings.simplefilter("error", wp.AdjointWarning)  # every builtin used has a rule
        check_gradients(kernel, dim, inputs, [y], eps=eps, tol=tol)


def adjoint_grads(kernel: Any, dim: Any, inputs: list, outputs: list, seeds: dict) -> list:
    """Run the kernel on a tape, seed the outputs, return the gradients of the array inputs."""
    for a in inputs + outputs:
        if isinstance(a, wp.array) and a.grad is None:
            a.requires_grad = True
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=dim, inputs=inputs, outputs=outputs)
    tape.backward(
        grads={
            out: wp.array(np.asarray(s, dtype=out.numpy().dtype), dtype=out.dtype) for out, s in seeds.items()
        }
    )
    return [a.grad.numpy().copy() if isinstance(a, wp.array) else None for a in inputs]


# -- losses: weighted sums of float64 components (test_composite_gradients.py, test_more_builtin_gradients.py)
@wp.func
def vsum(v: wp.vec3d):
    return v[0] + F(2.0) * v[1] - F(0.5) * v[2] * v[2]


@wp.func
def msum(m: wp.mat33d):
    return vsum(m[0]) + F(0.3) * vsum(m[1]) - F(1.7) * vsum(m[2])
