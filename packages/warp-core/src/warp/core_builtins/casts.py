"""Scalar conversions by constructor: ``float(x)``, ``wp.int64(i)``, ``wp.uint8(v)``, ``bool(x)``."""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from warp.compiler.lowering import bfloat16 as bf
from warp.compiler.lowering.context import LowerContext
from warp.compiler.registry import BuiltinRegistry
from warp.core_builtins.patterns import ANY_SCALAR
from warp.types.scalars import bfloat16, float16, float32, float64, scalar_and_bool_types


def convert(ctx: LowerContext, value: ir.Value, src: Any, dst: Any) -> ir.Value:
    """Convert an SSA value from scalar type ``src`` to ``dst`` (saturating float -> int)."""
    b = ctx.builder
    if src is dst:
        return value
    if src is bfloat16:  # a float32 SSA value
        return convert(ctx, value, float32, dst)
    if dst is bfloat16:
        return _to_bfloat16(ctx, value, src)
    to = ctx.llvm_type(dst)
    sk, dk = src._kind_, dst._kind_
    if dk == "bool":
        if sk == "float":
            return b.fcmp_unordered("!=", value, ir.Constant(value.type, 0.0))
        return b.icmp_unsigned("!=", value, ir.Constant(value.type, 0))
    if sk == "bool":
        return b.uitofp(value, to) if dk == "float" else b.zext(value, to)
    if sk == "float" and dk == "float":
        return b.fptrunc(value, to) if src._bits_ > dst._bits_ else b.fpext(value, to)
    if sk == "float":
        base = "llvm.fptosi.sat" if dk == "int" else "llvm.fptoui.sat"
        name = f"{base}.i{dst._bits_}.{_fsuffix(src)}"
        return b.call(ctx.intrinsic(name, to, [value.type]), [value])
    if dk == "float":
        return b.sitofp(value, to) if sk == "int" else b.uitofp(value, to)
    if src._bits_ > dst._bits_:
        return b.trunc(value, to)
    if src._bits_ < dst._bits_:
        return b.sext(value, to) if sk == "int" else b.zext(value, to)
    return value  # same width, signedness change only


def _to_bfloat16(ctx: LowerContext, value: ir.Value, src: Any) -> ir.Value:
    """``wp.bfloat16(x)``: one rounding to nearest even (integers go through float64, exact
    below 2**53; float16 through float32, exact)."""
    b = ctx.builder
    if src._kind_ in ("int", "uint"):
        value = convert(ctx, value, src, float64)
    elif src._kind_ == "bool" or src is float16:
        value = convert(ctx, value, src, float32)
    return bf.from_bits(b, bf.to_bits(b, value))


def _fsuffix(t: Any) -> str:
    return {16: "f16", 32: "f32", 64: "f64"}[t._bits_]


def register(registry: BuiltinRegistry) -> None:
    """Register one conversion builtin per scalar type, named after the type."""
    for dst in scalar_and_bool_types:
        registry.add(
            dst.__name__,
            params=[("a", ANY_SCALAR)],
            result=dst,
            lower=(lambda d: lambda ctx, args, types: convert(ctx, args[0], types[0], d))(dst),
            doc=f"Convert a scalar to {dst.__name__} (floats to integers truncate and saturate).",
            group="Scalar Math",
        )
