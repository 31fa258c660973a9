"""Which forward values the reverse pass reads (their *primal values*, not their adjoints).

The adjoint replays the forward computation before sweeping it backwards; a replayed value
matters only if the reverse reads it: a derivative rule's primal arguments (``primal_args``),
conditions and loop bounds (the replay must take the forward's path), array indices, arguments
of user functions (their adjoints replay them). Recomputing a value needs every value it is
computed from, so the needed set is closed backwards over data dependencies. Values outside it
(e.g. a load that only feeds ``y = 2 * x``) may change between the forward pass and the adjoint
without changing the gradient.

Region results and parameters depend on the values flowing into them at the same position:
a loop's carried value ``j`` on its initial value ``j`` and on operand ``j`` of every
``yield``/``continue``/``break`` of that loop; an ``if`` result on the condition and on each
branch's ``yield``.

:func:`needed_values` is used by the tape (which arrays' contents an adjoint launch needs) and
by the loop reverse (whether a loop's reverse needs the carried values of each iteration).
"""

from __future__ import annotations

from typing import Iterable, Iterator

from warp.extending import ir

from warp_autodiff.rules import lookup_rule
from warp_autodiff.transform.analysis import free_values


def direct_needs(op: ir.Op) -> list[ir.Value]:
    """Operands of ``op`` whose primal values the reverse reads directly."""
    if op.kind == "call":
        rule = lookup_rule(op.attrs["overload"], [a.type for a in op.args])
        if rule is None:
            return []
        wanted = rule.primal_args(op) if callable(rule.primal_args) else rule.primal_args
        if wanted is None:
            return list(op.args)
        return [op.args[k] for k in wanted if k < len(op.args)]
    if op.kind == "call_func":
        return list(op.args)
    if op.kind == "for":
        return list(op.args[:3])
    if op.kind == "if":
        return [op.args[0]]
    return []


def loop_exits(region: ir.Region) -> Iterator[ir.Op]:
    """Terminators of a loop body that carry its values on: its final terminator and every
    ``break``/``continue`` in it (nested ``if`` branches included, nested loops excluded)."""
    if region.ops and region.ops[-1].kind in ir.TERMINATORS:
        yield region.ops[-1]
    for op in region.ops:
        if op.kind == "if":
            for sub in op.regions:
                for inner in _jumps(sub):
                    yield inner


def _jumps(region: ir.Region) -> Iterator[ir.Op]:
    for op in region.ops:
        if op.kind in ("break", "continue"):
            yield op
        elif op.kind == "if":
            for sub in op.regions:
                yield from _jumps(sub)


class _Definitions:
    """Where each value of a function is defined: ``(op, None)`` for op results, ``(op, region)``
    for parameters of a region of ``op``."""

    def __init__(self, fn: ir.Function):
        self.by_value: dict[int, tuple[ir.Op, ir.Region | None, int]] = {}
        self._walk(fn.body)

    def _walk(self, region: ir.Region) -> None:
        for op in region.ops:
            for k, r in enumerate(op.results):
                self.by_value[id(r)] = (op, None, k)
            for sub in op.regions:
                for k, p in enumerate(sub.params):
                    self.by_value[id(p)] = (op, sub, k)
                self._walk(sub)


def _sources(op: ir.Op, region: ir.Region | None, k: int) -> list[ir.Value]:
    """The values flowing into result ``k`` (``region`` None) or parameter ``k`` of ``region``."""
    if op.kind == "if":
        out = [op.args[0]]
        for sub in op.regions:
            if sub.ops and sub.ops[-1].kind == "yield" and k < len(sub.ops[-1].args):
                out.append(sub.ops[-1].args[k])
        return out
    if op.kind == "for":
        body = op.regions[0]
        if region is not None and k == 0:  # the iteration variable
            return [op.args[0], op.args[2]]
        j = k - 1 if region is not None else k
        out = [op.args[3 + j]] if 3 + j < len(op.args) else []
        return out + [t.args[j] for t in loop_exits(body) if j < len(t.args)]
    if op.kind == "while":
        cond, body = op.regions
        condition = cond.ops[-1] if cond.ops and cond.ops[-1].kind == "condition" else None
        if region is body:
            return [condition.args[1 + k]] if condition is not None else list(op.args)
        out = [op.args[k]] if k < len(op.args) else []
        exits = (
            [t for t in loop_exits(body) if t.kind != "break"] if region is cond else list(loop_exits(body))
        )
        out += [t.args[k] for t in exits if k < len(t.args)]
        if region is None and condition is not None:
            out.append(condition.args[1 + k])
        return out
    return list(op.args) + free_values(op.regions)


def needed_values(fn: ir.Function, extra: Iterable[ir.Value] = (), within: ir.Op | None = None) -> set[int]:
    """Ids of the values of ``fn`` whose primal values its reverse pass needs (closed backwards).

    ``extra`` adds values needed from outside (e.g. a user function's results, which a caller's
    rule may read). With ``within`` (a loop op), only the needs of that op's regions count, as
    in the reverse of one loop (whose trip count is known).
    """
    defs = _Definitions(fn)
    stack: list[ir.Value] = list(extra)
    regions = within.regions[-1:] if within is not None else [fn.body]  # a loop's body
    for region in regions:
        for op in ir.walk(region):
            stack.extend(direct_needs(op))
            if op.kind == "while":  # the condition region decides the trip count
                stack.extend(op.regions[0].ops[-1].args[:1] if op.regions[0].ops else [])
    needed: set[int] = set()
    while stack:
        v = stack.pop()
        if id(v) in needed:
            continue
        needed.add(id(v))
        where = defs.by_value.get(id(v))
        if where is None:
            continue
        op, source_region, k = where
        if op.regions:
            stack.extend(_sources(op, source_region, k))
        else:
            stack.extend(op.args)
    return needed


__all__ = ["direct_needs", "loop_exits", "needed_values"]
