"""Derivative rules of builtins (JAX's ``primitive_transposes`` is the model).

A rule receives a :class:`RuleContext` for one forward ``call`` op: the replayed primal
arguments and results, the adjoints of the results, and an :class:`Emitter` placing new ops in
the reverse sweep. It returns one adjoint contribution per argument (``None`` for none)::

    @derivative("sin", primal_args=(0,))
    def _sin(ctx):
        (x,) = ctx.args
        return [ctx.e.mul(ctx.adj_out, ctx.e.call("cos", x))]

Several rules may share an overload: each may carry a predicate on the argument types, and the
most recently registered rule whose predicate accepts the types wins (vector and matrix rules for
``mul`` can be added next to the scalar one without touching it). Fields of a rule:

- ``primal_args``: indices of arguments whose *values* the rule reads (None: all; or a function
  of the op giving them). Linear rules read none; the loop analysis uses this to decide whether
  loop-carried values are needed.
- ``replay``: what the forward replay inside the adjoint does with the op: ``"keep"`` (compute
  it again) or ``"effect"`` (drop it: array writes must not happen twice).
- ``always``: run even when the results carry no adjoint (rules of array writes read the
  adjoint array of their destination).

Rules attach to builtin overloads (``Overload.derivative_rules``, kept by warp-core): a target
of :func:`derivative` is an ``Overload`` or a builtin name standing for all its overloads, those
registered already and those registered later. The registration functions live in warp-core
(:mod:`warp.extending`) so a plugin can give its ``lower=`` builtins a rule whether or not this
package is installed; they are re-exported here. Plugins add rules at import time of their plugin
module (rules are looked up when a kernel is compiled).
"""

from __future__ import annotations

from warp.extending import (
    derivative,
    derivative_from_func,
    DerivativeRule,
    lookup_rule,
    register_rule,
    rule_names,
    unregister_rule,
    zero_derivative,
)

from warp_autodiff.rules.context import RuleContext

__all__ = [
    "DerivativeRule",
    "RuleContext",
    "derivative",
    "derivative_from_func",
    "lookup_rule",
    "register_rule",
    "rule_names",
    "unregister_rule",
    "zero_derivative",
]


# the standard rules register themselves on import
from warp_autodiff.rules import core as _core  # noqa: E402,F401
from warp_autodiff.rules import scalar_math as _scalar_math  # noqa: E402,F401
from warp_autodiff.rules import composite_math as _composite_math  # noqa: E402,F401
from warp_autodiff.rules import reference as _reference  # noqa: E402,F401
from warp_autodiff.rules import conversions as _conversions  # noqa: E402,F401
from warp_autodiff.rules import decompositions as _decompositions  # noqa: E402,F401
