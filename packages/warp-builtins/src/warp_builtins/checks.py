"""Kernel-side checks and searches: ``expect_eq``, ``expect_neq``, ``expect_near``, ``lower_bound``.

A failed expectation prints ``Expect failed at FILE:LINE: SOURCE`` from the kernel (it does not
abort the launch), which is how kernel test code reports mismatches.
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir
from warp.extending import (
    BuiltinRegistry,
    LowerContext,
    ArrayOf,
    components,
    Float,
    int32,
    is_composite,
    lowering_types as lt,
    MatrixOf,
    QuatOf,
    Scalar,
    TypeVar,
    VectorOf,
    element_pointer,
)

GROUP = "Utility"
V = TypeVar("V")
S = TypeVar("S", Scalar)


def _parts(ctx: LowerContext, value: ir.Value, t: Any) -> list[tuple[ir.Value, Any]]:
    if is_composite(t):
        return [(c, t._wp_scalar_type_) for c in components(ctx.builder, t, value)]
    return [(value, t)]


def _equal(ctx: LowerContext, a: ir.Value, b: ir.Value, t: Any) -> ir.Value:
    b_ = ctx.builder
    if t._kind_ == "float":
        return b_.fcmp_ordered("==", a, b)
    return b_.icmp_unsigned("==", a, b)


def _report_if(ctx: LowerContext, failed: ir.Value) -> None:
    op = ctx.current_op
    where = f"{op.loc.file}:{op.loc.line}: {op.loc.text.strip()}" if op is not None and op.loc else "?"
    with ctx.builder.if_then(failed, likely=False):
        ctx.printf(f"Expect failed at {where}\n")


def _lower_expect(equal_wanted: bool):
    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> None:
        all_equal = ir.Constant(lt.I1, 1)
        for (x, t), (y, _) in zip(_parts(ctx, args[0], types[0]), _parts(ctx, args[1], types[1])):
            all_equal = ctx.builder.and_(all_equal, _equal(ctx, x, y, t))
        _report_if(ctx, ctx.builder.not_(all_equal) if equal_wanted else all_equal)

    return lower


def _lower_expect_near(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> None:
    b = ctx.builder
    tol = args[2]
    near = ir.Constant(lt.I1, 1)
    for (x, _), (y, _) in zip(_parts(ctx, args[0], types[0]), _parts(ctx, args[1], types[1])):
        diff = ctx.call_intrinsic("llvm.fabs", [b.fsub(x, y)])
        near = b.and_(near, b.fcmp_ordered("<=", diff, tol))
    _report_if(ctx, b.not_(near))


#: tolerance of ``expect_near(a, b)`` called without one (NVIDIA Warp's default)
DEFAULT_TOLERANCE = 1.0e-6


def _lower_expect_near_default(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> None:
    """``expect_near(a, b)``: the tolerance is :data:`DEFAULT_TOLERANCE` in the components' type."""
    parts = _parts(ctx, args[0], types[0])
    if not parts:
        return
    tol = ir.Constant(parts[0][0].type, DEFAULT_TOLERANCE)
    _lower_expect_near(ctx, [args[0], args[1], tol], list(types))


def _lower_lower_bound(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    """Index of the first element >= value in a sorted 1-d array (binary search); a value past
    the last element gives the last index, as in NVIDIA Warp (an index that can be read)."""
    b = ctx.builder
    arr, value = args
    atype, t = types
    n = b.extract_value(arr, [2, 0])
    lo_slot, hi_slot = ctx.alloca(lt.I32), ctx.alloca(lt.I32)
    b.store(ir.Constant(lt.I32, 0), lo_slot)
    b.store(b.sub(n, ir.Constant(lt.I32, 1)), hi_slot)  # search [0, n - 1]
    fn = b.function
    head, body, done = (
        fn.append_basic_block("lb.head"),
        fn.append_basic_block("lb.body"),
        fn.append_basic_block("lb.done"),
    )
    b.branch(head)
    b.position_at_end(head)
    lo, hi = b.load(lo_slot), b.load(hi_slot)
    b.cbranch(b.icmp_signed("<", lo, hi), body, done)
    b.position_at_end(body)
    mid = b.add(lo, b.ashr(b.sub(hi, lo), ir.Constant(lt.I32, 1)))
    elem = lt.from_storage(
        b, t, b.load(element_pointer(ctx, arr, atype, [mid], [int32]), typ=lt.storage_type(t))
    )
    if t._kind_ == "float":
        less = b.fcmp_ordered("<", elem, value)
    elif t._kind_ == "int":
        less = b.icmp_signed("<", elem, value)
    else:
        less = b.icmp_unsigned("<", elem, value)
    b.store(b.select(less, b.add(mid, ir.Constant(lt.I32, 1)), lo), lo_slot)
    b.store(b.select(less, hi, mid), hi_slot)
    b.branch(head)
    b.position_at_end(done)
    return b.load(lo_slot)


def _add_expect(registry: BuiltinRegistry, name: str, params: list, lower: Any, doc: str, **kw: Any) -> None:
    """Register an expectation: it prints from the kernel, returns nothing and has no adjoint."""
    registry.add(
        name,
        params=params,
        result=None,
        lower=lower,
        group=GROUP,
        side_effects=True,
        prints_only=True,
        differentiable=False,
        doc=doc,
        **kw,
    )


#: (name, equality wanted, the failing condition) of the equality expectations
_EQUALITY_EXPECTATIONS = (("expect_eq", True, "a != b"), ("expect_neq", False, "a == b"))


def register(registry: BuiltinRegistry) -> None:
    """Register the expectation builtins and lower_bound."""
    for name, equal_wanted, failure in _EQUALITY_EXPECTATIONS:
        _add_expect(
            registry,
            name,
            [("a", V), ("b", V)],
            _lower_expect(equal_wanted),
            f"Print an error from the kernel if {failure}.",
            mismatch_hint="Can't test equality for objects with different types",
        )
    F = TypeVar("F", Float)
    _add_expect(
        registry,
        "expect_near",
        [("a", F), ("b", F), ("tolerance", F)],
        _lower_expect_near,
        "Print an error from the kernel if |a - b| > tolerance.",
    )
    near_types = [F]
    for pattern in (VectorOf(None, F), QuatOf(F), MatrixOf(None, None, F)):
        VF = TypeVar("VF", pattern)
        near_types.append(VF)
        _add_expect(
            registry,
            "expect_near",
            [("a", VF), ("b", VF), ("tolerance", F)],
            _lower_expect_near,
            "Print an error from the kernel if any component differs by more than tolerance.",
        )
    for T in near_types:
        _add_expect(
            registry,
            "expect_near",
            [("a", T), ("b", T)],
            _lower_expect_near_default,
            f"expect_near with the default tolerance {DEFAULT_TOLERANCE:g}.",
        )
    registry.add("lower_bound", params=[("arr", ArrayOf(S, 1)), ("value", S)], result=int32,
                 lower=_lower_lower_bound, group="Other", differentiable=False,
                 doc="Index of the first element of a sorted 1-d array that is not less than value "
                     "(the last index when every element is less, as in NVIDIA Warp).")
