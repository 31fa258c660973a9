"""Lowering helpers shared by the builtin modules: target-dependent math calls and constants.

A lowering has the signature ``lower(ctx, args, arg_types) -> ir.Value`` where ``ctx`` offers
``builder``, ``module``, ``target`` (a ``warp.targets.base.Target``) and ``llvm_type(t)``. Math on
the CPU goes to :mod:`warp_builtins.mathlib` (vectorizable IR) or to LLVM intrinsics that the
vectorizer widens; on CUDA everything floating point goes to libdevice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llvmlite import ir
from warp.extending import LowerContext

from warp_builtins import libdevice, mathlib
from warp_builtins.mathlib import trig_lanes
from warp_builtins.mathlib.irutil import declare_float_intrinsic

Lowering = Callable[[LowerContext, list[ir.Value], list[Any]], ir.Value]

#: operations done with LLVM intrinsics on the CPU (all vectorize on x86)
CPU_INTRINSICS = frozenset({"sqrt", "fabs", "floor", "ceil", "trunc", "roundeven", "round", "copysign"})
#: functions emitted as LLVM intrinsics that warp-core defines after vectorization
#: (:mod:`warp_builtins.mathlib.trig_lanes`), except under the ``fast_math`` module option
LATE_INTRINSICS = frozenset(trig_lanes.NAMES)


def is_float(t: Any) -> bool:
    return t._kind_ == "float"


def is_signed(t: Any) -> bool:
    return t._kind_ == "int"


def float_op(ctx: LowerContext, name: str, args: list[ir.Value]) -> ir.Value:
    """Apply float function ``name`` (math library name or one of :data:`CPU_INTRINSICS`)."""
    special = TARGET_FLOAT_OPS.get(ctx.target.name)
    if special is not None:
        return special(ctx, name, list(args))
    if name in CPU_INTRINSICS:
        fn = declare_float_intrinsic(ctx.builder.module, name, args[0].type, len(args))
        return ctx.builder.call(fn, list(args))
    fast = bool(getattr(getattr(ctx, "state", None), "fast_math", False))
    if name in LATE_INTRINSICS and not fast:
        return in_float32(ctx, args[0], lambda x: _late_intrinsic(ctx.builder, name, x))
    return mathlib.call_math(ctx.builder, name, *args, fast=fast)


def _libdevice_float_op(ctx: LowerContext, name: str, args: list[ir.Value]) -> ir.Value:
    return libdevice.call(ctx.builder, name, args)


#: float math of targets with a math library of their own, by target name (the others: the CPU's)
TARGET_FLOAT_OPS: dict[str, Callable[[Any, str, list[ir.Value]], ir.Value]] = {"cuda": _libdevice_float_op}


def _late_intrinsic(builder: ir.IRBuilder, name: str, x: ir.Value) -> ir.Value:
    return builder.call(declare_float_intrinsic(builder.module, name, x.type, 1), [x])


def float_op_lowering(name: str) -> Lowering:
    """A lowering that applies float function ``name`` to all arguments."""

    def lower(ctx: LowerContext, args: list[ir.Value], arg_types: list[Any]) -> ir.Value:
        return float_op(ctx, name, args)

    lower.__name__ = f"lower_{name}"
    return lower


def const(ty: ir.Type, value: float) -> ir.Constant:
    """A constant of LLVM type ``ty`` (float or integer)."""
    if isinstance(ty, ir.IntType):
        return ir.Constant(ty, int(value))
    return ir.Constant(ty, float(value))


def in_float32(ctx: LowerContext, x: ir.Value, body: Callable[[ir.Value], ir.Value]) -> ir.Value:
    """Compute ``body`` in float32 for a half ``x`` (one rounding at the end), else directly."""
    if isinstance(x.type, ir.HalfType):
        b = ctx.builder
        return b.fptrunc(body(b.fpext(x, ir.FloatType())), x.type)
    return body(x)


def int_less(ctx: LowerContext, a: ir.Value, b: ir.Value, t: Any) -> ir.Value:
    """``a < b`` for integers of warp type ``t`` (signed or unsigned compare)."""
    if is_signed(t):
        return ctx.builder.icmp_signed("<", a, b)
    return ctx.builder.icmp_unsigned("<", a, b)


def less(ctx: LowerContext, a: ir.Value, b: ir.Value, t: Any) -> ir.Value:
    """``a < b`` for scalars of warp type ``t`` (ordered for floats: false with NaN)."""
    if is_float(t):
        return ctx.builder.fcmp_ordered("<", a, b)
    return int_less(ctx, a, b, t)
