"""atan, atan2, asin, acos for float32 and float64, branch-free.

float32 versions compute in double (float32 breakpoints and polynomials, one rounding at the
end), which keeps them under 1 ulp (measured max ~0.54 ulp).

atan reduces ``|x|`` to a small ``t`` with one division chosen by ``select`` (float32: cephes'
breakpoints tan(pi/8), tan(3pi/8); float64: fdlibm's 7/16, 11/16, 19/16, 39/16) and evaluates
``atan(t) = t + t^3 A(t^2)`` (minimax). atan2 reduces to ``atan(min/max)`` on ``[0, 1]`` and
fixes the octant. float32 asin/acos use cephes' ``asin(x) = pi/2 - 2 asin(sqrt((1 - x)/2))``
for ``|x| > 1/2``; float64 asin/acos go through atan:
``asin(x) = atan(x / sqrt((1 - x)(1 + x)))``, ``acos(x) = 2 atan(sqrt((1 - x)/(1 + x)))``.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from warp_builtins.mathlib.irutil import MathBuilder, Value

# atan(t) = t + t^3 * A(t^2)
ATAN32 = (
    -0.33333319425582886,
    0.19998478889465332,
    -0.14241836965084076,
    0.10572592169046402,
    -0.06009974703192711,
)
ATAN64 = (
    -0.33333333333332876,
    0.1999999999986179,
    -0.1428571427114003,
    0.11111110342945144,
    -0.09090885490511486,
    0.07691849570803026,
    -0.06660797821718739,
    0.05831751626139836,
    -0.049694505092980366,
    0.03636071800931079,
    -0.016116589695943085,
)
# asin(x) = x + x^3 * S(x^2), |x| <= 1/2  (float32)
ASIN32 = (
    0.16666662693023682,
    0.07500429451465607,
    0.04452361539006233,
    0.03179950639605522,
    0.01433505304157734,
    0.03780636191368103,
)

# (hi, lo) pairs
PI64 = (3.141592653589793, 1.2246467991473532e-16)
PIO2_64 = (1.5707963267948966, 6.123233995736766e-17)
PIO4_64 = (0.7853981633974483, 3.061616997868383e-17)
ATAN_HALF = (0.4636476090008061, 2.2698777452961687e-17)
ATAN_1_5 = (0.982793723247329, 1.3903311031230998e-17)


def _minus_from(mb: MathBuilder, const: tuple[float, float], v: Value) -> Value:
    """``const - v`` with ``const`` given as a (hi, lo) pair."""
    return mb.add(mb.sub(mb.c(const[0]), v), mb.c(const[1]))


def atan_pos(mb: MathBuilder, a: Value) -> Value:
    """float64 ``atan(a)`` for ``a >= 0`` (inf gives pi/2, NaN propagates)."""
    one = mb.c(1.0)
    r0 = mb.lt(a, mb.c(0.4375))
    r1 = mb.lt(a, mb.c(0.6875))
    r2 = mb.lt(a, mb.c(1.1875))
    r3 = mb.lt(a, mb.c(2.4375))

    def pick(v0: Value, v1: Value, v2: Value, v3: Value, v4: Value) -> Value:
        return mb.select(r0, v0, mb.select(r1, v1, mb.select(r2, v2, mb.select(r3, v3, v4))))

    two, half3 = mb.c(2.0), mb.c(1.5)
    num = pick(a, mb.fma(two, a, mb.c(-1.0)), mb.sub(a, one), mb.sub(a, half3), mb.c(-1.0))
    den = pick(one, mb.add(two, a), mb.add(a, one), mb.fma(half3, a, one), a)
    consts = [(0.0, 0.0), ATAN_HALF, PIO4_64, ATAN_1_5, PIO2_64]
    base_hi = pick(*[mb.c(h) for h, _ in consts])
    base_lo = pick(*[mb.c(lo) for _, lo in consts])
    coeffs = ATAN64
    t = mb.div(num, den)
    z = mb.mul(t, t)
    tail = mb.mul(mb.mul(t, z), mb.poly(z, coeffs))
    return mb.add(base_hi, mb.add(mb.add(base_lo, tail), t))


def _atan_pos_f32_in_double(d: MathBuilder, a: Value) -> Value:
    """float32 ``atan(a)``, ``a >= 0``, with the float32 reduction and polynomial evaluated in
    double (one rounding at the end: under 1 ulp)."""
    one = d.c(1.0)
    big = d.gt(a, d.c(2.414213562373095))
    mid = d.gt(a, d.c(0.41421356237309503))
    num = d.select(big, d.c(-1.0), d.select(mid, d.sub(a, one), a))
    den = d.select(big, a, d.select(mid, d.add(a, one), one))
    base = d.select(big, d.c(PIO2_64[0]), d.select(mid, d.c(PIO4_64[0]), d.c(0.0)))
    t = d.div(num, den)
    z = d.mul(t, t)
    return d.add(base, d.fma(d.mul(t, z), d.poly(z, ATAN32), t))


def atan(mb: MathBuilder, x: Value) -> Value:
    if mb.bits == 32:
        d = mb.other(ir.DoubleType())
        r = _atan_pos_f32_in_double(d, d.fabs(d.convert(x, d.ty)))
        return mb.copysign(d.convert(r, mb.ty), x)
    return mb.copysign(atan_pos(mb, mb.fabs(x)), x)


def atan2(mb: MathBuilder, y: Value, x: Value) -> Value:
    if mb.bits == 32:  # in double with the float32 polynomial, one rounding at the end
        d = mb.other(ir.DoubleType())
        res = _atan2(d, d.convert(y, d.ty), d.convert(x, d.ty), _atan_pos_f32_in_double)
        return d.convert(res, mb.ty)
    return _atan2(mb, y, x, atan_pos)


def _atan2(mb: MathBuilder, y: Value, x: Value, atan_pos: Callable[[MathBuilder, Value], Value]) -> Value:
    ay, ax = mb.fabs(y), mb.fabs(x)
    swap = mb.gt(ay, ax)
    num = mb.select(swap, ax, ay)
    den = mb.select(swap, ay, ax)
    t = mb.div(num, den)
    both_inf = mb.and_(mb.isinf(x), mb.isinf(y))
    t = mb.select(both_inf, mb.c(1.0), t)
    t = mb.select(mb.eq(den, mb.c(0.0)), mb.c(0.0), t)
    theta = atan_pos(mb, t)
    theta = mb.select(swap, _minus_from(mb, PIO2_64, theta), theta)
    x_neg = mb.b.icmp_signed("<", mb.as_int(x), mb.ic(0))
    theta = mb.select(x_neg, _minus_from(mb, PI64, theta), theta)
    res = mb.copysign(theta, y)
    return mb.select(mb.or_(mb.isnan(x), mb.isnan(y)), mb.add(x, y), res)


def _asin_core32(mb: MathBuilder, a: Value) -> tuple[Value, Value]:
    """``(big, p)``: ``p = asin(s)`` with ``s = sqrt((1 - a)/2)`` if ``big`` (a > 1/2) else ``s = a``."""
    big = mb.gt(a, mb.c(0.5))
    z = mb.select(big, mb.mul(mb.c(0.5), mb.sub(mb.c(1.0), a)), mb.mul(a, a))
    s = mb.select(big, mb.sqrt(z), a)
    p = mb.fma(mb.mul(s, z), mb.poly(z, ASIN32), s)
    return big, p


def asin(mb: MathBuilder, x: Value) -> Value:
    if mb.bits == 32:  # in double, one rounding at the end
        d = mb.other(ir.DoubleType())
        big, p = _asin_core32(d, d.fabs(d.convert(x, d.ty)))
        res = d.select(big, d.sub(d.c(PIO2_64[0]), d.mul(d.c(2.0), p)), p)
        return mb.copysign(d.convert(res, mb.ty), x)
    one = mb.c(1.0)
    w = mb.mul(mb.sub(one, x), mb.add(one, x))
    return atan(mb, mb.div(x, mb.sqrt(w)))


def acos(mb: MathBuilder, x: Value) -> Value:
    if mb.bits == 32:  # in double, one rounding at the end
        d = mb.other(ir.DoubleType())
        xd = d.convert(x, d.ty)
        big, p = _asin_core32(d, d.fabs(xd))
        two_p = d.mul(d.c(2.0), p)
        small = d.sub(d.c(PIO2_64[0]), d.copysign(p, xd))
        neg = d.sub(d.c(PI64[0]), two_p)
        res = d.select(big, d.select(d.lt(xd, d.c(0.0)), neg, two_p), small)
        return mb.nan_passthrough(x, d.convert(res, mb.ty))
    one = mb.c(1.0)
    t = mb.sqrt(mb.div(mb.sub(one, x), mb.add(one, x)))
    return mb.mul(mb.c(2.0), atan_pos(mb, t))


FUNCTIONS = {
    (name, kind): fn
    for name, fn in (("atan", atan), ("atan2", atan2), ("asin", asin), ("acos", acos))
    for kind in ("float", "double")
}
