"""sin, cos, tan with a cheap Cody-Waite reduction: the ``fast_math`` variants (CPU).

Selected by the module option ``fast_math=True``; the default functions are in
:mod:`warp_builtins.mathlib.trig` (full-range reduction, under 1 ulp for float32). These are
about twice as fast in trig-bound kernels but only accurate while the reduction is:

* float32 arguments are reduced in double precision with ``k = rint(x * fl(2/pi))`` rounded
  once, which keeps ``|r|`` within the fitted interval for ``|x| < 1.2e13``; the reduction itself
  is exact up to ``|x| < 2**51``. Errors up to ~1.8 ulp (float polynomials).
* float64 arguments are reduced to a double-double ``r_hi + r_lo`` with ``k`` from a
  double-double ``x * 2/pi`` (:func:`nearest_quadrant`), accurate for ``|x| < 2**51 * pi/2``
  (about 3.5e15).

Beyond these ranges ``r`` is clamped to the fitted interval so results stay finite and
``|sin|, |cos| <= 1``, but they are not accurate. ``sin(-0)`` and ``tan(-0)`` are ``-0``.
"""

from __future__ import annotations

from llvmlite import ir

from warp_builtins.mathlib.irutil import MathBuilder, Value
from warp_builtins.mathlib.trig_reduce import two_prod, two_sum
from warp_builtins.mathlib.trig import (
    COS32,
    SIN32,
    f64_functions,
    sincos_f32_functions,
    tan_f32_from_double,
)

TWO_OVER_PI = 0.6366197723675814
TWO_OVER_PI_LO = -3.935735335036497e-17
PIO2_1 = 1.5707963267948966
PIO2_2 = 6.123233995736766e-17
PIO2_3 = -1.4973849048591698e-33
PIO4 = 0.7853981633974483
#: the polynomials are fitted on |r| <= PIO4_FIT
PIO4_FIT = PIO4 * 1.001

# ---------------------------------------------------------------------------------- float32


def nearest_quadrant(d: MathBuilder, x: Value) -> tuple[Value, Value]:
    """``k = rint(x * 2/pi)`` (double and integer) with ``x * 2/pi`` evaluated in double-double.

    A single ``rint(fl(x * 2/pi))`` can be off by one near half-integers once ``|x|`` is large,
    leaving ``|r|`` above pi/4 by up to ``|x| * 2**-53``; rounding the high part first and then
    the small remainder keeps ``|r| <= pi/4`` (up to rounding) over the whole exact range.
    """
    y_hi = d.mul(x, d.c(TWO_OVER_PI))
    y_lo = d.fma(x, d.c(TWO_OVER_PI_LO), d.fma(x, d.c(TWO_OVER_PI), d.neg(y_hi)))
    k0, ki0 = d.round_magic(y_hi)
    k1, ki1 = d.round_magic(d.add(d.sub(y_hi, k0), y_lo))
    return d.add(k0, k1), d.b.add(ki0, ki1)


def _reduce_f32(mb: MathBuilder, x: Value) -> tuple[Value, Value]:
    """``(r, q)``: float32 ``r`` in [-pi/4, pi/4] and i32 quadrant ``q`` (low bits of k)."""
    d = mb.other(ir.DoubleType())
    xd = d.convert(x, d.ty)
    k, ki = d.round_magic(xd, TWO_OVER_PI)  # one rounding: |r| <= pi/4 + |x| * 6.2e-17
    r = d.fma(d.neg(k), d.c(PIO2_1), xd)
    r = d.fma(d.neg(k), d.c(PIO2_2), r)
    r = d.fma(d.neg(k), d.c(PIO2_3), r)
    rf = d.convert(r, mb.ty)
    # graceful beyond the exact range: keep r bounded (NaN passes through the ordered compares)
    bound = mb.c(PIO4_FIT)
    rf = mb.select(mb.gt(rf, bound), bound, rf)
    rf = mb.select(mb.lt(rf, mb.neg(bound)), mb.neg(bound), rf)
    return rf, d.to_int32(ki)


def _sincos_poly_f32(mb: MathBuilder, r: Value) -> tuple[Value, Value]:
    z = mb.mul(r, r)
    s = mb.fma(mb.mul(r, z), mb.poly(z, SIN32), r)
    c = mb.fma(mb.mul(z, z), mb.poly(z, COS32), mb.fma(mb.c(-0.5), z, mb.c(1.0)))
    return s, c


def tan_f32(mb: MathBuilder, x: Value) -> Value:
    r, q = _reduce_f32(mb, x)  # r is a float32 here
    d = mb.other(ir.DoubleType())
    return tan_f32_from_double(mb, x, d.convert(r, d.ty), q)


_F32 = sincos_f32_functions(_reduce_f32, _sincos_poly_f32)


# ---------------------------------------------------------------------------------- float64


def cody_waite_f64(mb: MathBuilder, x: Value) -> tuple[Value, Value, Value]:
    """``(r_hi, r_lo, q)`` with ``x - k*pi/2 = r_hi + r_lo`` to about 2**-105 relative, exact
    while ``|x| < 2**51 * pi/2`` (no bound on ``r`` beyond that)."""
    k, ki = nearest_quadrant(mb, x)
    nk = mb.neg(k)
    r1 = mb.fma(nk, mb.c(PIO2_1), x)  # exact
    ph, pl = two_prod(mb, k, mb.c(PIO2_2))
    s, e = two_sum(mb, r1, mb.neg(ph))
    lo = mb.fma(nk, mb.c(PIO2_3), mb.sub(e, pl))
    hi = mb.add(s, lo)
    return hi, mb.sub(lo, mb.sub(hi, s)), mb.to_int32(ki)


def _reduce_f64(mb: MathBuilder, x: Value) -> tuple[Value, Value, Value]:
    """:func:`cody_waite_f64`, with ``r`` kept in the fitted interval beyond the exact range."""
    hi, lo, q = cody_waite_f64(mb, x)
    bound = mb.c(PIO4_FIT)
    big = mb.gt(mb.fabs(hi), bound)  # only beyond the exact range (NaN compares false)
    hi = mb.select(big, mb.copysign(bound, hi), hi)
    lo = mb.select(big, mb.c(0.0), lo)
    return hi, lo, q


_F64 = f64_functions(_reduce_f64)


#: (name, kind) -> builder of the fast_math variant
FAST_FUNCTIONS = {
    ("sin", "float"): _F32["sin"],
    ("cos", "float"): _F32["cos"],
    ("tan", "float"): tan_f32,
    ("sin", "double"): _F64["sin"],
    ("cos", "double"): _F64["cos"],
    ("tan", "double"): _F64["tan"],
}
