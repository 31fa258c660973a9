"""sin, cos, tan for float32 and float64, branch-free.

The argument is reduced to ``x = k * pi/2 + r``, ``|r| <= pi/4``, by
:mod:`warp_builtins.mathlib.trig_reduce` (a table-driven, Payne-Hanek style reduction exact over
the whole float range: ``sin(1e22)``, ``cos(FLT_MAX)`` and ``sin(1e300)`` are accurate).
float32 gets ``r`` as a double and evaluates its polynomials in double, rounding once
(max error measured ~0.54 ulp; tan ~0.57); float64 gets ``r`` as a double-double
``r_hi + r_lo``; float64 tan divides sin by cos as double-doubles (one rounding: under 1 ulp).
``sin(-0)`` and ``tan(-0)`` are ``-0``; inf and NaN give NaN.

``sin(r)`` and ``cos(r)`` are minimax polynomials on ``[-pi/4, pi/4]`` (see
``tools/fit_mathlib.py``); the quadrant ``k mod 4`` swaps them and flips signs.
"""

from __future__ import annotations

from typing import Callable

from llvmlite import ir

from warp_builtins.mathlib import trig_reduce
from warp_builtins.mathlib.irutil import MathBuilder, Value

# sin(r) = r + r^3 * S(r^2); cos(r) = 1 - r^2/2 + r^4 * C(r^2)   (|r| <= pi/4)
SIN32 = (-0.1666666716337204, 0.008333329111337662, -0.00019839253218378872, 2.7172732188773807e-06)
COS32 = (0.0416666679084301, -0.0013888885732740164, 2.4799905077088624e-05, -2.7236529831498046e-07)
SIN64 = (
    -0.16666666666666666,
    0.008333333333333325,
    -0.0001984126984125607,
    2.7557319214338776e-06,
    -2.505210488127693e-08,
    1.6058356367612202e-10,
    -7.577954485725503e-13,
)
COS64 = (
    0.041666666666666664,
    -0.0013888888888888885,
    2.4801587301579644e-05,
    -2.755731921862269e-07,
    2.0876755039849093e-09,
    -1.147036345015615e-11,
    4.7410111036262834e-14,
)


# ---------------------------------------------------------------------------------- float32


def _reduce_f32(mb: MathBuilder, x: Value) -> tuple[Value, Value]:
    """``(r, q)``: double ``r`` in [-pi/4, pi/4] and i32 quadrant ``q`` (low bits of k)."""
    return trig_reduce.reduce_f32(mb, x)


def _sincos_poly_f32(mb: MathBuilder, r: Value) -> tuple[Value, Value]:
    """float32 sin(r), cos(r) from the double ``r``, evaluated in double and rounded once."""
    d = mb.other(ir.DoubleType())
    z = d.mul(r, r)
    s = d.fma(d.mul(r, z), d.poly(z, SIN32), r)
    c = d.fma(d.mul(z, z), d.poly(z, COS32), d.fma(d.c(-0.5), z, d.c(1.0)))
    return d.convert(s, mb.ty), d.convert(c, mb.ty)


def _apply_quadrant(mb: MathBuilder, s: Value, c: Value, q: Value, cosine: bool) -> Value:
    """sin (or cos) of the original argument from sin/cos of r and the quadrant."""
    b = mb.b
    if cosine:
        q = b.add(q, mb.i32(1))
    odd = b.icmp_unsigned("!=", b.and_(q, mb.i32(1)), mb.i32(0))
    val = mb.select(odd, c, s)
    sign = b.and_(q, mb.i32(2))
    if mb.bits == 64:
        sign = b.shl(b.zext(sign, mb.ity), mb.ic(62))
    else:
        sign = b.shl(sign, mb.i32(30))
    return mb.as_float(b.xor(mb.as_int(val), sign))


def _keep_zero(mb: MathBuilder, x: Value, result: Value) -> Value:
    """``x`` itself where ``x`` is +-0 (the polynomials turn -0 into +0)."""
    return mb.select(mb.eq(x, mb.c(0.0)), x, result)


