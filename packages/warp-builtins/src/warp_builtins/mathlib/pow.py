"""pow with C99 special cases, branch-free.

float32: ``exp2(y * log2|x|)`` evaluated in double precision (ample for a float result).
float64: ``exp(y * log|x|)`` with ``log|x|`` as a double-double accurate to about 2**-64
(``log1p(f) = 2s + 2/3 s^3 + s^5 R(s^2)``, ``s = f / (2 + f)``, the first two terms in
double-double), the product ``y * log|x|`` kept exact with fma, and ``exp`` of the
double-double result; about 1 ulp.
"""

from __future__ import annotations

from llvmlite import ir

from warp_builtins.mathlib.explog import exp_core, log2_parts, log_core
from warp_builtins.mathlib.irutil import MathBuilder, Value


def pow_magnitude_f64(d: MathBuilder, ax: Value, y: Value) -> Value:
    """``|x|^y`` in double for ``|x|`` >= 0 (0 and inf handled), without the sign rules."""
    inf = float("inf")
    l2 = log2_parts(d, *log_core(d, ax))
    l2 = d.select(d.eq(ax, d.c(0.0)), d.c(-inf), l2)
    l2 = d.select(d.eq(ax, d.c(inf)), d.c(inf), l2)
    w = d.clamp(d.mul(y, l2), -1100.0, 1100.0)
    k, ki = d.round_magic(w)
    r = d.sub(w, k)
    t = d.mul(r, d.c(0.6931471805599453))
    q, k2 = exp_core(d, t)
    return d.scale(d.add(d.c(1.0), q), d.b.add(ki, k2))


def pow_specials(mb: MathBuilder, x: Value, y: Value, magnitude: Value) -> Value:
    """Apply the sign and special-value rules of C99 ``pow`` to ``|x|^y``."""
    b = mb.b
    one, zero = mb.c(1.0), mb.c(0.0)
    nan = mb.c(float("nan"))
    ay = mb.fabs(y)
    y_int = mb.eq(mb.trunc(y), y)
    exact_limit = 2.0**mb.mant_bits * 2.0
    small = mb.lt(ay, mb.c(exact_limit))
    yi = b.fptosi(mb.select(small, y, zero), mb.ity)
    y_odd = b.and_(b.and_(y_int, small), b.trunc(yi, ir.IntType(1)))
    x_neg = b.icmp_signed("<", mb.as_int(x), mb.ic(0))
    res = mb.select(b.and_(x_neg, y_odd), mb.neg(magnitude), magnitude)
    finite_neg = b.and_(mb.lt(x, zero), mb.gt(x, mb.c(float("-inf"))))
    res = mb.select(b.and_(b.and_(finite_neg, b.not_(y_int)), b.not_(mb.isinf(y))), nan, res)
    res = mb.select(mb.or_(mb.isnan(x), mb.isnan(y)), nan, res)
    res = mb.select(b.and_(mb.eq(mb.fabs(x), one), mb.isinf(y)), one, res)
    return mb.select(mb.or_(mb.eq(x, one), mb.eq(y, zero)), one, res)


# 2 atanh(s) = 2 s + 2/3 s^3 + s^5 * R(s^2)
LOG_DD_TAIL = (0.40000000000000413, 0.28571428570971547, 0.22222222370961583, 0.1818179660377295,
               0.15386234675449384, 0.13268009202230888, 0.13101360436810183)  # fmt: skip
TWO_THIRDS = (0.6666666666666666, 3.700743415417188e-17)
LN2_HI, LN2_LO = 0.6931471803691238, 1.9082149292705877e-10  # hi has 32 bits: e * hi is exact
LOG2E = 1.4426950408889634


def _two_sum(d: MathBuilder, a: Value, b: Value) -> tuple[Value, Value]:
    s = d.add(a, b)
    bb = d.sub(s, a)
    return s, d.add(d.sub(a, d.sub(s, bb)), d.sub(b, bb))


def _mul_dd(d: MathBuilder, a_hi: Value, a_lo: Value, b_hi: Value, b_lo: Value) -> tuple[Value, Value]:
    """``(a_hi + a_lo) * (b_hi + b_lo)`` to double-double precision (not normalized)."""
    p = d.mul(a_hi, b_hi)
    err = d.fma(a_hi, b_hi, d.neg(p))
    return p, d.fma(a_hi, b_lo, d.fma(a_lo, b_hi, err))


def log_dd(d: MathBuilder, ax: Value) -> tuple[Value, Value]:
    """``log(ax)`` as ``hi + lo`` (relative error about 2**-64) for finite ``ax > 0``."""
    e, f, _ = log_core(d, ax)  # ax = 2^e (1 + f), f exact
    two = d.c(2.0)
    den = d.add(two, f)
    den_lo = d.add(d.sub(two, den), f)
    s = d.div(f, den)
    s_lo = d.div(d.sub(d.fma(d.neg(s), den, f), d.mul(s, den_lo)), den)
    s2, s2_lo = _mul_dd(d, s, s_lo, s, s_lo)
    s3, s3_lo = _mul_dd(d, s2, s2_lo, s, s_lo)
    t3, t3_lo = _mul_dd(d, d.c(TWO_THIRDS[0]), d.c(TWO_THIRDS[1]), s3, s3_lo)
    rest = d.mul(d.mul(s3, s2), d.poly(s2, LOG_DD_TAIL))
    hi, lo = _two_sum(d, d.mul(two, s), t3)
    lo = d.add(lo, d.add(d.fma(two, s_lo, t3_lo), rest))
    hi, lo2 = _two_sum(d, d.mul(e, d.c(LN2_HI)), hi)
    return hi, d.add(lo2, d.fma(e, d.c(LN2_LO), lo))


def pow_f64(d: MathBuilder, x: Value, y: Value) -> Value:
    inf = float("inf")
    ax = d.fabs(x)
    l_hi, l_lo = log_dd(d, ax)
    l_hi = d.select(d.eq(ax, d.c(0.0)), d.c(-inf), d.select(d.eq(ax, d.c(inf)), d.c(inf), l_hi))
    w = d.mul(y, l_hi)
    w_lo = d.fma(y, l_lo, d.fma(y, l_hi, d.neg(w)))
    finite = d.lt(d.fabs(w), d.c(1100.0))  # also false for NaN: those lanes only need 0 / inf
    w = d.clamp(w, -1100.0, 1100.0)
    w_lo = d.select(finite, w_lo, d.c(0.0))
    k, ki = d.round_magic(w, LOG2E)
    r = d.fma(d.neg(k), d.c(LN2_HI), w)  # exact
    r = d.fma(d.neg(k), d.c(LN2_LO), r)
    r_hi = d.add(r, w_lo)
    r_lo = d.add(d.sub(r, r_hi), w_lo)
    q, k2 = exp_core(d, r_hi)
    q = d.fma(r_lo, d.add(d.c(1.0), q), q)
    return pow_specials(d, x, y, d.scale(d.add(d.c(1.0), q), d.b.add(ki, k2)))


def pow_f32(mb: MathBuilder, x: Value, y: Value) -> Value:
    d = mb.other(ir.DoubleType())
    mag = pow_magnitude_f64(d, d.convert(mb.fabs(x), d.ty), d.convert(y, d.ty))
    return pow_specials(mb, x, y, d.convert(mag, mb.ty))


FUNCTIONS = {("pow", "float"): pow_f32, ("pow", "double"): pow_f64}
