"""bfloat16 in LLVM IR: float32 SSA values, 16-bit storage, rounding computed inline.

A ``wp.bfloat16`` value lives in registers as an LLVM ``float`` holding a value that is exactly
representable in bfloat16; in memory (arrays, structs, kernel arguments) it is its 16-bit
pattern (``i16``). Every builtin whose result is bfloat16 computes in float32 and has its
result rounded back (:func:`round_value`), which is what NVIDIA Warp's C++ ``bfloat16`` type
does. Conversions use integer arithmetic only (no compiler-runtime helpers such as
``__truncsfbf2``, no bf16 instructions), so the same IR works on every CPU and every GPU
architecture: round to nearest, ties to even, overflow to infinity, subnormals kept, NaN kept
quiet.
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir
from warp.types.scalars import bfloat16

F32 = ir.FloatType()
F64 = ir.DoubleType()
I16 = ir.IntType(16)
I32 = ir.IntType(32)


def _c(v: int) -> ir.Constant:
    return ir.Constant(I32, v)


def _f32_bits_to_bf16(b: ir.IRBuilder, bits: ir.Value) -> ir.Value:
    """i32 holding the bfloat16 pattern nearest to the float32 pattern ``bits``."""
    high = b.lshr(bits, _c(16))
    lsb = b.and_(high, _c(1))
    rounded = b.lshr(b.add(b.add(bits, _c(0x7FFF)), lsb), _c(16))
    quiet_nan = b.or_(high, _c(0x0040))
    is_nan = b.icmp_unsigned(">", b.and_(bits, _c(0x7FFFFFFF)), _c(0x7F800000))
    return b.select(is_nan, quiet_nan, rounded)


def _f64_to_f32_bits_round_odd(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """float32 bits of double ``x`` rounded to odd (a later rounding to bfloat16 is then exact)."""
    f = b.fptrunc(x, F32)
    bits = b.bitcast(f, I32)
    back = b.fpext(f, F64)
    # |back| > |x|: fptrunc rounded away from zero; step the magnitude back by one ulp
    neg = b.fcmp_ordered("<", x, ir.Constant(F64, 0.0))
    away = b.select(neg, b.fcmp_ordered("<", back, x), b.fcmp_ordered(">", back, x))
    bits = b.select(away, b.sub(bits, _c(1)), bits)
    inexact = b.fcmp_ordered("!=", b.fpext(b.bitcast(bits, F32), F64), x)
    return b.or_(bits, b.zext(inexact, I32))


def to_bits(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    """i16 bfloat16 pattern of a float or double value (one correct rounding)."""
    if value.type == F64:
        bits = _f64_to_f32_bits_round_odd(b, value)
        nan_bits = b.bitcast(b.fptrunc(value, F32), I32)
        is_nan = b.fcmp_unordered("uno", value, value)
        bits = b.select(is_nan, nan_bits, bits)
    else:
        bits = b.bitcast(value, I32)
    return b.trunc(_f32_bits_to_bf16(b, bits), I16)


def exact_bits(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    """i16 pattern of a float that already holds a bfloat16 value (its low 16 bits are zero):
    no rounding needed. Every bfloat16 SSA value is such a float (see :func:`round_value`)."""
    return b.trunc(b.lshr(b.bitcast(value, I32), _c(16)), I16)


def from_bits(b: ir.IRBuilder, bits: ir.Value) -> ir.Value:
    """float value of an i16 bfloat16 pattern (exact)."""
    return b.bitcast(b.shl(b.zext(bits, I32), _c(16)), F32)


def round_value(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    """A float rounded to the nearest bfloat16 (still a float)."""
    bits = _f32_bits_to_bf16(b, b.bitcast(value, I32))
    return b.bitcast(b.shl(bits, _c(16)), F32)


def map_components(b: ir.IRBuilder, value: ir.Value, fn: Any) -> ir.Value:
    """Apply ``fn`` to every scalar of a (nested) LLVM array value; rebuild the array."""
    ty = value.type
    if not isinstance(ty, ir.ArrayType):
        return fn(b, value)
    parts = [map_components(b, b.extract_value(value, i), fn) for i in range(ty.count)]
    out: ir.Value = ir.Constant(ir.ArrayType(parts[0].type, ty.count), ir.Undefined)
    for i, part in enumerate(parts):
        out = b.insert_value(out, part, i)
    return out


def storage_array_type(ty: ir.Type) -> ir.Type:
    """The in-memory form of a (nested) array of bfloat16 SSA floats: the same shape of ``i16``."""
    if isinstance(ty, ir.ArrayType):
        return ir.ArrayType(storage_array_type(ty.element), ty.count)
    return I16


def contains_bfloat16(t: Any) -> bool:
    """True for ``bfloat16`` and for vectors/matrices/quaternions/transforms of it."""
    return t is bfloat16 or getattr(t, "_wp_scalar_type_", None) is bfloat16
