"""Facts about forward IR that the reverse-mode transform needs.

- which values a region uses from outside (its *free values*: the adjoints it may update);
- whether a region always completes through its ``yield`` (else it left by break/continue/return);
- whether reversing a region op can have effects when its results carry no adjoint (array
  writes, calls of functions taking arrays);
- which adjoint arrays only the current thread writes (indexed exactly by ``wp.tid()``).
"""

from __future__ import annotations

from typing import Any, Iterable

from warp.extending import ir

from warp_autodiff.rules import lookup_rule
from warp_autodiff.adjoint_types import carries_arrays, is_differentiable


def defined_in(region: ir.Region) -> set[int]:
    """Ids of every value defined inside ``region`` (params and op results, nested)."""
    out = {id(p) for p in region.params}
    for op in region.ops:
        out.update(id(r) for r in op.results)
        for sub in op.regions:
            out |= defined_in(sub)
    return out


def free_values(regions: Iterable[ir.Region]) -> list[ir.Value]:
    """Values used inside ``regions`` but defined outside them, in first-use order."""
    regions = list(regions)
    inside: set[int] = set()
    for r in regions:
        inside |= defined_in(r)
    seen: dict[int, ir.Value] = {}
    for r in regions:
        for op in ir.walk(r):
            for a in op.args:
                if id(a) not in inside and id(a) not in seen:
                    seen[id(a)] = a
    return list(seen.values())


def completes_normally(region: ir.Region) -> bool:
    """True if the region ends with a ``yield`` (some path reaches its end)."""
    return bool(region.ops) and region.ops[-1].kind == "yield"


def used_values(fn: ir.Function) -> set[int]:
    """Ids of all values some op of ``fn`` reads."""
    return {id(a) for op in ir.walk(fn.body) for a in op.args}


def has_effects(op: ir.Op) -> bool:
    """Whether the reverse of a region op may act even when no result carries an adjoint
    (array writes, calls passing arrays, or a ``return`` of the function from inside)."""
    for sub in op.regions:
        for inner in ir.walk(sub):
            if inner.kind == "return":
                return True
            if inner.kind == "call_func" and any(carries_arrays(a.type) for a in inner.args):
                return True
            if inner.kind == "call":
                rule = lookup_rule(inner.attrs["overload"], [a.type for a in inner.args])
                if rule is not None and rule.always:
                    return True
    return False


def has_side_effects(fn: ir.Function, _seen: set[int] | None = None) -> bool:
    """Whether ``fn`` (or a function it calls) writes arrays or prints."""
    seen = _seen if _seen is not None else set()
    if id(fn) in seen:
        return False
    seen.add(id(fn))
    for op in ir.walk(fn.body):
        if op.kind == "print":
            return True
        if op.kind == "call":
            ov = op.attrs["overload"]
            rule = lookup_rule(ov, [a.type for a in op.args])
            if rule is not None and rule.replay == "effect":
                return True
        if op.kind == "call_func" and has_side_effects(op.attrs["func"], seen):
            return True
    return False


def reaches_gradient_arrays(fn: ir.Function, _seen: set[int] | None = None) -> bool:
    """Whether a result of ``fn`` depends, through values that can carry a gradient, on an array
    that a builtin returned along with its gradient array (``wp.mesh_get(id).points``): the
    adjoint of ``fn`` then accumulates into that gradient array even when no parameter of
    ``fn`` carries a gradient. Dependence through conditions or integers (a BVH traversal
    choosing a face) does not count."""
    seen = _seen if _seen is not None else set()
    if id(fn) in seen:
        return False
    seen.add(id(fn))
    derived: set[int] = set()

    def carries(v: ir.Value) -> bool:
        return carries_arrays(v.type) or is_differentiable(v.type)

    def feeds(op: ir.Op) -> bool:
        if op.kind == "call" and op.attrs["overload"].adjoint_source is not None:
            return True
        if op.kind == "call_func" and reaches_gradient_arrays(op.attrs["func"], seen):
            return True
        args = op.args[1:] if op.kind == "if" else op.args  # not through the condition
        if any(id(a) in derived for a in args):
            return True
        return any(
            inner.kind in ir.TERMINATORS and any(id(a) in derived for a in inner.args)
            for region in op.regions
            for inner in ir.walk(region)
        )

    changed = True
    while changed:
        changed = False
        for op in ir.walk(fn.body):
            if op.kind in ir.TERMINATORS or not feeds(op):
                continue
            outs = list(op.results) + [p for region in op.regions for p in region.params]
            for v in outs:
                if carries(v) and id(v) not in derived:
                    derived.add(id(v))
                    changed = True
    return any(
        op.kind == "return" and any(id(a) in derived for a in op.args) for op in ir.walk(fn.body)
    )


def tid_index_sets(fn: ir.Function) -> dict[int, tuple[int, frozenset[int]]]:
    """For every result of a ``tid`` call: (id of the call, ids of all its results)."""
    out: dict[int, tuple[int, frozenset[int]]] = {}
    for op in ir.walk(fn.body):
        if op.kind == "call" and op.attrs["overload"].name == "tid":
            ids = frozenset(id(r) for r in op.results)
            for r in op.results:
                out[id(r)] = (id(op), ids)
    return out


_ELEMENT_ACCESS = {"array_load", "array_store", "atomic_add", "atomic_sub", "atomic_min", "atomic_max",
                   "atomic_exch", "atomic_cas"}


def is_thread_index(indices: list[ir.Value], ndim: int, tids: dict[int, Any]) -> bool:
    """True if ``indices`` contain every result of one ``wp.tid()`` call (at distinct positions).

    Then two threads always address different elements (their tid results differ in some
    position); the other indices may be anything (constants, loop variables, ...).
    """
    if len(indices) != ndim:
        return False
    for value in indices:
        hit = tids.get(id(value))
        if hit is None:
            continue
        _, ids = hit
        positions = {id(v) for v in indices if id(v) in ids}
        count = sum(1 for v in indices if id(v) in ids)
        if positions == set(ids) and count == len(ids):
            return True
    return False


def exclusive_arrays(fn: ir.Function) -> set[int]:
    """Kernel array parameters whose every element access is indexed by the thread index.

    Adjoint accumulations into such arrays touch only the current thread's element, so they
    need no atomics.
    """
    tids = tid_index_sets(fn)
    candidates = {id(p): p for p in fn.params if getattr(p.type, "is_array_type", False)}
    bad: set[int] = set()
    for op in ir.walk(fn.body):
        for k, a in enumerate(op.args):
            if id(a) not in candidates:
                continue
            if op.kind == "call" and op.attrs["overload"].name in _ELEMENT_ACCESS and k == 0:
                ndim = a.type.ndim
                if is_thread_index(list(op.args[1:1 + ndim]), ndim, tids):
                    continue
            if op.kind == "call" and op.attrs["overload"].name in ("array_shape", "len"):
                continue
            bad.add(id(a))
    return set(candidates) - bad


def accessed_arrays(fn: ir.Function) -> set[int]:
    """Array parameters whose elements (or views, or callees) the function may access."""
    params = {id(p) for p in fn.params if getattr(p.type, "is_array_type", False)}
    out: set[int] = set()
    for op in ir.walk(fn.body):
        if op.kind == "call" and op.attrs["overload"].name in ("array_shape", "len"):
            continue
        out.update(id(a) for a in op.args if id(a) in params)
    return out
