"""Reverse of dynamic loops: each iteration is replayed from its carried values, then swept.

The reverse of a loop that ran ``n`` iterations is a loop over ``k = n-1 .. 0`` that replays
iteration ``k`` from the carried values it started with and sweeps it backwards, carrying the
adjoints of the carried values and of the values the body reads from outside. Where the state
at iteration ``k`` comes from is the loop's *strategy*:

- ``"plain"``: the reverse reads no carried value (``s = s + x[i]``): none is needed;
- ``"stored"``: the replay of the loop stores the carried values of every iteration in per-thread
  memory (:mod:`warp_autodiff.loop_memory`); when they fit (``n <= leaf``), the reverse reads
  them back: linear time. Otherwise the reverse refills a *leaf* buffer of the last ``leaf``
  iterations not yet swept from the nearest checkpoint, pushing checkpoints at distances
  ``leaf * 2^j`` below the buffer (binary checkpointing): ``O(n log(n / leaf))`` time, memory
  bounded by the budget. Every path is exact.
- ``"recompute"``: carried values that cannot be stored (arrays) are recomputed by replaying
  the loop up to each iteration: exact, quadratic in ``n``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from warp.extending import int64, ir, type_size_in_bytes

from warp_autodiff import loop_memory as mem
from warp_autodiff.transform.analysis import free_values, has_effects
from warp_autodiff.transform.emit import Emitter
from warp_autodiff.adjoint_types import carries_arrays, is_differentiable
from warp_autodiff.transform.needs import loop_exits, needed_values
from warp_autodiff.transform.scope import Frame, Level, Replay, Scope
from warp_autodiff.transform.host import BuilderHost
from warp_autodiff.transform.variants import trip_count

Adj = dict


@dataclass
class LoopReverse:
    """What the reverse of one loop works with."""

    op: ir.Op
    is_for: bool
    body: ir.Region
    carried: list[ir.Value]
    inits: list[ir.Value]
    dcar: list[int]
    tracked: list[ir.Value]
    count: ir.Value
    init_car: list[ir.Value]
    init_out: list[ir.Value]


#: prologue(emitter, scope, k, extra params) -> (carried state values, extras passed at exits)
Prologue = Callable[[Emitter, Scope, ir.Value, list[ir.Value]], tuple[list[ir.Value], list[ir.Value]]]


def _tracked(op: ir.Op) -> list[ir.Value]:
    return [v for v in free_values(op.regions) if is_differentiable(v.type) and not v.is_const]


class LoopsMixin(BuilderHost):
    """Methods of :class:`~warp_autodiff.transform.adjoint.AdjointBuilder` reversing loops."""

    # -- analysis ---------------------------------------------------------------------------
    def loop_strategy(self, op: ir.Op, carried: list[ir.Value]) -> str:
        """``"plain"``, ``"stored"`` or ``"recompute"`` (see the module docstring)."""
        needed = needed_values(self.fn, within=op)
        params = [op.regions[0].params] if op.kind == "while" else []
        wanted = [
            j for j, p in enumerate(carried) if id(p) in needed or any(id(ps[j]) in needed for ps in params)
        ]
        if not wanted:
            return "plain"
        if any(carries_arrays(carried[j].type) for j in wanted) or self.layout is None:
            return "recompute"
        if op.kind == "while" and any(carries_arrays(p.type) for p in carried):
            return "recompute"  # a checkpointed replay re-evaluates the condition from stored values
        return "stored"

    @staticmethod
    def stored_indices(carried: list[ir.Value]) -> list[int]:
        """Carried values kept per iteration: every one that is not (or holds no) array."""
        return [j for j, p in enumerate(carried) if not carries_arrays(p.type)]

    # -- the reverse ------------------------------------------------------------------------
    def reverse_loop(self, op: ir.Op, em: Emitter, scope: Scope, adj: Adj) -> None:
        is_for = op.kind == "for"
        body = op.regions[-1]
        carried = body.params[1:] if is_for else body.params
        inits = op.args[3:] if is_for else op.args
        result_adj = [adj.get(id(r)) for r in op.results]
        dcar = [j for j, p in enumerate(carried) if is_differentiable(p.type)]
        if all(result_adj[j] is None for j in dcar) and not has_effects(op):
            return
        tracked = _tracked(op)
        spec = LoopReverse(
            op,
            is_for,
            body,
            list(carried),
            list(inits),
            dcar,
            tracked,
            scope.env[("count", id(op))],
            [em.or_zero(result_adj[j], carried[j].type) for j in dcar],
            [adj[id(v)] if id(v) in adj else em.zero(v.type) for v in tracked],
        )
        strategy = self.loop_strategy(op, carried)
        self.report_loop_strategy(op, strategy, carried)
        if strategy == "stored":
            results = self.reverse_stored(spec, em, scope)
        else:
            results = self.emit_reverse_for(
                spec, em, scope, spec.count, [], [], self._state_prologue(spec, scope, strategy)
            )
        for v, r in zip(tracked, results[len(dcar) :]):
            adj[id(v)] = r
        for jj, j in enumerate(dcar):
            self.accumulate(adj, inits[j], results[jj], em)

    def _state_prologue(self, spec: LoopReverse, scope: Scope, strategy: str) -> Prologue:
        def prologue(sub: Emitter, child: Scope, k: ir.Value, extra: list[ir.Value]) -> tuple[list, list]:
            if strategy == "recompute":
                op = spec.op
                if spec.is_for:
                    stop = child.env[id(spec.body.params[0])]  # i_k: replay iterations 0 .. k-1
                    prefix = self.clone_for(op, sub, child, Replay("neutral"), stop=stop)
                else:
                    prefix = self.clone_while(op, sub, child, Replay("neutral"), limit=k)
                return list(prefix.results[: len(spec.carried)]), []
            return [scope.get(a) for a in spec.inits], []

        return prologue

    def emit_reverse_for(
        self,
        spec: LoopReverse,
        em: Emitter,
        scope: Scope,
        n: ir.Value,
        extra_types: list[Any],
        extra_init: list[ir.Value],
        prologue: Prologue,
    ) -> list[ir.Value]:
        """``for r in range(n)``: sweep iteration ``k = n-1-r``; returns the final adjoints
        (carried values, then tracked values; after ``extra`` values threaded through)."""
        op, carried, dcar, tracked = spec.op, spec.carried, spec.dcar, spec.tracked
        ctype = n.type
        r = ir.Value(ctype, "r")
        extra = [ir.Value(t, "extra") for t in extra_types]
        car_params = [ir.Value(carried[j].type, f"adj_{carried[j].name}") for j in dcar]
        out_params = [ir.Value(v.type, f"adj_{v.name}") for v in tracked]
        rbody = ir.Region(params=[r, *extra, *car_params, *out_params])
        sub = Emitter(rbody, op.loc)
        child = scope.child()
        k = sub.call("sub", sub.call("sub", n, sub.const(1, ctype)), r)
        if spec.is_for:
            start, step = scope.get(op.args[0]), scope.get(op.args[2])
            itype = start.type
            i_k = sub.call("add", start, sub.call("mul", sub.cast(k, itype), step))
            child.bind(spec.body.params[0], i_k)
        state, passed = prologue(sub, child, k, extra)
        for p, s in zip(carried, state):
            child.bind(p, s)

        def on_exit(term: ir.Op, at: Emitter, s: Scope, rp: Replay) -> None:
            badj: Adj = {id(v): p for v, p in zip(tracked, out_params)}
            if term.kind == "return":  # the function returned in this (last) iteration
                self.seed_return(term, badj, at)
            else:
                for jj, j in enumerate(dcar):
                    self.accumulate(badj, term.args[j], car_params[jj], at)
            self.sweep_frames(rp.frames or [], at, s, badj)
            new_car = [
                badj[id(carried[j])] if id(carried[j]) in badj else at.zero(carried[j].type) for j in dcar
            ]
            new_out = [badj[id(v)] for v in tracked]
            at.op("yield" if at.region is rbody else "continue", [*passed, *new_car, *new_out])

        self.replay_ops(spec.body.ops, sub, child, Replay("path", [Level("root")], [Frame()], on_exit))
        types = list(extra_types) + [p.type for p in car_params] + [p.type for p in out_params]
        zero, one = em.const(0, ctype), em.const(1, ctype)
        rev = em.op(
            "for", [zero, n, one, *extra_init, *spec.init_car, *spec.init_out], types, regions=[rbody]
        )
        return list(rev.results[len(extra_types) :])

    # -- stored iterations ------------------------------------------------------------------
    def reverse_stored(self, spec: LoopReverse, em: Emitter, scope: Scope) -> list[ir.Value]:
        """The ``"stored"`` strategy: record in the replay, then a fast or a checkpointed reverse."""
        stored = self.stored_indices(spec.carried)
        types = [spec.carried[j].type for j in stored]
        site = self.tape_layout().add_site(types, self.where(spec.op), key=spec.op)
        self._record_in_replay(spec, scope, site, stored)
        leaf = self._tape(em, mem.LEAF, [], int64, site)
        n64 = em.cast(spec.count, int64)
        # the trip count from the bounds when no break/return can end the loop early: the same
        # as the counted one, but computed from values every thread shares (SIMD-friendly)
        trip = self._trip_count(spec, em, scope)
        if self.assume_fit and trip is not None:
            # the fast variant of the adjoint: the launch checked that every iteration is stored
            n = em.cast(trip, spec.count.type)
            return self.emit_reverse_for(
                spec, em, scope, n, [], [], self._stored_prologue(spec, scope, site, stored)
            )
        fits = em.call("le", trip if trip is not None else n64, leaf)
        out_types = [spec.carried[j].type for j in spec.dcar] + [v.type for v in spec.tracked]

        fast, slow = ir.Region(), ir.Region()
        fe = Emitter(fast, spec.op.loc)
        n_fast = fe.cast(trip, spec.count.type) if trip is not None else spec.count
        fe.op(
            "yield",
            self.emit_reverse_for(
                spec, fe, scope, n_fast, [], [], self._stored_prologue(spec, scope, site, stored)
            ),
        )
        se = Emitter(slow, spec.op.loc)
        self._init_checkpoints(spec, se, scope, site, stored)
        se.op(
            "yield",
            self.emit_reverse_for(
                spec,
                se,
                scope,
                spec.count,
                [int64],
                [n64],
                self._checkpoint_prologue(spec, scope, site, stored, leaf),
            ),
        )
        branch = em.op("if", [fits], out_types, regions=[fast, slow])
        return list(branch.results)

    def _trip_count(self, spec: LoopReverse, em: Emitter, scope: Scope) -> ir.Value | None:
        """The trip count (int64) of a ``for`` loop that cannot end early (no ``break`` of its own,
        no ``return``), from its bounds; None for other loops."""
        if not spec.is_for:
            return None
        if any(t.kind in ("break", "return") for t in loop_exits(spec.body)):
            return None
        if any(inner.kind == "return" for inner in ir.walk(spec.body)):
            return None
        start, stop, step = (em.cast(scope.get(a), int64) for a in spec.op.args[:3])
        return trip_count(em, start, stop, step)

    def _tape(self, em: Emitter, overload: Any, args: list, result: Any, site: mem.TapeSite) -> Any:
        types = result if isinstance(result, list) else ([result] if result is not None else [])
        op = em.op("call", args, types, overload=overload, site=site)
        if isinstance(result, list):
            return list(op.results)
        return op.results[0] if op.results else None

    def _bind_state(self, spec: LoopReverse, scope: Scope, stored: list[int], values: list) -> list:
        state = [scope.get(a) for a in spec.inits]
        for j, v in zip(stored, values):
            state[j] = v
        return state

    def _record_in_replay(
        self, spec: LoopReverse, scope: Scope, site: mem.TapeSite, stored: list[int]
    ) -> None:
        """Store the carried values at the start of every iteration of the replayed loop:
        iteration c goes to slot STACK_DEPTH + c while c < leaf (later ones to the spare slot)."""
        region, params, counter = scope.env[("clone", id(spec.op))]
        ops = ir.Region()
        e = Emitter(ops, spec.op.loc)
        leaf = self._tape(e, mem.LEAF, [], int64, site)
        c = e.cast(counter, int64)
        depth = e.const(mem.STACK_DEPTH, int64)
        slot = e.select(e.call("lt", c, leaf), e.call("add", depth, c), e.call("add", depth, leaf))
        offset = 1 if spec.is_for else 0
        self._tape(e, mem.STORE_STATE, [slot, *[params[offset + j] for j in stored]], None, site)
        region.ops[0:0] = ops.ops

    def _stored_prologue(
        self, spec: LoopReverse, scope: Scope, site: mem.TapeSite, stored: list[int]
    ) -> Prologue:
        types = [spec.carried[j].type for j in stored]

        def prologue(sub: Emitter, child: Scope, k: ir.Value, extra: list) -> tuple[list, list]:
            slot = sub.call("add", sub.const(mem.STACK_DEPTH, int64), sub.cast(k, int64))
            values = self._tape(sub, mem.LOAD_STATE, [slot], types, site)
            return self._bind_state(spec, scope, stored, values), []

        return prologue

    # -- checkpoints ------------------------------------------------------------------------
    def _init_checkpoints(
        self, spec: LoopReverse, em: Emitter, scope: Scope, site: mem.TapeSite, stored: list[int]
    ) -> None:
        """Checkpoint stack = [(0, initial carried values)]."""
        zero, one = em.const(0, int64), em.const(1, int64)
        self._tape(em, mem.STORE_POSITION, [em.const(mem.STACK_DEPTH, int64), one], None, site)
        self._tape(em, mem.STORE_POSITION, [zero, zero], None, site)
        self._tape(em, mem.STORE_STATE, [zero, *[scope.get(spec.inits[j]) for j in stored]], None, site)

    def _checkpoint_prologue(
        self, spec: LoopReverse, scope: Scope, site: mem.TapeSite, stored: list[int], leaf: ir.Value
    ) -> Prologue:
        types = [spec.carried[j].type for j in stored]

        def prologue(sub: Emitter, child: Scope, k: ir.Value, extra: list) -> tuple[list, list]:
            (lo,) = extra
            k64 = sub.cast(k, int64)
            refill, keep = ir.Region(), ir.Region()
            re = Emitter(refill, spec.op.loc)
            re.op("yield", [self._refill(spec, re, scope, site, stored, leaf, k64)])
            Emitter(keep, spec.op.loc).op("yield", [lo])
            new_lo = sub.op("if", [sub.call("lt", k64, lo)], [int64], regions=[refill, keep]).results[0]
            slot = sub.call("add", sub.const(mem.STACK_DEPTH, int64), sub.call("sub", k64, new_lo))
            values = self._tape(sub, mem.LOAD_STATE, [slot], types, site)
            return self._bind_state(spec, scope, stored, values), [new_lo]

        return prologue

    def _refill(
        self,
        spec: LoopReverse,
        em: Emitter,
        scope: Scope,
        site: mem.TapeSite,
        stored: list[int],
        leaf: ir.Value,
        k: ir.Value,
    ) -> ir.Value:
        """Store the states of iterations [max(0, k+1-leaf), k] in the leaf buffer; returns the
        first of them. Starts from the nearest checkpoint at or below it, pushing checkpoints at
        distances leaf * 2^j below it on the way."""
        depth_slot = em.const(mem.STACK_DEPTH, int64)
        hi = em.call("add", k, em.const(1, int64))
        lo = em.call("max", em.call("sub", hi, leaf), em.const(0, int64))
        # pop checkpoints above lo (the stack always keeps position 0)
        d0 = self._tape(em, mem.LOAD_POSITION, [depth_slot], int64, site)
        dp = ir.Value(int64, "d")
        cond = ir.Region(params=[dp])
        ce = Emitter(cond, spec.op.loc)
        top = self._tape(ce, mem.LOAD_POSITION, [ce.call("sub", dp, ce.const(1, int64))], int64, site)
        flag = ce.call("logical_and", ce.call("gt", dp, ce.const(1, int64)), ce.call("gt", top, lo))
        ce.op("condition", [flag, dp])
        db = ir.Value(int64, "d")
        pop = ir.Region(params=[db])
        pe = Emitter(pop, spec.op.loc)
        pe.op("yield", [pe.call("sub", db, pe.const(1, int64))])
        d = em.op("while", [d0], [int64], regions=[cond, pop]).results[0]
        self._tape(em, mem.STORE_POSITION, [depth_slot, d], None, site)
        below = em.call("sub", d, em.const(1, int64))
        p = self._tape(em, mem.LOAD_POSITION, [below], int64, site)
        x = self._tape(em, mem.LOAD_STATE, [below], [spec.carried[j].type for j in stored], site)

        def on_iteration(e: Emitter, counter: ir.Value, params: list[ir.Value]) -> None:
            c = e.call("add", p, e.cast(counter, int64))
            values = [params[(1 if spec.is_for else 0) + j] for j in stored]
            then, other = ir.Region(), ir.Region()
            te = Emitter(then, spec.op.loc)
            slot = te.call("add", te.const(mem.STACK_DEPTH, int64), te.call("sub", c, lo))
            self._tape(te, mem.STORE_STATE, [slot, *values], None, site)
            te.op("yield", [])
            self._maybe_push(spec, Emitter(other, spec.op.loc), site, values, c, p, lo, leaf)
            e.op("if", [e.call("ge", c, lo)], [], regions=[then, other])

        state = self._bind_state(spec, scope, stored, x)
        self.advance(spec, em, scope, p, hi, state, on_iteration)
        return lo

    def _maybe_push(
        self,
        spec: LoopReverse,
        e: Emitter,
        site: mem.TapeSite,
        values: list[ir.Value],
        c: ir.Value,
        p: ir.Value,
        lo: ir.Value,
        leaf: ir.Value,
    ) -> None:
        """Push (c, values) if c > p and lo - c = leaf * 2^j (and the stack has room)."""
        dist = e.call("sub", lo, c)
        q = e.call("div", dist, leaf)
        aligned = e.call("eq", e.call("sub", dist, e.call("mul", q, leaf)), e.const(0, int64))
        pow2 = e.call("eq", e.call("bit_and", q, e.call("sub", q, e.const(1, int64))), e.const(0, int64))
        ok = e.call("logical_and", e.call("logical_and", e.call("gt", c, p), aligned), pow2)
        push, skip = ir.Region(), ir.Region()
        pe = Emitter(push, spec.op.loc)
        depth_slot = pe.const(mem.STACK_DEPTH, int64)
        d = self._tape(pe, mem.LOAD_POSITION, [depth_slot], int64, site)
        room, full = ir.Region(), ir.Region()
        re = Emitter(room, spec.op.loc)
        self._tape(re, mem.STORE_POSITION, [d, c], None, site)
        self._tape(re, mem.STORE_STATE, [d, *values], None, site)
        self._tape(re, mem.STORE_POSITION, [depth_slot, re.call("add", d, re.const(1, int64))], None, site)
        re.op("yield", [])
        Emitter(full, spec.op.loc).op("yield", [])
        pe.op("if", [pe.call("lt", d, depth_slot)], [], regions=[room, full])
        pe.op("yield", [])
        Emitter(skip, spec.op.loc).op("yield", [])
        e.op("if", [ok], [], regions=[push, skip])
        e.op("yield", [])

    def advance(
        self,
        spec: LoopReverse,
        em: Emitter,
        scope: Scope,
        a: ir.Value,
        b: ir.Value,
        state: list,
        on_iteration: Callable[..., None],
    ) -> None:
        """Replay iterations a .. b-1 from ``state`` (the carried values at iteration a)."""
        child = scope.child()
        if spec.is_for:
            op = spec.op
            start, step = scope.get(op.args[0]), scope.get(op.args[2])
            itype = start.type
            first = em.call("add", start, em.call("mul", em.cast(a, itype), step))
            last = em.call("add", start, em.call("mul", em.cast(b, itype), step))
            self.clone_for(
                op,
                em,
                child,
                Replay("neutral"),
                stop=last,
                start=first,
                inits=state,
                on_iteration=on_iteration,
            )
        else:
            limit = em.cast(em.call("sub", b, a), spec.count.type)
            self.clone_while(
                spec.op, em, child, Replay("neutral"), limit=limit, inits=state, on_iteration=on_iteration
            )

    # -- diagnostics ------------------------------------------------------------------------
    def where(self, op: ir.Op) -> str:
        loc = op.loc
        return f"{loc.file}:{loc.line}" if loc is not None else self.fn.name

    def report_loop_strategy(self, op: ir.Op, strategy: str, carried: list[ir.Value]) -> None:
        """Say how a loop's adjoint obtains the carried values it needs, and what that costs."""
        if strategy == "plain":
            return
        stored = [carried[j] for j in self.stored_indices(carried)]
        names = ", ".join(f"'{p.name or '?'}'" for p in stored or carried)
        if strategy == "recompute":
            self.warn(
                op,
                f"dynamic loop carries variable(s) {names} whose value in every iteration its adjoint "
                "needs and which cannot be stored (arrays): the adjoint recomputes the loop up to each "
                "iteration (exact, but quadratic in the number of iterations)",
            )
            return
        size = sum(type_size_in_bytes(p.type) for p in stored)
        self.warn(
            op,
            f"dynamic loop carries variable(s) {names} whose value in every iteration its adjoint "
            f"needs: the adjoint stores them ({size} bytes per iteration and thread, in scratch memory "
            "of at most wp.config.adjoint_loop_memory bytes per launch) and reads them back (linear "
            "time); iterations beyond that budget are recomputed from checkpoints (O(n log n) time)",
        )


__all__ = ["LoopReverse", "LoopsMixin"]
