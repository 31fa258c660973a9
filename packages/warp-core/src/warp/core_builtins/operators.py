"""Arithmetic, comparison, bitwise and logical operators on scalars."""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from warp.compiler.lowering.context import LowerContext, Lowering
from warp.compiler.registry import BuiltinRegistry
from warp.core_builtins.patterns import ANY_SCALAR, B, I, T
from warp.types.scalars import bool as wp_bool
from warp.types.scalars import int32 as _INT32

_I32 = ir.IntType(32)

GROUP = "Operators"


def _is_float(t: Any) -> bool:
    return t._kind_ == "float"


def _signed(t: Any) -> bool:
    return t._kind_ == "int"


def _arith(float_op: str, int_op: str) -> Lowering:
    def lower(ctx: LowerContext, args: list, types: list) -> ir.Value:
        a, b = args
        op = float_op if _is_float(types[0]) else int_op
        return getattr(ctx.builder, op)(a, b)

    return lower


def _safe_divisor(ctx: LowerContext, a: ir.Value, b: ir.Value, t: Any) -> tuple[ir.Value, ir.Value]:
    """Divisor with 0 (and signed -1, whose MIN/-1 traps on x86) replaced by 1; returns (b', is_zero)."""
    bld = ctx.builder
    zero = ir.Constant(b.type, 0)
    one = ir.Constant(b.type, 1)
    is_zero = bld.icmp_unsigned("==", b, zero)
    bad = is_zero
    if _signed(t):
        bad = bld.or_(bad, bld.icmp_signed("==", b, ir.Constant(b.type, -1)))
    return bld.select(bad, one, b), is_zero


def _int_divide(ctx: LowerContext, a: ir.Value, b: ir.Value, t: Any, rem: bool) -> ir.Value:
    """C-style integer division/remainder that never traps: x/0 and x%0 give 0, MIN/-1 wraps."""
    bld = ctx.builder
    safe, is_zero = _safe_divisor(ctx, a, b, t)
    if _signed(t):
        minus_one = bld.icmp_signed("==", b, ir.Constant(b.type, -1))
        q = bld.srem(a, safe) if rem else bld.sdiv(a, safe)
        special = ir.Constant(b.type, 0) if rem else bld.sub(ir.Constant(b.type, 0), a)
        q = bld.select(minus_one, special, q)
    else:
        q = bld.urem(a, safe) if rem else bld.udiv(a, safe)
    return bld.select(is_zero, ir.Constant(b.type, 0), q)


def lower_div(ctx: LowerContext, args: list, types: list) -> ir.Value:
    if _is_float(types[0]):
        return ctx.builder.fdiv(*args)
    a, b = args
    return _int_divide(ctx, a, b, types[0], rem=False)


def lower_floordiv(ctx: LowerContext, args: list, types: list) -> ir.Value:
    """``a // b``: floor(a / b) for floats; integer quotient rounded toward negative infinity."""
    if _is_float(types[0]):
        return ctx.call_intrinsic("llvm.floor", [ctx.builder.fdiv(*args)])
    a, b = args
    q = _int_divide(ctx, a, b, types[0], rem=False)
    if not _signed(types[0]):
        return q
    # truncated quotient minus one when the division is inexact and the signs differ
    bld = ctx.builder
    zero = ir.Constant(a.type, 0)
    r = bld.sub(a, bld.mul(q, b))
    inexact = bld.and_(bld.icmp_signed("!=", r, zero), bld.icmp_signed("!=", b, zero))
    signs_differ = bld.icmp_signed("<", bld.xor(r, b), zero)
    return bld.select(bld.and_(inexact, signs_differ), bld.sub(q, ir.Constant(a.type, 1)), q)


def lower_mod(ctx: LowerContext, args: list, types: list) -> ir.Value:
    if _is_float(types[0]):
        return ctx.builder.frem(*args)
    a, b = args
    return _int_divide(ctx, a, b, types[0], rem=True)


_FCMP = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def _compare(name: str) -> Lowering:
    sym = _FCMP[name]

    def lower(ctx: LowerContext, args: list, types: list) -> ir.Value:
        a, b = args
        t = types[0]
        if _is_float(t):
            if name == "ne":
                return ctx.builder.fcmp_unordered(sym, a, b)
            return ctx.builder.fcmp_ordered(sym, a, b)
        if _signed(t):
            return ctx.builder.icmp_signed(sym, a, b)
        return ctx.builder.icmp_unsigned(sym, a, b)

    return lower


def lower_neg(ctx: LowerContext, args: list, types: list) -> ir.Value:
    (a,) = args
    if _is_float(types[0]):
        return ctx.builder.fneg(a)
    return ctx.builder.sub(ir.Constant(a.type, 0), a)


def lower_unot(ctx: LowerContext, args: list, types: list) -> ir.Value:
    (a,) = args
    if types[0]._kind_ == "bool":
        return ctx.builder.not_(a)
    if _is_float(types[0]):
        return ctx.builder.fcmp_ordered("==", a, ir.Constant(a.type, 0.0))
    return ctx.builder.icmp_unsigned("==", a, ir.Constant(a.type, 0))


