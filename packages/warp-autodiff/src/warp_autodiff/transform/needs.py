"""Which forward values the reverse pass reads (their *primal values*, not their adjoints).

The adjoint replays the forward computation before sweeping it backwards; a replayed value
matters only if the reverse reads it: a derivative rule's primal arguments (``primal_args``),
conditions and loop bounds (the replay must take the forward's path), array indices, arguments
of user functions (their adjoints replay them). Recomputing a value needs every value it is
computed from, so the needed set is closed backwards over data dependencies. Values outside it
(e.g. a load that only feeds ``y = 2 * x``) may change between the forward pass and the adjoint
without changing the gradient.

:func:`needed_values` is used by the tape (which arrays' contents an adjoint launch needs) and
by the loop analysis (which loop-carried values the reverse of a loop needs).
"""

from __future__ import annotations

from typing import Iterable

from warp.compiler import ir

from warp_autodiff.rules import lookup_rule
from warp_autodiff.transform.analysis import free_values


def direct_needs(op: ir.Op) -> list[ir.Value]:
    """Operands of ``op`` whose primal values the reverse reads directly."""
    if op.kind == "call":
        rule = lookup_rule(op.attrs["overload"].name, [a.type for a in op.args])
        if rule is None:
            return []
        wanted = rule.primal_args(op) if callable(rule.primal_args) else rule.primal_args
        if wanted is None:
            return list(op.args)
        return [op.args[k] for k in wanted if k < len(op.args)]
    if op.kind in ("call_func", "for", "while"):
        return list(op.args)
    if op.kind == "if":
        return [op.args[0]]
    if op.kind == "return":
        return []
    return []


class _Definitions:
    """Where each value of a function is defined: by an op, or as a param of a region op."""

    def __init__(self, fn: ir.Function):
        self.by_value: dict[int, ir.Op] = {}
        self._walk(fn.body, None)

    def _walk(self, region: ir.Region, owner: ir.Op | None) -> None:
        if owner is not None:
            for p in region.params:
                self.by_value[id(p)] = owner
        for op in region.ops:
            for r in op.results:
                self.by_value[id(r)] = op
            for sub in op.regions:
                self._walk(sub, op)


def needed_values(fn: ir.Function, extra: Iterable[ir.Value] = ()) -> set[int]:
    """Ids of the values of ``fn`` whose primal values its reverse pass needs (closed backwards).

    ``extra`` adds values needed from outside (e.g. a user function's results, which a caller's
    rule may read). A value defined by a region op (``if``/loop result, loop-carried param) pulls
    in everything the region op reads.
    """
    defs = _Definitions(fn)
    needed: set[int] = set()
    stack: list[ir.Value] = list(extra)
    for op in ir.walk(fn.body):
        stack.extend(direct_needs(op))
        if op.kind == "while":  # the condition region decides the trip count
            stack.extend(free_values(op.regions[:1]))
            stack.extend(op.regions[0].params)
    expanded: set[int] = set()
    while stack:
        v = stack.pop()
        if id(v) in needed:
            continue
        needed.add(id(v))
        op = defs.by_value.get(id(v))
        if op is None or id(op) in expanded:
            continue
        expanded.add(id(op))
        stack.extend(op.args)
        if op.regions:
            # a region op's results and params depend on all it reads and all it yields
            stack.extend(free_values(op.regions))
            for sub in op.regions:
                for inner in ir.walk(sub):
                    if inner.kind in ir.TERMINATORS:
                        stack.extend(inner.args)
    return needed


__all__ = ["direct_needs", "needed_values"]