#: ``(mb, x) -> result`` IR builder of one math function
Builder = Callable[[MathBuilder, Value], Value]
#: ``(mb, x) -> (r, quadrant)`` (float32 reductions) or ``(mb, r) -> (sin r, cos r)``
Pair = Callable[[MathBuilder, Value], tuple[Value, Value]]


def sincos_f32_functions(reduce: Pair, sincos: Pair) -> dict[str, Builder]:
    """float32 sin and cos over ``reduce`` (``x -> (r, quadrant)``) and ``sincos`` (``r -> (sin r,
    cos r)`` as float32); the default functions and the ``fast_math`` ones differ in both."""

    def sin_f32(mb: MathBuilder, x: Value) -> Value:
        r, q = reduce(mb, x)
        s, c = sincos(mb, r)
        return _keep_zero(mb, x, _apply_quadrant(mb, s, c, q, cosine=False))

    def cos_f32(mb: MathBuilder, x: Value) -> Value:
        r, q = reduce(mb, x)
        s, c = sincos(mb, r)
        # cos(x) = sin(x + pi/2): quadrant q + 1 applied to (sin r, cos r)
        return _apply_quadrant(mb, s, c, q, cosine=True)

    return {"sin": sin_f32, "cos": cos_f32}


def tan_f32_from_double(mb: MathBuilder, x: Value, rd: Value, q: Value) -> Value:
    """float32 tan(x) from the reduced argument as a double ``rd`` and the quadrant ``q``:
    polynomials and the division in double, one rounding at the end."""
    d = mb.other(ir.DoubleType())
    z = d.mul(rd, rd)
    s = d.fma(d.mul(rd, z), d.poly(z, SIN32), rd)
    c = d.fma(d.mul(z, z), d.poly(z, COS32), d.fma(d.c(-0.5), z, d.c(1.0)))
    odd = mb.b.icmp_unsigned("!=", mb.b.and_(q, mb.i32(1)), mb.i32(0))
    num = d.select(odd, d.neg(c), s)
    den = d.select(odd, s, c)
    return _keep_zero(mb, x, d.convert(d.div(num, den), mb.ty))


def tan_f32(mb: MathBuilder, x: Value) -> Value:
    rd, q = _reduce_f32(mb, x)
    return tan_f32_from_double(mb, x, rd, q)


_F32 = sincos_f32_functions(_reduce_f32, _sincos_poly_f32)


# ---------------------------------------------------------------------------------- float64


def _reduce_f64(mb: MathBuilder, x: Value) -> tuple[Value, Value, Value]:
    """``(r_hi, r_lo, q)`` with ``x - k*pi/2 = r_hi + r_lo`` to about 2**-100 relative."""
    return trig_reduce.reduce_f64(mb, x)


def _sincos_poly_f64(mb: MathBuilder, r: Value, lo: Value) -> tuple[Value, Value]:
    z = mb.mul(r, r)
    # sin(r + lo) ~ r + (r^3 S(z) + lo * (1 - z/2))
    tail = mb.fma(mb.mul(r, z), mb.poly(z, SIN64), mb.mul(lo, mb.fma(mb.c(-0.5), z, mb.c(1.0))))
    s = mb.add(r, tail)
    # cos(r + lo) ~ w + (((1 - w) - z/2) + (z^2 C(z) - r * lo)), w = 1 - z/2
    hz = mb.mul(mb.c(0.5), z)
    w = mb.sub(mb.c(1.0), hz)
    corr = mb.sub(mb.sub(mb.c(1.0), w), hz)
    c = mb.add(w, mb.add(corr, mb.fma(mb.mul(z, z), mb.poly(z, COS64), mb.neg(mb.mul(r, lo)))))
    return s, c


