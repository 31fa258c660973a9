"""The recipes of docs/plugins.md: a ``func=`` builtin is differentiable through its body, a
``lower=`` builtin gets a gradient from a derivative rule (by hand or from a reference
``@wp.func``) and otherwise a zero gradient with an ``AdjointWarning``. The builtins are
registered the way the documented hook does (``registry.add`` on the builtin registry)."""

from __future__ import annotations

import warnings
from typing import Any

import llvmlite.ir as ir
import numpy as np
import pytest

import warp as wp
from warp.extending import Float, Overload, TypeVar, builtin_registry, derivative, derivative_from_func

pytestmark = pytest.mark.needs_plugin("autodiff", "builtins")

F = TypeVar("F", Float)


def _lower_softsign(ctx: Any, args: list, types: list) -> ir.Value:
    (x,) = args
    b = ctx.builder
    ax = ctx.call_intrinsic("llvm.fabs", [x])
    return b.fdiv(x, b.fadd(ir.Constant(x.type, 1.0), ax))


@wp.func
def softsign_reference(x: float):
    return x / (1.0 + wp.abs(x))


def _register(name: str, **how: Any) -> Overload:
    if name not in builtin_registry:
        return builtin_registry.add(name, params=[("x", F)], result=F, doc="x / (1 + |x|)", **how)
    return builtin_registry.get(name).overloads[0]


_register("doc_softsign_func", func=softsign_reference)
SOFTSIGN_RULE = _register("doc_softsign_rule", lower=_lower_softsign)
_register("doc_softsign_ref", lower=_lower_softsign)
_register("doc_softsign_none", lower=_lower_softsign)


def _rules() -> None:
    @derivative(SOFTSIGN_RULE, primal_args=(0,))  # attached to the overload registry.add returned
    def _softsign_adjoint(ctx):
        (x,) = ctx.args
        e = ctx.e
        d = e.add(e.scalar(1.0, x), e.call("abs", x))
        return [e.div(ctx.adj_out, e.mul(d, d))]

    derivative_from_func("doc_softsign_ref", softsign_reference)


@wp.kernel
def apply_func(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.doc_softsign_func(x[i])


@wp.kernel
def apply_rule(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.doc_softsign_rule(x[i])


@wp.kernel
def apply_ref(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.doc_softsign_ref(x[i])


@wp.kernel
def apply_none(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.doc_softsign_none(x[i])


def _gradient(kernel) -> tuple[np.ndarray, np.ndarray]:
    values = np.array([-3.0, -0.5, 0.25, 2.0], dtype=np.float32)
    x = wp.array(values, dtype=float, requires_grad=True)
    y = wp.zeros(4, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=4, inputs=[x], outputs=[y])
    tape.backward(grads={y: wp.ones(4, dtype=float)})
    np.testing.assert_allclose(y.numpy(), values / (1 + np.abs(values)), rtol=1e-6)
    return x.grad.numpy(), 1.0 / (1.0 + np.abs(values)) ** 2


@pytest.mark.parametrize("kernel", [apply_func, apply_rule, apply_ref], ids=["func", "rule", "reference"])
def test_documented_ways_to_differentiate_a_builtin(kernel):
    _rules()
    got, expected = _gradient(kernel)
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_lower_builtin_without_a_rule_has_zero_gradient_and_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got, _ = _gradient(apply_none)
    np.testing.assert_array_equal(got, 0.0)
    assert any("builtin 'doc_softsign_none' has no derivative rule; its gradient is taken as zero"
               in str(w.message) for w in caught), [str(w.message) for w in caught]
