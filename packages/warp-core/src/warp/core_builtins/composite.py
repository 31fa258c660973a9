"""Component access of composite values: ``extract`` (v[i], m[i], m[i, j]) and ``assign_copy``."""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from warp.compiler.composite import component_pointer, static_index
from warp.compiler.lowering.context import LowerContext
from warp.compiler.registry import BuiltinRegistry, TypeVar
from warp.core_builtins.patterns import ANY_SCALAR
from warp.types.composite import vector
from warp.types.composite_generic import CompositePattern
from warp.types.scalars import Int

GROUP = "Utility"
S = TypeVar("S", ANY_SCALAR)
C = TypeVar("C")


def _spill(ctx: LowerContext, agg: ir.Value) -> ir.Value:
    slot = ctx.alloca(agg.type)
    ctx.builder.store(agg, slot)
    return slot


def _static_path(indices: list[ir.Value], dims: list[int]) -> list[int] | None:
    static = [static_index(i, d) for i, d in zip(indices, dims)]
    return None if any(s is None for s in static) else static  # type: ignore[return-value]


def extract_path(ctx: LowerContext, agg: ir.Value, indices: list[ir.Value], dims: list[int]) -> ir.Value:
    """``agg[i][j]...`` with constant (extractvalue) or dynamic (stack slot) indices.

    Locals indexed dynamically are usually kept in a stack slot by the lowering instead
    (:mod:`warp.compiler.lowering.local_memory`); this is the form for the other values.
    """
    static = _static_path(indices, dims)
    if static is not None:
        return ctx.builder.extract_value(agg, static)
    return ctx.builder.load(component_pointer(ctx.builder, _spill(ctx, agg), indices, dims))


def insert_path(
    ctx: LowerContext, agg: ir.Value, indices: list[ir.Value], dims: list[int], value: ir.Value
) -> ir.Value:
    """A copy of ``agg`` with ``agg[i][j]... = value``."""
    static = _static_path(indices, dims)
    if static is not None:
        return ctx.builder.insert_value(agg, value, static)
    slot = _spill(ctx, agg)
    ctx.builder.store(value, component_pointer(ctx.builder, slot, indices, dims))
    return ctx.builder.load(slot)


def _lower_extract(ctx: LowerContext, args: list, types: list) -> ir.Value:
    return extract_path(ctx, args[0], args[1:], list(types[0]._shape_)[: len(args) - 1])


def _lower_assign_copy(ctx: LowerContext, args: list, types: list) -> ir.Value:
    return insert_path(ctx, args[0], args[1:-1], list(types[0]._shape_)[: len(args) - 2], args[-1])


def _row_type(types: list) -> Any:
    m = types[0]
    return vector(m._shape_[1], m._wp_scalar_type_)


def register(registry: BuiltinRegistry) -> None:
    """Register extract/assign_copy for vectors, quaternions, transforms and matrices."""
    for kind in ("vector", "quaternion", "transform"):
        pat = CompositePattern(kind, None, S)
        registry.add("extract", params=[("a", pat), ("i", Int)], result=S, lower=_lower_extract, group=GROUP,
                     doc="Component i of a vector, quaternion or transform (a[i], a.x).")
        registry.add(
            "assign_copy",
            params=[("a", pat), ("i", Int), ("value", S)],
            result=lambda ts: ts[0],
            lower=_lower_assign_copy,
            group=GROUP,
            doc="Copy of a with component i replaced (a[i] = value).",
        )
    mat = CompositePattern("matrix", None, S)
    registry.add(
        "extract",
        params=[("a", mat), ("i", Int)],
        result=_row_type,
        lower=_lower_extract,
        group=GROUP,
        doc="Row i of a matrix as a vector (m[i]).",
    )
    registry.add("extract", params=[("a", mat), ("i", Int), ("j", Int)], result=S, lower=_lower_extract,
                 group=GROUP, doc="Component (i, j) of a matrix (m[i, j]).")
    registry.add(
        "assign_copy",
        params=[("a", mat), ("i", Int), ("j", Int), ("value", S)],
        result=lambda ts: ts[0],
        lower=_lower_assign_copy,
        group=GROUP,
        doc="Copy of m with component (i, j) replaced.",
    )
    registry.add("assign_copy", params=[("a", mat), ("i", Int), ("value", C)], result=lambda ts: ts[0],
                 lower=_lower_assign_copy, group=GROUP, doc="Copy of m with row i replaced by a vector.")