def _sincos_dd_f64(mb: MathBuilder, r: Value, lo: Value) -> tuple[Value, Value, Value, Value]:
    """``sin(r + lo)`` and ``cos(r + lo)`` as double-doubles ``(s_hi, s_lo, c_hi, c_lo)`` (the
    rounding of ``r*r`` included), for tan's quotient: rounded once, under 1 ulp."""
    z = mb.mul(r, r)
    z_lo = mb.fma(r, r, mb.neg(z))  # r*r = z + z_lo exactly
    tail = mb.fma(mb.mul(r, z), mb.poly(z, SIN64), mb.mul(lo, mb.fma(mb.c(-0.5), z, mb.c(1.0))))
    s_hi = mb.add(r, tail)
    s_lo = mb.add(mb.sub(r, s_hi), tail)  # |r| >= |tail|: exact error of the sum
    hz = mb.mul(mb.c(0.5), z)
    w = mb.sub(mb.c(1.0), hz)
    corr = mb.sub(mb.sub(mb.sub(mb.c(1.0), w), hz), mb.mul(mb.c(0.5), z_lo))
    rest = mb.add(corr, mb.fma(mb.mul(z, z), mb.poly(z, COS64), mb.neg(mb.mul(r, lo))))
    c_hi = mb.add(w, rest)
    c_lo = mb.add(mb.sub(w, c_hi), rest)  # |w| >= |rest|
    return s_hi, s_lo, c_hi, c_lo


def _dd_div(mb: MathBuilder, n_hi: Value, n_lo: Value, d_hi: Value, d_lo: Value) -> Value:
    """``(n_hi + n_lo) / (d_hi + d_lo)`` rounded to double: one quotient and an fma-exact
    correction step."""
    q = mb.div(n_hi, d_hi)
    e = mb.fma(mb.neg(q), d_hi, n_hi)  # n_hi - q*d_hi exactly
    e = mb.sub(mb.add(e, n_lo), mb.mul(q, d_lo))
    return mb.add(q, mb.div(e, d_hi))


Reduction64 = Callable[[MathBuilder, Value], tuple[Value, Value, Value]]


def f64_functions(reduce: Reduction64) -> dict[str, Builder]:
    """float64 sin, cos, tan over ``reduce`` (``x -> (r_hi, r_lo, quadrant)``); the default
    functions use the full-range reduction, the ``fast_math`` ones a cheaper one."""

    def sin_f64(mb: MathBuilder, x: Value) -> Value:
        r, lo, q = reduce(mb, x)
        s, c = _sincos_poly_f64(mb, r, lo)
        return _keep_zero(mb, x, _apply_quadrant(mb, s, c, q, cosine=False))

    def cos_f64(mb: MathBuilder, x: Value) -> Value:
        r, lo, q = reduce(mb, x)
        s, c = _sincos_poly_f64(mb, r, lo)
        return _apply_quadrant(mb, s, c, q, cosine=True)

    def tan_f64(mb: MathBuilder, x: Value) -> Value:
        r, lo, q = reduce(mb, x)
        s_hi, s_lo, c_hi, c_lo = _sincos_dd_f64(mb, r, lo)
        odd = mb.b.icmp_unsigned("!=", mb.b.and_(q, mb.i32(1)), mb.i32(0))
        n_hi, n_lo = mb.select(odd, mb.neg(c_hi), s_hi), mb.select(odd, mb.neg(c_lo), s_lo)
        d_hi, d_lo = mb.select(odd, s_hi, c_hi), mb.select(odd, s_lo, c_lo)
        return _keep_zero(mb, x, _dd_div(mb, n_hi, n_lo, d_hi, d_lo))

    return {"sin": sin_f64, "cos": cos_f64, "tan": tan_f64}


_F64 = f64_functions(_reduce_f64)

FUNCTIONS = {
    ("sin", "float"): _F32["sin"],
    ("cos", "float"): _F32["cos"],
    ("tan", "float"): tan_f32,
    ("sin", "double"): _F64["sin"],
    ("cos", "double"): _F64["cos"],
    ("tan", "double"): _F64["tan"],
}
