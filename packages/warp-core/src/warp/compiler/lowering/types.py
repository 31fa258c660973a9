"""Mapping of warp types to LLVM types (SSA value form and in-memory storage form)."""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir
from warp.compiler.lowering import bfloat16 as bf
from warp.errors import WarpCodegenTypeError
from warp.types.array_type import ArrayType
from warp.types.bfloat16_bits import round_scalar
from warp.types.scalars import bfloat16, is_scalar_type, type_repr

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
PTR = ir.PointerType()
VOID = ir.VoidType()

#: LLVM struct of an array value; its layout equals the 64-byte launch descriptor.
ARRAY_STRUCT = ir.LiteralStructType([PTR, PTR, ir.ArrayType(I32, 4), ir.ArrayType(I64, 4)])

_FLOATS = {16: ir.HalfType(), 32: ir.FloatType(), 64: ir.DoubleType()}


def llvm_type(t: Any) -> ir.Type:
    """LLVM type of an SSA value of warp type ``t`` (bool is ``i1``)."""
    if is_scalar_type(t):
        if t._kind_ == "bool":
            return I1
        if t._kind_ == "float":
            return bf.F32 if t is bfloat16 else _FLOATS[t._bits_]
        return ir.IntType(t._bits_)
    if isinstance(t, ArrayType):
        return ARRAY_STRUCT
    hook = getattr(t, "_wp_llvm_type_", None)
    if hook is not None:
        return hook()
    raise WarpCodegenTypeError(f"type {type_repr(t)} cannot be used in kernels")


def storage_type(t: Any) -> ir.Type:
    """LLVM type of ``t`` as stored in memory (bool is one byte, bfloat16 its 16-bit pattern)."""
    if is_scalar_type(t) and t._kind_ == "bool":
        return I8
    if bf.contains_bfloat16(t):
        return bf.storage_array_type(llvm_type(t))
    hook = getattr(t, "_wp_llvm_storage_type_", None)
    if hook is not None:
        return hook()
    return llvm_type(t)


def to_storage(builder: ir.IRBuilder, t: Any, value: ir.Value) -> ir.Value:
    """Convert an SSA value to its storage form (``i1`` -> ``i8``)."""
    if is_scalar_type(t) and t._kind_ == "bool":
        return builder.zext(value, I8)
    if bf.contains_bfloat16(t):
        return bf.map_components(builder, value, bf.to_bits)
    hook = getattr(t, "_wp_to_storage_", None)
    return hook(builder, value) if hook is not None else value


def from_storage(builder: ir.IRBuilder, t: Any, value: ir.Value) -> ir.Value:
    """Convert a loaded storage value to its SSA form (``i8`` -> ``i1``)."""
    if is_scalar_type(t) and t._kind_ == "bool":
        return builder.icmp_unsigned("!=", value, ir.Constant(I8, 0))
    if bf.contains_bfloat16(t):
        return bf.map_components(builder, value, bf.from_bits)
    hook = getattr(t, "_wp_from_storage_", None)
    return hook(builder, value) if hook is not None else value


def alignment(t: Any) -> int:
    """Natural alignment in bytes of one element of ``t`` in memory."""
    if is_scalar_type(t):
        return max(1, t._bits_ // 8)
    if isinstance(t, ArrayType):
        return 8
    return getattr(t, "_wp_alignment_", 8)


def constant(t: Any, value: Any) -> ir.Constant:
    """An LLVM constant of warp type ``t``."""
    ty = llvm_type(t)
    if is_scalar_type(t):
        if t._kind_ == "bool":
            return ir.Constant(I1, int(bool(value)))
        if t is bfloat16:
            return ir.Constant(ty, round_scalar(value))
        if t._kind_ == "float":
            return ir.Constant(ty, float(value))
        return ir.Constant(ty, int(value) & ((1 << t._bits_) - 1))
    hook = getattr(t, "_wp_llvm_constant_", None)
    if hook is not None:
        return hook(value)
    raise WarpCodegenTypeError(f"no constants of type {type_repr(t)}")
