"""The reverse sweep: adjoints of forward ops, visited last to first.

Adjoints are SSA values kept in a map ``adj`` (forward value id -> current adjoint); a
contribution to a value that already has one is summed. Region ops are reversed structurally:

- ``if``: an ``if`` on the replayed condition; each branch replays the forward branch, seeds
  the adjoints of its yielded values and sweeps it; the branches yield the updated adjoints of
  the outside values they touch (a branch that left by return/break/continue yields them
  unchanged: it cannot have been taken if execution got past the ``if``).
- ``for``/``while``: a ``for`` over the recorded iteration count, backwards. Each iteration
  replays the forward body for that iteration and sweeps it; the adjoints of loop-carried
  values and of outside values the body uses are carried by the reverse loop. The body sees
  its iteration's carried values only when the documented restriction holds (they are not
  needed); otherwise they are recomputed by running the first k iterations again, with a
  warning (the result is exact, the cost quadratic in the trip count).
"""

from __future__ import annotations

from typing import Any

from warp.extending import DerivativeContext, ir

from warp_autodiff.rules import RuleContext, lookup_rule
from warp_autodiff.specialization import specialize
from warp_autodiff.transform.analysis import completes_normally, free_values, has_effects
from warp_autodiff.transform.emit import Emitter, RuleError
from warp_autodiff.adjoint_types import carries_arrays, is_differentiable
from warp_autodiff.transform.scope import Frame, Level, Replay, Scope
from warp_autodiff.transform.host import BuilderHost


Adj = dict  # forward value id -> adjoint value


def _tracked(op: ir.Op, exclude: tuple[ir.Value, ...] = ()) -> list[ir.Value]:
    skip = {id(v) for v in exclude}
    return [
        v
        for v in free_values(op.regions)
        if is_differentiable(v.type) and not v.is_const and id(v) not in skip
    ]


