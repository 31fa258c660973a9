"""Which composite locals live in one stack slot, updated in place (``stack[sp] = node``).

In the IR a composite variable is a chain of SSA values: ``v[i] = x`` makes a new value
(``assign_copy``) and loops and branches merge versions through carried values. Lowered as SSA
aggregates, a component written at a *runtime* index copies the whole value through a fresh
stack slot, and a traversal stack of 64 ints costs 64 loads and stores per push.

This module finds *webs*: the values of one variable joined by ``assign_copy`` (input and
result), loop-carried values (initial value, block parameter, yielded value, result) and ``if``
results (both yields). A web that is indexed at a runtime index somewhere is kept in a single
stack slot when that is safe, which is when at every use of a member the slot still holds that
member: no older version is read after a newer one was written (the usual case, where the old
version of a variable is dead once it is reassigned). Then

- ``v[i]`` (``extract``) loads one component through a ``getelementptr``;
- ``v[i] = x`` (``assign_copy``) stores one component;
- merges (loop-carried values, ``if`` results) cost nothing: every version is already in the slot;
- a member defined by any other op (a constructor, a call, a parameter) is stored into the slot,
  and any other use of a member loads the whole value.

Webs that fail the check keep the SSA lowering (correct, just slower). Static indices alone do
not trigger this: SROA already turns those slots into registers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from warp.compiler import ir as wir

#: builtins whose first argument is the composite they read (extract) or copy-update (assign_copy)
COMPONENT_OPS = ("extract", "assign_copy")


def is_component_op(op: wir.Op) -> bool:
    """``extract``/``assign_copy`` of a vector, quaternion, transform or matrix value."""
    return (
        op.kind == "call"
        and op.attrs["overload"].name in COMPONENT_OPS
        and bool(op.args)
        and _is_composite(op.args[0].type)
    )


def _is_composite(t: Any) -> bool:
    return getattr(t, "_wp_kind_", "") in ("vector", "matrix", "quaternion", "transform")


def _dynamic(op: wir.Op) -> bool:
    """Whether a component op indexes at a runtime index."""
    count = len(op.args) - (2 if op.attrs["overload"].name == "assign_copy" else 1)
    return any(not a.is_const for a in op.args[1 : 1 + count])


def indexes_dynamically(fn: wir.Function) -> bool:
    """Whether ``fn`` or a function it calls reads or writes a component at a runtime index."""
    seen: set[int] = set()
    stack = [fn]
    while stack:
        f = stack.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        for op in wir.walk(f.body):
            if is_component_op(op) and _dynamic(op):
                return True
            if op.kind == "call_func":
                stack.append(op.attrs["func"])
    return False


@dataclass
class MemoryPlan:
    """Result of :func:`plan_local_memory`: the webs kept in stack slots."""

    #: value id -> web number, for members of accepted webs only
    web_of: dict[int, int] = field(default_factory=dict)
    #: web number -> warp type of its values
    types: dict[int, Any] = field(default_factory=dict)

    def web(self, value: wir.Value) -> int | None:
        return self.web_of.get(value.id)

    def in_place(self, op: wir.Op) -> bool:
        """Whether ``op`` is a component op on a member of an accepted web."""
        return is_component_op(op) and op.args[0].id in self.web_of


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, x: int) -> int:
        root = x
        while self.parent.setdefault(root, root) != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


class _Webs:
    """Union of the composite values of one function into webs (see the module docstring)."""

    def __init__(self, fn: wir.Function):
        self.uf = _UnionFind()
        self.types: dict[int, Any] = {}
        self.triggered: set[int] = set()
        self._collect(fn.body, [])

    def _join(self, values: Sequence[wir.Value | None]) -> None:
        present = [v for v in values if v is not None and _is_composite(v.type)]
        for v in present:
            self.types[v.id] = v.type
        for v in present[1:]:
            if v.type is present[0].type:
                self.uf.union(present[0].id, v.id)

    def _collect(self, region: wir.Region, loops: list[wir.Op]) -> None:
        for op in region.ops:
            for r in op.results:
                if _is_composite(r.type):
                    self.types[r.id] = r.type
            if is_component_op(op):
                if op.attrs["overload"].name == "assign_copy":
                    self._join([op.args[0], op.result])
                if _dynamic(op):
                    self.triggered.add(op.args[0].id)
            elif op.kind == "if":
                for k, r in enumerate(op.results):
                    self._join([r] + [_yielded(sub, k) for sub in op.regions])
                for sub in op.regions:
                    self._collect(sub, loops)
            elif op.kind in ("for", "while"):
                for k in range(len(op.results)):
                    self._join(_carried(op, k))
                for sub in op.regions:
                    self._collect(sub, loops + [op])
            elif op.kind in ("break", "continue") and loops:
                loop = loops[-1]
                for k, a in enumerate(op.args):
                    self._join([a, loop.results[k]])

    def groups(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for vid in self.types:
            out.setdefault(self.uf.find(vid), []).append(vid)
        return out


def _yielded(region: wir.Region, k: int) -> wir.Value | None:
    term = region.terminator
    if term is not None and term.kind == "yield" and k < len(term.args):
        return term.args[k]
    return None


def _carried(op: wir.Op, k: int) -> list[wir.Value | None]:
    """Every value standing for carried position ``k`` of a loop (breaks/continues excluded)."""
    if op.kind == "for":
        body = op.regions[0]
        return [op.args[3 + k], body.params[1 + k], _yielded(body, k), op.results[k]]
    cond, body = op.regions
    term = cond.terminator
    flag_args = term.args[1 + k] if term is not None and term.kind == "condition" else None
    return [op.args[k], cond.params[k], flag_args, body.params[k], _yielded(body, k), op.results[k]]


_CLOBBERED = -1


class _Currency:
    """Checks that at each use of a web member the web's slot holds that member.

    The state maps a web to the id of the member its slot holds (absent: none yet or unknown).
    Webs that fail are added to ``rejected``.
    """

    def __init__(self, web_of: dict[int, int]):
        self.web_of = web_of
        self.rejected: set[int] = set()

    def use(self, state: dict[int, int], v: wir.Value) -> None:
        w = self.web_of.get(v.id)
        if w is not None and state.get(w) != v.id:
            self.rejected.add(w)

    def define(self, state: dict[int, int], v: wir.Value) -> None:
        w = self.web_of.get(v.id)
        if w is not None:
            state[w] = v.id

    def merge_positions(self, values: list[wir.Value]) -> None:
        """A merge op may carry each web in one position only (one slot holds one value)."""
        seen: set[int] = set()
        for v in values:
            w = self.web_of.get(v.id)
            if w is not None:
                if w in seen:
                    self.rejected.add(w)
                seen.add(w)

    @staticmethod
    def join(before: dict[int, int], exits: list[dict[int, int]], state: dict[int, int]) -> None:
        """After a branch or loop: webs whose slot changed on some path hold an unknown value."""
        for s in exits:
            for w in set(s) | set(before):
                if s.get(w) != before.get(w):
                    state[w] = _CLOBBERED

    def region(self, region: wir.Region, state: dict[int, int], exits: dict[str, list]) -> None:
        """Simulate ``region`` from ``state``; the state at each way out is appended to
        ``exits[kind]`` (``yield`` also for a region that simply ends)."""
        for op in region.ops:
            kind = op.kind
            if kind in ("yield", "condition", "break", "continue", "return"):
                for a in op.args:
                    self.use(state, a)
                exits.setdefault(kind, []).append(dict(state))
                return
            if kind == "if":
                self.use(state, op.args[0])
                self.merge_positions(op.results)
                ends: list[dict[int, int]] = []
                for sub in op.regions:
                    inner: dict[str, list] = {}
                    self.region(sub, dict(state), inner)
                    ends += inner.get("yield", [])
                    for jump in ("break", "continue", "return"):
                        exits.setdefault(jump, []).extend(inner.get(jump, []))
                self.join(dict(state), ends, state)
                for r in op.results:
                    self.define(state, r)
            elif kind in ("for", "while"):
                self.loop(op, state)
            else:
                for a in op.args:
                    self.use(state, a)
                for r in op.results:
                    self.define(state, r)
        exits.setdefault("yield", []).append(dict(state))

    def loop(self, op: wir.Op, state: dict[int, int]) -> None:
        for a in op.args:
            self.use(state, a)
        self.merge_positions(op.results)
        before = dict(state)
        entry = dict(state)
        ways: list[dict[int, int]] = []
        for _ in range(2):  # the second pass starts from the state the back edges bring
            self.join(before, ways, entry)
            ways = self.iteration(op, dict(entry))
        self.join(before, ways, state)
        for r in op.results:
            self.define(state, r)

    def iteration(self, op: wir.Op, state: dict[int, int]) -> list[dict[int, int]]:
        """One iteration of a loop from ``state``: the states at its back edges and exits."""
        ways: list[dict[int, int]] = []
        if op.kind == "for":
            body = op.regions[0]
            for p in body.params[1:]:
                self.define(state, p)
        else:
            cond, body = op.regions
            for p in cond.params:
                self.define(state, p)
            cond_exits: dict[str, list] = {}
            self.region(cond, state, cond_exits)
            ways += cond_exits.get("condition", [])
            state = dict(ways[-1]) if ways else state
            for p in body.params:
                self.define(state, p)
        inner: dict[str, list] = {}
        self.region(body, state, inner)
        for kind in ("yield", "continue", "break"):
            ways += inner.get(kind, [])
        return ways


def plan_local_memory(fn: wir.Function) -> MemoryPlan:
    """The webs of ``fn`` to keep in stack slots (see the module docstring)."""
    webs = _Webs(fn)
    if not webs.triggered:
        return MemoryPlan()
    groups = webs.groups()
    chosen = {root: members for root, members in groups.items() if any(m in webs.triggered for m in members)}
    web_of = {m: root for root, members in chosen.items() for m in members}
    check = _Currency(web_of)
    state: dict[int, int] = {}
    for p in fn.params:
        check.define(state, p)
    check.region(fn.body, state, {})
    plan = MemoryPlan()
    for root, members in chosen.items():
        if root in check.rejected:
            continue
        for m in members:
            plan.web_of[m] = root
        plan.types[root] = webs.types[members[0]]
    return plan
