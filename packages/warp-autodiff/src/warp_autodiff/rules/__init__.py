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

from typing import TYPE_CHECKING, Any

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

from warp_autodiff.adjoint_types import is_differentiable

if TYPE_CHECKING:
    from warp.extending import ir

    from warp_autodiff.transform.emit import Emitter

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


class RuleContext:
    """What a rule sees of one forward op (see the module docstring)."""

    def __init__(self, transform: Any, emitter: Emitter, op: ir.Op, scope: Any, adjoints: list[Any]):
        self._t = transform
        self.e = emitter
        self.op = op
        self._scope = scope
        self.args = [scope.get(a) for a in op.args]
        #: replayed results (None for results the replay dropped, e.g. of array writes)
        self.results = [scope.env.get(id(r)) for r in op.results]
        self.adj = adjoints

    @property
    def name(self) -> str:
        return self.op.attrs["overload"].name

    @property
    def types(self) -> list[Any]:
        return [a.type for a in self.op.args]

    @property
    def adj_out(self) -> Any:
        """Adjoint of the (first) result, zero if it has none."""
        if self.adj and self.adj[0] is not None:
            return self.adj[0]
        return self.e.zero(self.op.results[0].type)

    def wants(self, k: int) -> bool:
        """Whether argument ``k`` takes an adjoint (differentiable and not a constant)."""
        a = self.op.args[k]
        return is_differentiable(a.type) and not a.is_const

    def array_accumulate(self, k: int, indices: list[Any], value: Any) -> None:
        """``adj(arg k)[indices] += value`` (atomic unless only this thread writes there)."""
        self._t.array_accumulate(self.e, self._scope, self.op, k, indices, value)

    def array_adjoint(self, k: int, indices: list[Any]) -> Any:
        """``adj(arg k)[indices]`` (zero when that array has no adjoint)."""
        return self._t.array_adjoint_load(self.e, self._scope, self.op, k, indices)

    def array_clear(self, k: int, indices: list[Any]) -> None:
        """``adj(arg k)[indices] = 0``: the adjoint of an overwritten element is consumed."""
        self._t.array_clear(self.e, self._scope, self.op, k, indices)


# the standard rules register themselves on import
from warp_autodiff.rules import core as _core  # noqa: E402,F401
from warp_autodiff.rules import scalar_math as _scalar_math  # noqa: E402,F401
from warp_autodiff.rules import composite_math as _composite_math  # noqa: E402,F401
from warp_autodiff.rules import reference as _reference  # noqa: E402,F401
from warp_autodiff.rules import conversions as _conversions  # noqa: E402,F401
from warp_autodiff.rules import decompositions as _decompositions  # noqa: E402,F401