class ReverseMixin(BuilderHost):
    """Methods of :class:`~warp_autodiff.transform.adjoint.AdjointBuilder` emitting adjoints."""

    def accumulate(self, adj: Adj, value: ir.Value, contribution: Any, em: Emitter) -> None:
        """``adj[value] += contribution`` (ignored for constants and non-differentiable types)."""
        if contribution is None or value.is_const or not is_differentiable(value.type):
            return
        if contribution.type != value.type:
            raise RuleError(f"adjoint of type {contribution.type!r} for a value of type {value.type!r}")
        prev = adj.get(id(value))
        adj[id(value)] = contribution if prev is None else em.add(prev, contribution)

    def seed_return(self, term: ir.Op, adj: Adj, em: Emitter) -> None:
        """Adjoints of returned values: the adjoint function's result adjoints (user functions).

        Synthetic returns (re-issued after a loop the function returned from) seed nothing: the
        loop's reverse seeds at the original ``return`` inside it.
        """
        if term.attrs.get("synthetic"):
            return
        for j, g in self.return_seeds:
            self.accumulate(adj, term.args[j], g, em)

    def sweep(self, ops_: list[ir.Op], em: Emitter, scope: Scope, adj: Adj) -> None:
        for op in reversed(ops_):
            self.reverse_op(op, em, scope, adj)

    def sweep_frames(self, frames: list[Frame], em: Emitter, scope: Scope, adj: Adj) -> None:
        for frame in reversed(frames):
            self.sweep(frame.executed, em, scope, adj)

    def reverse_op(self, op: ir.Op, em: Emitter, scope: Scope, adj: Adj) -> None:
        em.loc = op.loc
        if op.kind == "call":
            self.reverse_call(op, em, scope, adj)
        elif op.kind == "call_func":
            self.reverse_call_func(op, em, scope, adj)
        elif op.kind == "if":
            self.reverse_if(op, em, scope, adj)
        elif op.kind in ("for", "while"):
            self.reverse_loop(op, em, scope, adj)
        elif op.kind == "print" and "pieces" in op.attrs:
            self.reverse_print(op, em, scope, adj)

    # -- print ------------------------------------------------------------------------------
    def reverse_print(self, op: ir.Op, em: Emitter, scope: Scope, adj: Adj) -> None:
        """``print(...)`` prints, in the reverse pass, ``adj:`` and the adjoints of its values as
        they stand there (the gradients flowing back from later code), as NVIDIA Warp does."""
        values = [self.printed_adjoint(v, em, scope, adj) for v in op.args]
        em.op("print", values, [], pieces=["adj:", *op.attrs["pieces"]])

    def printed_adjoint(self, value: ir.Value, em: Emitter, scope: Scope, adj: Adj) -> ir.Value:
        """The adjoint ``print`` shows for ``value``: its adjoint so far plus, for a kernel
        parameter, the adjoint passed to the launch; an array's gradient array; else zero."""
        if carries_arrays(value.type):
            return self.adjoint_carrier(em, scope, value)
        current, passed = adj.get(id(value)), self.param_adjoints.get(id(value))
        if current is not None and passed is not None:
            return em.add(current, passed)
        if current is not None:
            return current
        if passed is not None:
            return passed
        try:
            return em.zero(value.type)
        except RuleError:  # a type without a zero: its forward value, as the best available
            return scope.get(value)

    # -- calls ------------------------------------------------------------------------------
    def reverse_call(self, op: ir.Op, em: Emitter, scope: Scope, adj: Adj) -> None:
        ov = op.attrs["overload"]
        rule = lookup_rule(ov, [a.type for a in op.args])
        adjoints = [adj.get(id(r)) for r in op.results]
        if rule is None:
            if any(a is not None for a in adjoints) and ov.differentiable and any(
                is_differentiable(a.type) for a in op.args
            ):
                self.warn(op, f"builtin '{ov.name}' has no derivative rule; its gradient is taken as zero")
            return
        if not rule.always and all(a is None for a in adjoints):
            return
        if rule.reference is not None:
            try:
                spec = specialize(rule.reference, [a.type for a in op.args])
            except Exception as exc:  # noqa: BLE001 - reported, gradient dropped
                self.warn(op, f"cannot differentiate '{ov.name}' through its reference function: {exc}")
                return
            self.reverse_through(spec, op, em, scope, adj)
            return
        try:
            # typed as the protocol rules are written against (warp.extending): mypy checks here
            # that RuleContext provides all of it
            ctx: DerivativeContext = RuleContext(self, em, op, scope, adjoints)
            contributions = rule.backward(ctx) or []
            for arg, c in zip(op.args, contributions):
                self.accumulate(adj, arg, c, em)
        except RuleError as exc:
            self.warn(op, f"cannot differentiate '{ov.name}': {exc}; its gradient is taken as zero")

    def reverse_call_func(self, op: ir.Op, em: Emitter, scope: Scope, adj: Adj) -> None:
        builtin = op.attrs.get("builtin")  # a builtin written in the kernel language
        if builtin is not None and not builtin.differentiable:
            return  # declared non-differentiable (e.g. a geometry query's traversal state)
        self.reverse_through(op.attrs["func"], op, em, scope, adj)

    def reverse_through(self, fn: ir.Function, op: ir.Op, em: Emitter, scope: Scope, adj: Adj) -> None:
        """Adjoint of ``op`` (a call of ``fn``, or a builtin computing what ``fn`` computes)."""
        adjoints = [adj.get(id(r)) for r in op.results]
        if all(a is None for a in adjoints) and not any(carries_arrays(a.type) for a in op.args):
            return  # no gradient reaches the call: its adjoint is not needed (nor built)
        info = self.funcs.adjoint(fn, self.tape_layout())
        if info is None:
            return
        args = [scope.get(a) for a in op.args]
        args += [self.adjoint_carrier(em, scope, op.args[k]) for k in info.array_params]
        args += [
            em.or_zero(adjoints[j], op.results[j].type) for j in info.diff_results
        ]
        call = em.op("call_func", args, [op.args[k].type for k in info.diff_params], func=info.function)
        for k, r in zip(info.diff_params, call.results):
            self.accumulate(adj, op.args[k], r, em)

    # -- if ---------------------------------------------------------------------------------
    def reverse_if(self, op: ir.Op, em: Emitter, scope: Scope, adj: Adj) -> None:
        result_adj = [adj.get(id(r)) for r in op.results]
        if all(a is None for a in result_adj) and not has_effects(op):
            return
        tracked = _tracked(op, exclude=(op.args[0],))
        branches = []
        for src in op.regions:
            region = ir.Region()
            sub = Emitter(region, op.loc)
            badj = {id(v): adj[id(v)] for v in tracked if id(v) in adj}
            if completes_normally(src):
                child = scope.child()
                body = src.ops[:-1]
                self.replay_ops(body, sub, child, Replay("neutral", [Level("root")]))
                for value, g in zip(src.ops[-1].args, result_adj):
                    if g is not None:
                        self.accumulate(badj, value, g, sub)
                self.sweep(body, sub, child, badj)
            branches.append((region, sub, badj))
        changed = [v for v in tracked if any(b.get(id(v)) is not adj.get(id(v)) for _, _, b in branches)]
        if not changed and not any(r.ops for r, _, _ in branches):
            return
        regions = []
        for region, sub, badj in branches:
            values = []
            for v in changed:
                g = badj.get(id(v))
                values.append(g if g is not None else sub.zero(v.type))
            sub.op("yield", values)
            regions.append(region)
        new = em.op("if", [scope.get(op.args[0])], [v.type for v in changed], regions=regions)
        for v, r in zip(changed, new.results):
            adj[id(v)] = r


__all__ = ["ReverseMixin", "specialize"]
