"""atan, atan2, asin, acos for float32 and float64, branch-free.

float32 versions compute in double (float32 breakpoints and polynomials, one rounding at the
end), which keeps them under 1 ulp (measured max ~0.54 ulp).

atan reduces ``|x|`` to a small ``t`` with one division chosen by ``select`` (float32: cephes'
breakpoints tan(pi/8), tan(3pi/8); float64: fdlibm's 7/16, 11/16, 19/16, 39/16) and evaluates
``atan(t) = t + t^3 A(t^2)`` (minimax). atan2 reduces to ``atan(min/max)`` on ``[0, 1]`` and
fixes the octant. float32 asin/acos use cephes' ``asin(x) = pi/2 - 2 asin(sqrt((1 - x)/2))``
for ``|x| > 1/2``; float64 asin/acos use fdlibm's decomposition (``x + x R(x^2)`` below 1/2,
``pi/2 - 2 asin(sqrt((1 - |x|)/2))`` above, with the square root's rounding error recovered by
an fma instead of fdlibm's bit masking): under 1 ulp.
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

# asin(x) = x + x * R(x^2), R(t) = t P(t) / Q(t) on [0, 1/4] (fdlibm's e_asin.c rational)
ASIN64_P = (
    1.66666666666666657415e-01,
    -3.25565818622400915405e-01,
    2.01212532134862925881e-01,
    -4.00555345006794114027e-02,
    7.91534994289814532176e-04,
    3.47933107596021167570e-05,
)
ASIN64_Q = (
    1.0,
    -2.40339491173441421878e00,
    2.02094576023350569471e00,
    -6.88283971605453293030e-01,
    7.70381505559019352791e-02,
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


def _asin_ratio64(mb: MathBuilder, t: Value) -> Value:
    """``R(t)``: ``asin(s) = s + s R(s^2)`` for ``s^2 = t`` in ``[0, 1/4]``."""
    return mb.div(mb.mul(t, mb.poly(t, ASIN64_P)), mb.poly(t, ASIN64_Q))


def _half_angle64(mb: MathBuilder, t: Value) -> tuple[Value, Value]:
    """``(s, tail)`` with ``asin(sqrt(t)) ~ s + tail`` (``s = sqrt(t)`` rounded, ``tail`` its
    rounding error plus ``s R(t)``), ``t = (1 - |x|)/2`` in ``[0, 1/4]``."""
    s = mb.sqrt(t)
    s_err = mb.div(mb.fma(mb.neg(s), s, t), mb.add(s, s))  # sqrt(t) - s, to first order
    s_err = mb.select(mb.eq(s, mb.c(0.0)), mb.c(0.0), s_err)
    return s, mb.fma(s, _asin_ratio64(mb, t), s_err)


def _asin64(mb: MathBuilder, x: Value) -> Value:
    """float64 asin (fdlibm's decomposition; the square root's rounding error carried by fma)."""
    a = mb.fabs(x)
    small = mb.fma(x, _asin_ratio64(mb, mb.mul(x, x)), x)  # |x| < 1/2
    s, tail = _half_angle64(mb, mb.mul(mb.c(0.5), mb.sub(mb.c(1.0), a)))
    # pi/2 - 2 (s + tail), the subtraction's error kept
    two_s = mb.add(s, s)
    hi = mb.sub(mb.c(PIO2_64[0]), two_s)
    err = mb.sub(mb.sub(mb.c(PIO2_64[0]), hi), two_s)
    big = mb.add(hi, mb.sub(mb.add(err, mb.c(PIO2_64[1])), mb.add(tail, tail)))
    res = mb.select(mb.lt(a, mb.c(0.5)), small, mb.copysign(big, x))
    return mb.select(mb.gt(a, mb.c(1.0)), mb.c(float("nan")), res)


def _acos64(mb: MathBuilder, x: Value) -> Value:
    """float64 acos: pi/2 - asin(x) for |x| < 1/2, 2 asin(sqrt((1 - x)/2)) above, and
    pi - 2 asin(sqrt((1 + x)/2)) below -1/2."""
    a = mb.fabs(x)
    # |x| < 1/2: pi/2 - (x + x R(x^2)), the constant's low part first
    low = mb.fma(mb.neg(x), _asin_ratio64(mb, mb.mul(x, x)), mb.c(PIO2_64[1]))
    small = mb.sub(mb.c(PIO2_64[0]), mb.sub(x, low))
    s, tail = _half_angle64(mb, mb.mul(mb.c(0.5), mb.sub(mb.c(1.0), a)))
    pos = mb.mul(mb.c(2.0), mb.add(s, tail))  # x >= 1/2
    two_s = mb.add(s, s)
    hi = mb.sub(mb.c(PI64[0]), two_s)
    err = mb.sub(mb.sub(mb.c(PI64[0]), hi), two_s)
    neg = mb.add(hi, mb.sub(mb.add(err, mb.c(PI64[1])), mb.add(tail, tail)))  # x <= -1/2
    res = mb.select(mb.lt(a, mb.c(0.5)), small, mb.select(mb.lt(x, mb.c(0.0)), neg, pos))
    return mb.select(mb.gt(a, mb.c(1.0)), mb.c(float("nan")), res)


def asin(mb: MathBuilder, x: Value) -> Value:
    if mb.bits == 32:  # in double, one rounding at the end
        d = mb.other(ir.DoubleType())
        big, p = _asin_core32(d, d.fabs(d.convert(x, d.ty)))
        res = d.select(big, d.sub(d.c(PIO2_64[0]), d.mul(d.c(2.0), p)), p)
        return mb.copysign(d.convert(res, mb.ty), x)
    return _asin64(mb, x)


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
    return _acos64(mb, x)


FUNCTIONS = {
    (name, kind): fn
    for name, fn in (("atan", atan), ("atan2", atan2), ("asin", asin), ("acos", acos))
    for kind in ("float", "double")
}
