"""Per-thread memory where adjoint kernels keep the iterations of dynamic loops.

An adjoint launch whose kernel needs it gets one scratch buffer (allocated by the launcher, see
:attr:`warp.compiler.ir.Function.scratch` of the adjoint), its address in the launch header
(``warp.compiler.abi``, ``HEADER_SCRATCH_OFFSET``)::

    offset  0: int64 data_bytes        usable bytes after this 64-byte header
    offset 64: data                    one equal block per loop site

Each *site* (a dynamic loop whose reverse needs its carried values) owns ``per_thread`` bytes
for each of the launch's ``T`` threads, laid out slot-major so that neighbouring threads (SIMD
lanes) touch neighbouring addresses::

    int64 pos[STACK_DEPTH + 1][T]        checkpoint positions; pos[STACK_DEPTH] = stack depth
    state slot[leaf + STACK_DEPTH + 1][T] carried values at the start of an iteration:
        slots [0, STACK_DEPTH)                 checkpoint stack
        slots [STACK_DEPTH, STACK_DEPTH+leaf)  the stored iterations (leaf buffer)
        slot  STACK_DEPTH + leaf               scratch slot for iterations not stored

``leaf`` follows from the buffer size at run time: the larger the budget
(``wp.config.adjoint_loop_memory``), the more iterations are stored and the fewer recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import llvmlite.ir as ir

from warp.extending import (
    LowerContext,
    HEADER_DIMS_OFFSET,
    HEADER_SCRATCH_OFFSET,
    lowering_types as lt,
    Overload,
    type_size_in_bytes,
)

#: checkpoints kept per loop site (binary checkpointing needs log2(trip count / leaf) of them)
STACK_DEPTH = 32
#: bytes before the data in the scratch buffer
SCRATCH_HEADER = 64


@dataclass(eq=False)
class TapeSite:
    """One loop whose carried values are stored: the types and offsets of one state slot."""

    layout: TapeLayout
    index: int
    types: list[Any]
    offsets: list[int]
    size: int
    where: str = ""
    #: the loop op (its reverse may be emitted more than once: they share the site)
    op: Any = None


@dataclass(eq=False)
class TapeLayout:
    """The loop sites of one kernel adjoint (functions it calls included)."""

    sites: list[TapeSite] = field(default_factory=list)
    _by_key: dict[int, TapeSite] = field(default_factory=dict)

    def add_site(self, types: list[Any], where: str = "", key: Any = None) -> TapeSite:
        """A new site, or the one already made for ``key`` (the loop op: its reverse may be
        emitted more than once, in branches that never run together)."""
        if key is not None and id(key) in self._by_key:
            return self._by_key[id(key)]
        offsets, size, widest = [], 0, 1
        for t in types:
            align = max(1, min(8, lt.alignment(t)))
            widest = max(widest, align)
            size = (size + align - 1) // align * align
            offsets.append(size)
            size += type_size_in_bytes(t)
        size = max(widest, (size + widest - 1) // widest * widest)
        site = TapeSite(self, len(self.sites), list(types), offsets, size, where, key)
        self.sites.append(site)
        if key is not None:
            self._by_key[id(key)] = site
        return site

    def min_bytes_per_thread(self) -> int:
        """Bytes per thread that give every site a leaf of at least one iteration."""
        widest = max(s.size for s in self.sites)
        per_site = 8 * (STACK_DEPTH + 1) + (STACK_DEPTH + 2) * widest
        return len(self.sites) * per_site

    def describe(self) -> dict[str, Any]:
        """The scratch requirement handed to the launcher (JSON-serializable)."""
        return {"sites": len(self.sites), "min_bytes_per_thread": self.min_bytes_per_thread()}


# -- lowering ----------------------------------------------------------------------------------


def _i64(v: int) -> ir.Constant:
    return ir.Constant(lt.I64, v)


def _invariant_load(ctx: LowerContext, base: ir.Value, offset: int, ty: ir.Type) -> ir.Value:
    """A load from memory that stays constant during the launch (the header, the scratch size):
    marked ``invariant.load`` so that LLVM hoists it out of loops storing into the scratch
    memory (the stores could alias it as far as LLVM knows), keeping per-site values uniform
    across threads for the outer-loop vectorizer."""
    b = ctx.builder
    ptr = b.gep(base, [_i64(offset)], source_etype=lt.I8) if offset else base
    value = b.load(ptr, typ=ty, align=8)
    value.set_metadata("invariant.load", ctx.module.add_metadata([]))
    return value


class _Geometry:
    """Addresses of one site for the current thread (recomputed per op; LLVM hoists it)."""

    def __init__(self, ctx: LowerContext, site: TapeSite):
        b = self.b = ctx.builder
        self.site = site
        scratch = _invariant_load(ctx, ctx.header, HEADER_SCRATCH_OFFSET, lt.PTR)
        total = _invariant_load(ctx, scratch, 0, lt.I64)
        threads = _invariant_load(ctx, ctx.header, HEADER_DIMS_OFFSET, lt.I64)
        for k in range(1, 4):
            threads = b.mul(threads, _invariant_load(ctx, ctx.header, HEADER_DIMS_OFFSET + 8 * k, lt.I64))
        self.threads = threads
        self.tid = ctx.linear_index
        sites = _i64(len(site.layout.sites))
        per = b.udiv(total, b.mul(sites, threads))
        self.per_thread = b.and_(per, _i64(-8))
        block = b.mul(self.per_thread, threads)
        offset = b.add(_i64(SCRATCH_HEADER), b.mul(_i64(site.index), block))
        self.base = b.gep(scratch, [offset], source_etype=lt.I8)
        self.states = b.gep(self.base, [b.mul(_i64(8 * (STACK_DEPTH + 1)), threads)], source_etype=lt.I8)

    def leaf(self) -> ir.Value:
        b = self.b
        room = b.sub(self.per_thread, _i64(8 * (STACK_DEPTH + 1)))
        return b.sub(b.sdiv(room, _i64(self.site.size)), _i64(STACK_DEPTH + 1))

    def position(self, index: ir.Value) -> ir.Value:
        b = self.b
        element = b.add(b.mul(index, self.threads), self.tid)
        return b.gep(self.base, [b.mul(element, _i64(8))], source_etype=lt.I8)

    def state(self, slot: ir.Value, k: int) -> ir.Value:
        b = self.b
        element = b.add(b.mul(slot, self.threads), self.tid)
        byte = b.add(b.mul(element, _i64(self.site.size)), _i64(self.site.offsets[k]))
        return b.gep(self.states, [byte], source_etype=lt.I8)


def _site(ctx: LowerContext) -> TapeSite:
    return ctx.op.attrs["site"]


def _lower_leaf(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    return _Geometry(ctx, _site(ctx)).leaf()


def _lower_store_state(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> None:
    site = _site(ctx)
    g = _Geometry(ctx, site)
    for k, (value, t) in enumerate(zip(args[1:], types[1:])):
        ctx.builder.store(
            lt.to_storage(ctx.builder, t, value), g.state(args[0], k), align=min(8, lt.alignment(t))
        )


def _lower_load_state(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    site = _site(ctx)
    g = _Geometry(ctx, site)
    values = []
    for k, t in enumerate(site.types):
        raw = ctx.builder.load(g.state(args[0], k), typ=lt.storage_type(t), align=min(8, lt.alignment(t)))
        values.append(lt.from_storage(ctx.builder, t, raw))
    if len(values) == 1:
        return values[0]
    return values


def _lower_store_position(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> None:
    g = _Geometry(ctx, _site(ctx))
    ctx.builder.store(args[1], g.position(args[0]), align=8)


def _lower_load_position(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    g = _Geometry(ctx, _site(ctx))
    return ctx.builder.load(g.position(args[0]), typ=lt.I64, align=8)


def _op(name: str, lower: Any, *, side_effects: bool = False, doc: str = "") -> Overload:
    return Overload(
        name,
        (),
        None,
        lower=lower,
        doc=doc,
        group="Autodiff",
        package="warp-autodiff",
        side_effects=side_effects,
        differentiable=False,
    )


LEAF = _op("adj_tape_leaf", _lower_leaf, doc="Iterations a loop site can store per thread (int64).")
STORE_STATE = _op(
    "adj_tape_store_state",
    _lower_store_state,
    side_effects=True,
    doc="Store a loop's carried values into state slot (int64) of the current thread.",
)
LOAD_STATE = _op(
    "adj_tape_load_state", _lower_load_state, doc="Load a loop's carried values from a state slot."
)
STORE_POSITION = _op(
    "adj_tape_store_position",
    _lower_store_position,
    side_effects=True,
    doc="Store an int64 into position slot (int64) of the current thread.",
)
LOAD_POSITION = _op("adj_tape_load_position", _lower_load_position, doc="Load an int64 position slot.")


__all__ = [
    "LEAF",
    "LOAD_POSITION",
    "LOAD_STATE",
    "SCRATCH_HEADER",
    "STACK_DEPTH",
    "STORE_POSITION",
    "STORE_STATE",
    "TapeLayout",
    "TapeSite",
]
