"""A SIMD-friendly variant of a kernel adjoint whose stored loops all fit in memory.

The general adjoint of a loop that stores its iterations chooses per thread between reading them
back and recomputing from checkpoints (:mod:`warp_autodiff.transform.loops`); the checkpointed
path has loops and branches that differ between threads, which LLVM's outer-loop vectorizer
refuses, so the whole adjoint runs one thread at a time. When every such loop

- is a ``for`` loop at the top level of the kernel body that no ``break``/``return`` can end early,
- has bounds computed from kernel parameters and constants only (the same for every thread),

whether all of them fit in the per-thread memory is one decision per launch. The adjoint then
comes with a *guard* (kernel parameters -> bool: every loop's trip count fits) and a *fast*
variant reading the stored iterations back unconditionally; the CPU entry runs the fast variant,
vectorizable like the forward kernel, when the guard holds and the general adjoint otherwise
(``variants`` attribute of the adjoint function, see :mod:`warp.compiler.lowering.kernel`).
"""

from __future__ import annotations

from typing import Any

from warp.extending import bool as wp_bool, int64, ir, verify_function

from warp_autodiff import loop_memory as mem
from warp_autodiff.transform.emit import Emitter
from warp_autodiff.transform.needs import loop_exits

#: builtins that read thread-dependent state or memory: their results are not launch-uniform
_VARYING = frozenset(
    {"tid", "array_load", "array_view", "array_slice", "array_select", "view", "address", "atomic_add"}
)


def _uniform_slice(fn: ir.Function, values: list[ir.Value]) -> list[ir.Op] | None:
    """The top-level ops of ``fn`` computing ``values`` from parameters and constants (in order),
    or None when some value depends on anything else (thread index, memory, regions, calls)."""
    defs = {id(r): op for op in fn.body.ops for r in op.results}
    params = {id(p) for p in fn.params}
    needed: dict[int, ir.Op] = {}
    stack = list(values)
    while stack:
        v = stack.pop()
        if id(v) in params:
            continue
        op = defs.get(id(v))
        if op is None or op.regions:
            return None
        if op.kind == "call":
            overload = op.attrs["overload"]
            if overload.side_effects or overload.name in _VARYING:
                return None
        elif op.kind != "const":
            return None
        if id(op) not in needed:
            needed[id(op)] = op
            stack.extend(op.args)
    return [op for op in fn.body.ops if id(op) in needed]


def eligible_loops(fn: ir.Function, layout: mem.TapeLayout) -> list[ir.Op] | None:
    """The loop ops of every stored-iteration site if all qualify for the fast variant, else None."""
    if not layout.sites:
        return None
    top = {id(op) for op in fn.body.ops}
    loops = []
    for site in layout.sites:
        op = site.op
        if op is None or id(op) not in top or op.kind != "for":
            return None
        body = op.regions[0]
        if any(t.kind in ("break", "return") for t in loop_exits(body)):
            return None
        if any(inner.kind == "return" for inner in ir.walk(body)):
            return None
        if _uniform_slice(fn, list(op.args[:3])) is None:
            return None
        loops.append(op)
    return loops


def build_guard(fn: ir.Function, layout: mem.TapeLayout, loops: list[ir.Op]) -> ir.Function:
    """``guard(*params) -> bool``: every stored loop's trip count fits its leaf buffer."""
    params = [ir.Value(p.type, p.name) for p in fn.params]
    env = {id(p): q for p, q in zip(fn.params, params)}
    body = ir.Region()
    em = Emitter(body, fn.loc)
    bounds = [a for op in loops for a in op.args[:3]]
    for op in _uniform_slice(fn, bounds) or []:
        new = em.op(op.kind, [env[id(a)] for a in op.args], [r.type for r in op.results], **op.attrs)
        for r, n in zip(op.results, new.results):
            n.const, n.weak = r.const, r.weak
            env[id(r)] = n
    ok = em.const(True, wp_bool)
    for op, site in zip(loops, layout.sites):
        start, stop, step = (em.cast(env[id(a)], int64) for a in op.args[:3])
        trip = trip_count(em, start, stop, step)
        leaf = em.op("call", [], [int64], overload=mem.LEAF, site=site).results[0]
        ok = em.call("logical_and", ok, em.call("le", trip, leaf))
    em.op("return", [ok])
    guard = ir.Function(
        name=fn.name,
        params=params,
        param_names=list(fn.param_names),
        body=body,
        return_types=[wp_bool],
        is_kernel=False,
        loc=fn.loc,
        symbol=fn.symbol + "_adj_guard",
    )
    verify_function(guard)
    return guard


def trip_count(em: Emitter, start: Any, stop: Any, step: Any) -> Any:
    """``max(0, ceil((stop - start) / step))`` of int64 bounds (step != 0)."""
    one, zero = em.const(1, int64), em.const(0, int64)
    up = em.call("div", em.call("sub", em.call("add", em.call("sub", stop, start), step), one), step)
    neg = em.call("neg", step)
    down = em.call("div", em.call("sub", em.call("add", em.call("sub", start, stop), neg), one), neg)
    return em.call("max", em.select(em.call("gt", step, zero), up, down), zero)


__all__ = ["build_guard", "eligible_loops", "trip_count"]