def shift(bld: ir.IRBuilder, kind: str, a: ir.Value, b: ir.Value, t: Any) -> ir.Value:
    """``a << b`` / ``a >> b`` as C++ (NVIDIA Warp on the CPU) computes them: 8/16-bit operands
    are promoted to 32-bit int first, and the amount is taken modulo the (promoted) width as x86
    does, so no amount is undefined (``int8(1) << 9`` is 0, ``int32(1) << 33`` is 2)."""
    width = a.type.width
    if width < 32:
        ext = bld.sext if _signed(t) else bld.zext
        wide = shift(bld, kind, ext(a, _I32), ext(b, _I32), _INT32)
        return bld.trunc(wide, a.type)
    amount = bld.and_(b, ir.Constant(b.type, width - 1))
    if kind == "lshift":
        return bld.shl(a, amount)
    return bld.ashr(a, amount) if _signed(t) else bld.lshr(a, amount)


def _shift(kind: str) -> Lowering:
    def lower(ctx: LowerContext, args: list, types: list) -> ir.Value:
        return shift(ctx.builder, kind, args[0], args[1], types[0])

    return lower


def register(registry: BuiltinRegistry) -> None:
    """Register the operator builtins."""
    add = registry.add
    for name, fop, iop, doc in (
        ("add", "fadd", "add", "Sum of two scalars (a + b)."),
        ("sub", "fsub", "sub", "Difference of two scalars (a - b)."),
        ("mul", "fmul", "mul", "Product of two scalars (a * b)."),
    ):
        add(name, params=[("a", T), ("b", T)], result=T, lower=_arith(fop, iop), doc=doc, group=GROUP)
    add("div", params=[("a", T), ("b", T)], result=T, lower=lower_div, group=GROUP,
        doc="Division; floats divide exactly, integers truncate toward zero (x / 0 gives 0 for integers).")
    add("floordiv", params=[("a", T), ("b", T)], result=T, lower=lower_floordiv, group=GROUP,
        doc="Floored division (a // b): floor(a / b) for floats, the quotient rounded toward negative "
        "infinity for integers (-7 // 2 == -4); integer x // 0 gives 0.")
    add("mod", params=[("a", T), ("b", T)], result=T, lower=lower_mod, group=GROUP,
        doc="Remainder of truncated division (a % b), as NVIDIA Warp: the sign of the dividend "
        "(-7 % 2 == -1, C fmod semantics); integer x % 0 gives 0.")
    for name in _FCMP:
        add(name, params=[("a", B), ("b", B)], result=wp_bool, lower=_compare(name), group=GROUP,
            doc=f"Comparison a {_FCMP[name]} b; false when either float operand is NaN (except !=).")
    add("neg", params=[("x", T)], result=T, lower=lower_neg, group=GROUP, doc="Negation (-x).")
    add("pos", params=[("x", T)], result=T, lower=lambda ctx, a, t: a[0], group=GROUP, doc="Identity (+x).")
    add("unot", params=[("a", ANY_SCALAR)], result=wp_bool, lower=lower_unot, group=GROUP,
        doc="Logical not: true when a is zero / false.")
    add("logical_and", params=[("a", wp_bool), ("b", wp_bool)], result=wp_bool, group=GROUP,
        lower=lambda ctx, a, t: ctx.builder.and_(*a), doc="Logical and of two bools (both sides evaluated).")
    add("logical_or", params=[("a", wp_bool), ("b", wp_bool)], result=wp_bool, group=GROUP,
        lower=lambda ctx, a, t: ctx.builder.or_(*a), doc="Logical or of two bools (both sides evaluated).")
    for name, op, sym in (("bit_and", "and_", "&"), ("bit_or", "or_", "|"), ("bit_xor", "xor", "^")):
        add(name, params=[("a", I), ("b", I)], result=I, group=GROUP,
            lower=(lambda o: lambda ctx, a, t: getattr(ctx.builder, o)(*a))(op), doc=f"Bitwise a {sym} b.")
    add("invert", params=[("a", I)], result=I, group=GROUP,
        lower=lambda ctx, a, t: ctx.builder.not_(a[0]), doc="Bitwise complement (~a).")
    add("lshift", params=[("a", I), ("b", I)], result=I, lower=_shift("lshift"), group=GROUP,
        doc="Left shift a << b; 8/16-bit operands shift as 32-bit int (C promotion), the amount is "
        "taken modulo 32 (64 for 64-bit types).")
    add("rshift", params=[("a", I), ("b", I)], result=I, lower=_shift("rshift"), group=GROUP,
        doc="Right shift a >> b, arithmetic for signed types; 8/16-bit operands shift as 32-bit int "
        "(C promotion), the amount is taken modulo 32 (64 for 64-bit types).")
