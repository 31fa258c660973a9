"""cbrt for float32 and float64, branch-free.

The guess divides the exponent by three in the high word of the double (fdlibm's bit trick,
about 5 correct bits), two Halley steps bring it to about 2**-45, and a final Newton step with
an fma-exact residual ``t^3 - a`` gives a result within an ulp. float32 computes in double.
"""

from __future__ import annotations

from llvmlite import ir

from warp_builtins.mathlib.irutil import MathBuilder, Value

#: fdlibm's cbrt bias: (1023 - 1023/3 - 0.03306235651) * 2**20
_B1 = 715094163


def _cbrt_f64(d: MathBuilder, x: Value) -> Value:
    b = d.b
    i32, i64 = ir.IntType(32), ir.IntType(64)
    a = d.fabs(x)
    sub = d.lt(a, d.c(2.0**-1022))
    big = d.gt(a, d.c(2.0**1020))  # keeps t^3 + 2a finite
    a_s = d.mul(a, d.select(sub, d.c(2.0**54), d.select(big, d.c(2.0**-300), d.c(1.0))))
    hx = b.trunc(b.lshr(d.as_int(a_s), d.ic(32)), i32)
    guess_hi = b.add(b.udiv(hx, ir.Constant(i32, 3)), ir.Constant(i32, _B1))
    t = d.as_float(b.shl(b.zext(guess_hi, i64), d.ic(32)))
    two = d.c(2.0)
    for _ in range(2):  # Halley: t * (t^3 + 2a) / (2 t^3 + a)
        t3 = d.mul(d.mul(t, t), t)
        t = d.mul(t, d.div(d.fma(two, a_s, t3), d.fma(two, t3, a_s)))
    # Newton with an exact residual: t -= (t^3 - a) / (3 t^2)
    t2 = d.mul(t, t)
    t2_lo = d.fma(t, t, d.neg(t2))
    resid = d.fma(t2_lo, t, d.fma(t2, t, d.neg(a_s)))
    t = d.sub(t, d.div(resid, d.mul(d.c(3.0), t2)))
    t = d.mul(t, d.select(sub, d.c(2.0**-18), d.select(big, d.c(2.0**100), d.c(1.0))))
    special = d.or_(d.or_(d.eq(a, d.c(0.0)), d.isinf(a)), d.isnan(a))
    return d.select(special, x, d.copysign(t, x))


def cbrt(mb: MathBuilder, x: Value) -> Value:
    if mb.bits == 64:
        return _cbrt_f64(mb, x)
    d = mb.other(ir.DoubleType())
    return d.convert(_cbrt_f64(d, d.convert(x, d.ty)), mb.ty)


FUNCTIONS = {("cbrt", "float"): cbrt, ("cbrt", "double"): cbrt}
