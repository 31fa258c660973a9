"""pow for float32 (IR, computed as ``exp2(y * log2|x|)`` in double precision) with C99 special cases.

float64 ``pow`` calls libm (see :mod:`warp_builtins.mathlib`): a correctly rounded double
``pow`` needs ``log2`` to about 2**-68, which this library does not implement.
"""

from __future__ import annotations

import llvmlite.ir as ir

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


def pow_f32(mb: MathBuilder, x: Value, y: Value) -> Value:
    d = mb.other(ir.DoubleType())
    mag = pow_magnitude_f64(d, d.convert(mb.fabs(x), d.ty), d.convert(y, d.ty))
    return pow_specials(mb, x, y, d.convert(mag, mb.ty))


FUNCTIONS = {("pow", "float"): pow_f32}
