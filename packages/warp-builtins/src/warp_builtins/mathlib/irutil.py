"""A small helper for writing branch-free floating point code with llvmlite's IR builder.

:class:`MathBuilder` wraps an ``ir.IRBuilder`` for one floating point type (``float`` or
``double``, or a vector of either) and offers the handful of operations the math library is
written in: constants, arithmetic, ``fma``-based polynomial evaluation, comparisons and
``select``, bit casts and exponent manipulation. Everything it emits is straight-line code
built from instructions and LLVM intrinsics that the loop vectorizer widens (``llvm.fma``,
``llvm.fabs``, ``llvm.sqrt``, ``llvm.floor``, ...), so loops calling the resulting functions
vectorize after inlining.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import TypeAlias

from llvmlite import ir

#: an LLVM value (llvmlite's ``ir.Value``)
Value: TypeAlias = ir.Value

#: Properties of the supported floating point types: (bits, mantissa bits, exponent bias).
_FORMATS = {"float": (32, 23, 127), "double": (64, 52, 1023)}


def float_kind(ty: ir.Type) -> str:
    """``"half"``, ``"float"`` or ``"double"`` for an llvmlite floating point type (or vector of one)."""
    if isinstance(ty, ir.VectorType):
        return float_kind(ty.element)
    if isinstance(ty, ir.HalfType):
        return "half"
    if isinstance(ty, ir.FloatType):
        return "float"
    if isinstance(ty, ir.DoubleType):
        return "double"
    raise TypeError(f"not a floating point type: {ty}")


def declare_float_intrinsic(module: ir.Module, name: str, ty: ir.Type, nargs: int) -> ir.Function:
    """Declare (once) ``llvm.<name>.<f16|f32|f64>`` (``.v<N>f32`` for vectors) taking ``nargs``
    values of type ``ty``."""
    symbol = f"llvm.{name}.{intrinsic_suffix(ty)}"
    existing = module.globals.get(symbol)
    if existing is not None:
        return existing
    return ir.Function(module, ir.FunctionType(ty, [ty] * nargs), symbol)


_INTRINSIC_SUFFIX = {"half": "f16", "float": "f32", "double": "f64"}


def intrinsic_suffix(ty: ir.Type) -> str:
    """The type suffix of an LLVM intrinsic overloaded on ``ty``: ``f32``, ``v16f32``, ..."""
    lanes = f"v{ty.count}" if isinstance(ty, ir.VectorType) else ""
    return lanes + _INTRINSIC_SUFFIX[float_kind(ty)]


def lanes_of(ty: ir.Type) -> int | None:
    """The number of lanes of a vector type, None for a scalar."""
    return ty.count if isinstance(ty, ir.VectorType) else None


class _Splat(ir.values.FormattedConstant):
    """A vector constant written ``splat (double 0x...)``: one element to format, not one per lane."""

    def __init__(self, typ: ir.VectorType, element: ir.Constant):
        self.type = typ
        self.constant = f"splat ({element.type} {element.get_reference()})"


class MathBuilder:
    """Emits floating point code of type ``ty`` through ``builder``.

    ``ty`` is ``float`` or ``double``, or a vector of one: then every value is a vector of
    ``lanes`` lanes, constants are splats and comparisons give vectors of ``i1``.
    """

    def __init__(self, builder: ir.IRBuilder, ty: ir.Type):
        kind = float_kind(ty)
        if kind not in _FORMATS:
            raise TypeError(f"MathBuilder supports float and double, not {ty}")
        self.b = builder
        self.ty = ty
        self.kind = kind
        self.lanes = lanes_of(ty)
        self.bits, self.mant_bits, self.bias = _FORMATS[kind]
        self.ity = self.lane_type(ir.IntType(self.bits))
        #: 1.5 * 2**mant_bits: adding it rounds to an integer kept in the low mantissa bits
        self.magic = 1.5 * 2.0**self.mant_bits

    @property
    def module(self) -> ir.Module:
        return self.b.module

    def other(self, ty: ir.Type) -> MathBuilder:
        """A builder for another float type (a scalar type: same lanes as this one) emitting into
        the same place."""
        return MathBuilder(self.b, self.lane_type(ty))

    def lane_type(self, ty: ir.Type) -> ir.Type:
        """``ty`` (a scalar type) with this builder's lanes."""
        if self.lanes is None or isinstance(ty, ir.VectorType):
            return ty
        return ir.VectorType(ty, self.lanes)

    def const(self, ty: ir.Type, value: float | int) -> ir.Constant:
        """A constant of scalar type ``ty``, splat over this builder's lanes."""
        if self.lanes is None:
            return ir.Constant(ty, value)
        return _Splat(ir.VectorType(ty, self.lanes), ir.Constant(ty, value))

    def i32(self, value: int) -> ir.Constant:
        """An ``i32`` constant (splat over the lanes)."""
        return self.const(ir.IntType(32), value)

    # ------------------------------------------------------------------ constants
    def c(self, value: float) -> ir.Constant:
        """A floating point constant (rounded to this type)."""
        return self.const(self.ty.element if self.lanes else self.ty, float(value))

    def bits_of(self, value: float) -> ir.Constant:
        """The bit pattern of a floating point constant, as an integer constant."""
        fmt = ("<f", "<I") if self.bits == 32 else ("<d", "<Q")
        return self.ic(struct.unpack(fmt[1], struct.pack(fmt[0], value))[0])

    def ic(self, value: int) -> ir.Constant:
        """An integer constant of the same width as this float type."""
        return self.const(ir.IntType(self.bits), value)

    # ------------------------------------------------------------------ arithmetic
    def add(self, a: Value, b: Value) -> Value:
        return self.b.fadd(a, b)

    def sub(self, a: Value, b: Value) -> Value:
        return self.b.fsub(a, b)

    def mul(self, a: Value, b: Value) -> Value:
        return self.b.fmul(a, b)

    def div(self, a: Value, b: Value) -> Value:
        return self.b.fdiv(a, b)

    def neg(self, a: Value) -> Value:
        return self.b.fneg(a)

    def intrinsic(self, name: str, *args: Value) -> Value:
        """Call ``llvm.<name>.f32`` (or ``.f64``) on arguments of this float type."""
        return self.b.call(declare_float_intrinsic(self.module, name, self.ty, len(args)), list(args))

    def fma(self, a: Value, b: Value, c: Value) -> Value:
        """``a * b + c`` with a single rounding."""
        return self.intrinsic("fma", a, b, c)

    def poly(self, x: Value, coeffs: Sequence[float]) -> Value:
        """Horner evaluation of ``sum(coeffs[i] * x**i)`` with fused multiply-adds."""
        acc: Value = self.c(coeffs[-1])
        for coef in reversed(coeffs[:-1]):
            acc = self.fma(acc, x, self.c(coef))
        return acc

    def poly_selected(
        self, x: Value, cond: Value, if_true: Sequence[float], if_false: Sequence[float]
    ) -> Value:
        """Evaluate one of two polynomials of equal degree, chosen per lane by ``cond``."""
        assert len(if_true) == len(if_false)
        coeffs = [self.select(cond, self.c(t), self.c(f)) for t, f in zip(if_true, if_false)]
        acc = coeffs[-1]
        for coef in reversed(coeffs[:-1]):
            acc = self.fma(acc, x, coef)
        return acc

    # ------------------------------------------------------------------ intrinsics
    def fabs(self, a: Value) -> Value:
        return self.intrinsic("fabs", a)

    def sqrt(self, a: Value) -> Value:
        return self.intrinsic("sqrt", a)

    def floor(self, a: Value) -> Value:
        return self.intrinsic("floor", a)

    def trunc(self, a: Value) -> Value:
        return self.intrinsic("trunc", a)

    def copysign(self, mag: Value, sign: Value) -> Value:
        return self.intrinsic("copysign", mag, sign)

    def minnum(self, a: Value, b: Value) -> Value:
        """Minimum ignoring a NaN operand (``llvm.minnum``)."""
        return self.intrinsic("minnum", a, b)

    def maxnum(self, a: Value, b: Value) -> Value:
        """Maximum ignoring a NaN operand (``llvm.maxnum``)."""
        return self.intrinsic("maxnum", a, b)

    def clamp(self, a: Value, lo: float, hi: float) -> Value:
        """``a`` clamped to ``[lo, hi]``; a NaN becomes ``lo`` (callers restore NaN explicitly)."""
        return self.minnum(self.maxnum(a, self.c(lo)), self.c(hi))

    # ------------------------------------------------------------------ comparisons
    def lt(self, a: Value, b: Value) -> Value:
        return self.b.fcmp_ordered("<", a, b)

    def le(self, a: Value, b: Value) -> Value:
        return self.b.fcmp_ordered("<=", a, b)

    def gt(self, a: Value, b: Value) -> Value:
        return self.b.fcmp_ordered(">", a, b)

    def ge(self, a: Value, b: Value) -> Value:
        return self.b.fcmp_ordered(">=", a, b)

    def eq(self, a: Value, b: Value) -> Value:
        return self.b.fcmp_ordered("==", a, b)

    def isnan(self, a: Value) -> Value:
        return self.b.fcmp_unordered("uno", a, a)

    def isinf(self, a: Value) -> Value:
        return self.eq(self.fabs(a), self.c(float("inf")))

    def select(self, cond: Value, a: Value, b: Value) -> Value:
        return self.b.select(cond, a, b)

    def and_(self, a: Value, b: Value) -> Value:
        return self.b.and_(a, b)

    def or_(self, a: Value, b: Value) -> Value:
        return self.b.or_(a, b)

    def not_(self, a: Value) -> Value:
        return self.b.not_(a)

    def nan_passthrough(self, x: Value, result: Value) -> Value:
        """``x`` where ``x`` is NaN, else ``result``."""
        return self.select(self.isnan(x), x, result)

    # ------------------------------------------------------------------ bits and exponents
    def as_int(self, a: Value) -> Value:
        return self.b.bitcast(a, self.ity)

    def as_float(self, i: Value) -> Value:
        return self.b.bitcast(i, self.ty)

    def round_magic(self, x: Value, scale: float = 1.0) -> tuple[Value, Value]:
        """``k = rint(x * scale)`` as (float, int); exact for ``|x * scale| < 2**(mant_bits - 1)``.

        Adds 1.5 * 2**mant_bits so that the integer lands in the low mantissa bits; never
        poison (unlike ``fptosi`` of an out-of-range value): large or NaN inputs give a
        meaningless but defined integer.
        """
        magic = self.c(self.magic)
        t = self.fma(x, self.c(scale), magic) if scale != 1.0 else self.add(x, magic)
        k = self.sub(t, magic)
        ki = self.b.sub(self.as_int(t), self.bits_of(self.magic))
        return k, ki

    def pow2(self, k: Value) -> Value:
        """``2**k`` for an integer ``k`` (same width as the float) within the normal exponent range."""
        biased = self.b.add(k, self.ic(self.bias))
        return self.as_float(self.b.shl(biased, self.ic(self.mant_bits)))

    def scale(self, p: Value, k: Value) -> Value:
        """``p * 2**k`` with correct overflow to inf and gradual underflow, for ``|k| <= 2 * bias``."""
        k1 = self.b.ashr(k, self.ic(1))
        k2 = self.b.sub(k, k1)
        return self.mul(self.mul(p, self.pow2(k1)), self.pow2(k2))

    def to_int32(self, i: Value) -> Value:
        """Truncate or keep an integer of this float's width to ``i32``."""
        return i if self.bits == 32 else self.b.trunc(i, self.lane_type(ir.IntType(32)))

    def sitofp(self, i: Value) -> Value:
        return self.b.sitofp(i, self.ty)

    def convert(self, x: Value, ty: ir.Type) -> Value:
        """``fpext``/``fptrunc`` between float types (identity when equal)."""
        src, dst = float_kind(x.type), float_kind(ty)
        order = {"half": 0, "float": 1, "double": 2}
        if order[src] == order[dst]:
            return x
        return self.b.fpext(x, ty) if order[dst] > order[src] else self.b.fptrunc(x, ty)
