"""Helper operations used only inside generated adjoints.

They are :class:`~warp.compiler.registry.Overload` objects carried by ``call`` ops, like core's
composite constructors: not registered by name, so they never appear as ``wp.<name>`` in user
code. Each lowers to a few LLVM instructions:

- ``adj_accumulate(arr, i.., v)``: ``arr[i..] += v`` atomically (per component for composites and
  struct fields), skipped when ``arr`` is a null adjoint array (an adjoint passed as ``None``);
- ``adj_accumulate_exclusive``: the same without atomics, for arrays only the current thread
  writes (indexed by ``wp.tid()``), which lets the loop vectorizer widen adjoint kernels;
- ``adj_load(arr, i..)``: ``arr[i..]``, or zero for a null array;
- ``adj_clear(arr, i..)``: ``arr[i..] = 0`` (a store's adjoint consumes the slot), skipped for null;
- ``*_nonnull`` variants of the three: no null test (the kernel checked once, up front);
- ``adj_accumulate_exclusive_guarded(ok, ...)``: plain when ``ok`` (no aliasing), else atomic;
  ``adj_distinct(a, b)``: whether two arrays have different data pointers;
- ``adj_nonnull(arr)``: whether an adjoint array exists; ``adj_null_array``: a null array;
- ``adj_view(arr, i..)``: a row view that stays null when ``arr`` is null;
- ``adj_add(a, b)``, ``adj_select(c, a, b)``, ``adj_inner(a, b)``: sums of adjoints (scalars,
  composites, structs), branch-free choices, and component-wise dot products;
- ``adj_trunc``: ``llvm.trunc`` (round toward zero) for the rule of ``%``.
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir
from warp.extending import (
    LowerContext,
    ADJOINT_RETAIN_MARK,
    atomic_bfloat16,
    bfloat16,
    element_pointer,
    inner_launch_size,
    is_scalar_type,
    lower_view,
    lowering_types as lt,
    Overload,
    component_paths,
    assemble,
    components,
)
from warp_autodiff.adjoint_types import is_differentiable


def _is_null(ctx: LowerContext, arr: ir.Value) -> ir.Value:
    b = ctx.builder
    data = b.extract_value(arr, 0)
    return b.icmp_unsigned("==", b.ptrtoint(data, lt.I64), ir.Constant(lt.I64, 0))


def _component_paths(t: Any) -> list[list[int]]:
    return component_paths(t)



def _element_parts(
    ctx: LowerContext, ptr: ir.Value, dtype: Any, value: ir.Value
) -> list[tuple[ir.Value, ir.Value, Any]]:
    """(pointer, value, scalar type) of every differentiable scalar of ``value`` stored at ``ptr``.

    Composites give one part per component; structs one per differentiable field (recursively).
    """
    if is_scalar_type(dtype):
        return [(ptr, value, dtype)]
    b = ctx.builder
    storage = lt.storage_type(dtype)
    zero = ir.Constant(lt.I32, 0)
    if getattr(dtype, "_wp_kind_", "") == "struct":
        parts = []
        for k, (_, ft) in enumerate(dtype._fields_):
            if is_differentiable(ft):
                field_ptr = b.gep(ptr, [zero, ir.Constant(lt.I32, k)], source_etype=storage)
                field = lt.from_storage(b, ft, b.extract_value(value, k))
                parts += _element_parts(ctx, field_ptr, ft, field)
        return parts
    scalar = dtype._wp_scalar_type_
    return [
        (b.gep(ptr, [zero] + [ir.Constant(lt.I32, k) for k in path], source_etype=storage),
         b.extract_value(value, path), scalar)
        for path in _component_paths(dtype)
    ]


def _accumulate(atomic: bool, checked: bool):
    """Lowering of ``arr[idx] += value`` (a null array is skipped when ``checked``).

    The null test is a branch on a loop-invariant condition: LLVM unswitches the kernel loop
    on it, so each version stays vectorizable. Adjoint kernels test all their arrays once up
    front and use the unchecked variants when every adjoint exists (see the transform).
    """

    def store(ctx: LowerContext, ptr: ir.Value, dtype: Any, value: ir.Value) -> None:
        b = ctx.builder
        for p, v, scalar in _element_parts(ctx, ptr, dtype, value):
            align = max(1, scalar._bits_ // 8)
            if scalar is bfloat16:  # 16-bit storage, float32 arithmetic rounded back
                if atomic:
                    atomic_bfloat16(ctx, "add", p, v)
                else:
                    old = lt.from_storage(b, scalar, b.load(p, typ=lt.storage_type(scalar), align=align))
                    b.store(lt.to_storage(b, scalar, b.fadd(old, v)), p, align=align)
            elif atomic:
                b.atomic_rmw("fadd", p, v, "monotonic")
            else:
                b.store(b.fadd(b.load(p, typ=v.type, align=align), v), p, align=align)

    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> None:
        b = ctx.builder
        arr, idx, value = args[0], args[1:-1], args[-1]
        atype = types[0]
        if not checked:
            store(ctx, element_pointer(ctx, arr, atype, idx, types[1:-1]), atype.dtype, value)
            return
        with b.if_then(b.not_(_is_null(ctx, arr)), likely=True):
            store(ctx, element_pointer(ctx, arr, atype, idx, types[1:-1]), atype.dtype, value)

    return lower


def _guarded(checked: bool):
    """``adj_accumulate_exclusive`` with a leading bool: plain add when true, atomic otherwise.

    Used when an exclusively indexed adjoint array might alias another adjoint array of the
    same launch (the kernel compares their data pointers once, up front).
    """
    plain, atomic = _accumulate(False, checked), _accumulate(True, checked)

    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> None:
        b = ctx.builder
        with b.if_else(args[0]) as (then, otherwise):
            with then:
                plain(ctx, args[1:], types[1:])
            with otherwise:
                atomic(ctx, args[1:], types[1:])

    return lower


def _lower_distinct(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    b = ctx.builder
    a, c = (b.ptrtoint(b.extract_value(x, 0), lt.I64) for x in args)
    return b.or_(b.icmp_unsigned("!=", a, c), b.icmp_unsigned("==", a, ir.Constant(lt.I64, 0)))


def _lower_one_dimensional(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    return ctx.builder.icmp_unsigned("==", inner_launch_size(ctx), ir.Constant(lt.I64, 1))


def _load(checked: bool):
    """Lowering of ``arr[idx]``, zero for a null array when ``checked``."""

    def read(
        ctx: LowerContext, arr: ir.Value, atype: Any, idx: list[ir.Value], itypes: list[Any]
    ) -> ir.Value:
        ptr = element_pointer(ctx, arr, atype, idx, itypes)
        raw = ctx.builder.load(ptr, typ=lt.storage_type(atype.dtype), align=lt.alignment(atype.dtype))
        return lt.from_storage(ctx.builder, atype.dtype, raw)

    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
        b = ctx.builder
        arr, idx = args[0], args[1:]
        atype = types[0]
        if not checked:
            return read(ctx, arr, atype, idx, types[1:])
        zero = ir.Constant(lt.llvm_type(atype.dtype), None)
        entry = b.block
        with b.if_then(b.not_(_is_null(ctx, arr)), likely=True):
            loaded = read(ctx, arr, atype, idx, types[1:])
            loaded_block = b.block
        phi = b.phi(zero.type)
        phi.add_incoming(zero, entry)
        phi.add_incoming(loaded, loaded_block)
        return phi

    return lower


def _is_retained(ctx: LowerContext, arr: ir.Value) -> ir.Value:
    """Whether adjoint array ``arr`` is a ``retain_grad`` gradient (its grad field holds the mark)."""
    b = ctx.builder
    grad = b.extract_value(arr, 1)
    return b.icmp_unsigned("==", b.ptrtoint(grad, lt.I64), ir.Constant(lt.I64, ADJOINT_RETAIN_MARK))


def _clear(checked: bool):
    """Lowering of ``arr[idx] = 0`` (skipped for a null array when ``checked``, and for a
    ``retain_grad`` gradient always)."""

    def store(ctx: LowerContext, arr: ir.Value, atype: Any, idx: list[ir.Value], itypes: list[Any]) -> None:
        ptr = element_pointer(ctx, arr, atype, idx, itypes)
        storage = lt.storage_type(atype.dtype)
        ctx.builder.store(ir.Constant(storage, None), ptr, align=lt.alignment(atype.dtype))

    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> None:
        b = ctx.builder
        skip = _is_retained(ctx, args[0])
        if checked:
            skip = b.or_(skip, _is_null(ctx, args[0]))
        with b.if_then(b.not_(skip), likely=True):
            store(ctx, args[0], types[0], args[1:], types[1:])

    return lower


def _lower_null(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    return ir.Constant(lt.ARRAY_STRUCT, None)


def _lower_view(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    b = ctx.builder
    null = _is_null(ctx, args[0])
    view = lower_view(ctx, args, types)
    return b.select(null, ir.Constant(lt.ARRAY_STRUCT, None), view)


def _map_components(ctx: LowerContext, t: Any, fn: Any, *values: ir.Value) -> ir.Value:
    """Apply ``fn`` to matching scalar components of composite values (or to scalars)."""
    if is_scalar_type(t):
        return fn(*values)
    b = ctx.builder
    cols = [components(b, t, v) for v in values]
    return assemble(b, t, [fn(*parts) for parts in zip(*cols)])


def _add_values(ctx: LowerContext, t: Any, a: ir.Value, b: ir.Value) -> ir.Value:
    """a + b for adjoints: scalars, composites component-wise, structs field-wise."""
    if getattr(t, "_wp_kind_", "") == "struct":
        out = a
        for k, (_, ft) in enumerate(t._fields_):
            if not is_differentiable(ft):
                continue
            fa = lt.from_storage(ctx.builder, ft, ctx.builder.extract_value(a, k))
            fb = lt.from_storage(ctx.builder, ft, ctx.builder.extract_value(b, k))
            total = lt.to_storage(ctx.builder, ft, _add_values(ctx, ft, fa, fb))
            out = ctx.builder.insert_value(out, total, k)
        return out
    return _map_components(ctx, t, ctx.builder.fadd, a, b)


def _lower_add(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    return _add_values(ctx, types[0], args[0], args[1])


def _lower_inner(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    """Sum of component-wise products of two composites of one type (dot / double dot)."""
    b = ctx.builder
    total = None
    for x, y in zip(components(b, types[0], args[0]), components(b, types[1], args[1])):
        p = b.fmul(x, y)
        total = p if total is None else b.fadd(total, p)
    return total


def _lower_select(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    return ctx.builder.select(args[0], args[1], args[2])


def _unary(intrinsic: str):
    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
        return _map_components(ctx, types[0], lambda v: ctx.call_intrinsic(intrinsic, [v]), args[0])

    return lower


def _op(name: str, lower: Any, *, side_effects: bool = False, doc: str = "") -> Overload:
    return Overload(name, (), None, lower=lower, doc=doc, group="Autodiff", package="warp-autodiff",
                    side_effects=side_effects, differentiable=False)


ONE_DIMENSIONAL = _op(
    "adj_one_dimensional",
    _lower_one_dimensional,
    doc="True in a one-dimensional launch (where a single i = wp.tid() is unique to the thread).",
)
ACCUMULATE = _op("adj_accumulate", _accumulate(atomic=True, checked=True), side_effects=True,
                 doc="Atomically add a value to an adjoint array element (skipped for a null array).")
ACCUMULATE_EXCLUSIVE = _op(
    "adj_accumulate_exclusive",
    _accumulate(atomic=False, checked=True),
    side_effects=True,
    doc="Add a value to an adjoint array element only this thread writes.",
)
ACCUMULATE_EXCLUSIVE_NONNULL = _op(
    "adj_accumulate_exclusive_nonnull",
    _accumulate(atomic=False, checked=False),
    side_effects=True,
    doc="adj_accumulate_exclusive for an array known not null.",
)
ACCUMULATE_EXCLUSIVE_GUARDED = _op("adj_accumulate_exclusive_guarded", _guarded(True), side_effects=True,
                                   doc="adj_accumulate_exclusive unless arrays may alias (then atomic).")
ACCUMULATE_EXCLUSIVE_GUARDED_NONNULL = _op("adj_accumulate_exclusive_guarded_nonnull", _guarded(False),
                                           side_effects=True, doc="The same for an array known not null.")
DISTINCT = _op("adj_distinct", _lower_distinct, doc="True if two arrays do not share their data pointer.")
ACCUMULATE_NONNULL = _op("adj_accumulate_nonnull", _accumulate(atomic=True, checked=False), side_effects=True,
                         doc="adj_accumulate for an array known not null.")
LOAD = _op("adj_load", _load(checked=True), doc="Read an adjoint array element (zero for a null array).")
LOAD_NONNULL = _op("adj_load_nonnull", _load(checked=False), doc="adj_load for an array known not null.")
CLEAR = _op("adj_clear", _clear(checked=True), side_effects=True,
             doc="Zero an adjoint array element (skipped for a null array).")
CLEAR_NONNULL = _op("adj_clear_nonnull", _clear(checked=False), side_effects=True,
                    doc="adj_clear for an array known not null.")
NONNULL = _op("adj_nonnull", lambda ctx, args, types: ctx.builder.not_(_is_null(ctx, args[0])),
              doc="True if an adjoint array exists (its data pointer is not null).")
NULL_ARRAY = _op("adj_null_array", _lower_null, doc="A null adjoint array.")
VIEW = _op("adj_view", _lower_view, doc="Row view of an adjoint array (null stays null).")
ADD = _op("adj_add", _lower_add, doc="Sum of two adjoints (component-wise for composites).")
INNER = _op("adj_inner", _lower_inner, doc="Sum of component-wise products of two composites.")
SELECT = _op("adj_select", _lower_select, doc="cond ? a : b for any type.")
TRUNC = _op("adj_trunc", _unary("llvm.trunc"), doc="Round toward zero (float).")
