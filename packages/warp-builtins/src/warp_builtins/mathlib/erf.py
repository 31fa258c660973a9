"""erf, erfc, erfinv, erfcinv (float32 and float64), branch-free.

* ``erf(a) = a P(a^2)`` for ``a < 1`` (minimax);
* ``erfc(a) = exp(-a^2) G(a)`` for ``a >= 1/2``, with ``G`` a minimax polynomial per interval
  (float32: ``[1/2, 2]`` in ``a`` and ``[2, 10.5]`` as ``H(1/a^2) / a``; float64: ``[1/2, 3/2]``,
  ``[3/2, 3]`` and ``[3, 27.5]``), picked per lane by selecting coefficients, and ``exp(-a^2)``
  evaluated from the exact ``a^2 = hi + lo``;
* erfinv/erfcinv: Giles' single precision approximation (or the asymptotic expansion in the
  far tail) refined by Newton steps in double precision on ``erf`` near 0 and on
  ``log erfc`` in the tail (so ``erfcinv`` keeps full precision down to the smallest
  subnormal): three for float64, one (erfinv) or two (erfcinv, whose float32 argument reaches
  the far tail) for float32, which then rounds the double result.
"""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir

from warp_builtins.mathlib.explog import exp_core, exp_scaled, log
from warp_builtins.mathlib.irutil import MathBuilder, Value

# erf(a) = a * P(a^2), a < 1; (coefficients, lo part of the leading one)
ERF32 = (
    (1.1283791065216064, -0.3761262595653534, 0.1128358542919159, -0.026853812858462334,
     0.005188327748328447, -0.0008010193705558777, 7.853861461626366e-05),
    5.920509948964536e-08,
)  # fmt: skip
ERF64 = (
    (1.1283791670955126, -0.3761263890318352, 0.11283791670944185, -0.026866170643111417,
     0.0052239776061181456, -0.0008548325929301742, 0.00012055293576581256, -1.4924712296755075e-05,
     1.6447131514808054e-06, -1.6206313376769991e-07, 1.3710978924591947e-08, -7.779466011610243e-10),
    7.090959507934183e-18,
)  # fmt: skip
# erfc(a) = exp(-a^2) * G(t); pieces: (upper bound of a, variable shift or None for t = 1/a^2, coeffs, lo)
ERFC32 = (
    (2.0, 1.25,
     (0.36782291531562805, -0.2088218629360199, 0.10679499059915543, -0.050218451768159866,
      0.02201973646879196,
      -0.009081949479877949, 0.003511497052386403, -0.0013181152753531933, 0.0005568228662014008,
      -0.00018496178381610662),
     7.550355007879261e-09),
    (None, None,
     (0.5641895532608032, -0.28209179639816284, 0.4228968322277069, -1.0475051403045654, 3.440894365310669,
      -12.29232120513916, 39.081565856933594, -92.79629516601562, 137.89247131347656, -93.70669555664062),
     1.6265643054680368e-08),
)  # fmt: skip
ERFC64 = (
    (1.5, 1.0,
     (0.427583576155807, -0.27321201478389856, 0.15437156137190824, -0.07922696894132707, 0.03757229621531208,
      -0.016661869090399094, 0.006970142374082347, -0.002769064776137082, 0.001050269417871427,
      -0.0003819545258328707, 0.00013366276493040436, -4.5143915757902876e-05, 1.4754596595001526e-05,
      -4.6756527011825375e-06, 1.434072128609366e-06, -4.3045477267649154e-07, 1.3781521166684958e-07,
      -3.863622622755369e-08),
     5.537918882663716e-18),
    (3.0, 2.25,
     (0.23108725873039188, -0.08848650280874916, 0.031992627410705875, -0.011002060756440278,
      0.0036189953543764044, -0.0011437284836499349, 0.00034853542171043987, -0.00010272108117109783,
      2.935325042792795e-05, -8.150283402758677e-06, 2.2030062789207473e-06, -5.80631659548269e-07,
      1.4948007394838723e-07, -3.760863974536208e-08, 9.179037849331134e-09, -2.2201728355481574e-09,
      6.053935111156328e-10, -1.3855545436383602e-10),
     -4.418856667416177e-18),
    (None, None,
     (0.5641895835477562, -0.28209479177377106, 0.4231421875993795, -1.0578554510084852, 3.702490943018559,
      -16.66085493869459, 91.6071904010473, -593.9187088731272, 4391.97375071579, -35421.03239580788,
      292150.15793552983, -2282987.6907902327, 15686662.695681816, -88610764.70659195, 385451900.7039534,
      -1193592357.19819, 2321763362.162262, -2120828345.9196284),
     4.8566969103375287e-17),
)  # fmt: skip
#: erfc underflows to 0 beyond this argument
ERFC_MAX = {32: 10.5, 64: 27.5}

# Giles, "Approximating the erfinv function" (GPU Computing Gems), single precision:
# erfinv(x) = x * P(t), t = w - 2.5 (w < 5) or sqrt(w) - 3, w = -log((1 - x)(1 + x))
GILES_CENTRAL = (1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087, -4.39150654e-06,
                 -3.5233877e-06, 3.43273939e-07, 2.81022636e-08)  # fmt: skip
GILES_TAIL = (2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773, -0.00367342844,
              0.00134934322, 0.000100950558, -0.000200214257)  # fmt: skip
SQRT_PI = 1.7724538509055159
SQRT_PI_OVER_2 = 0.886226925452758


def _select_chain(mb: MathBuilder, conds: Sequence[Value], values: Sequence[Value]) -> Value:
    """``values[i]`` for the first true ``conds[i]``, else ``values[-1]``."""
    acc = values[-1]
    for cond, v in zip(reversed(conds), reversed(values[:-1])):
        acc = mb.select(cond, v, acc)
    return acc


def erf_small(mb: MathBuilder, a: Value) -> Value:
    """``erf(a)`` for ``0 <= a < 1``."""
    coeffs, lo = ERF64 if mb.bits == 64 else ERF32
    z = mb.mul(a, a)
    return mb.fma(a, mb.c(coeffs[0]), mb.mul(a, mb.fma(z, mb.poly(z, coeffs[1:]), mb.c(lo))))


def erfc_tail_parts(mb: MathBuilder, a: Value) -> tuple[Value, Value, Value]:
    """``(G, hi, lo)`` with ``erfc(a) = exp(-(hi + lo)) * G`` for ``a >= 1/2`` (a clamped)."""
    pieces = ERFC64 if mb.bits == 64 else ERFC32
    ac = mb.minnum(a, mb.c(ERFC_MAX[mb.bits]))
    inv = mb.div(mb.c(1.0), ac)
    conds = [mb.lt(ac, mb.c(upper)) for upper, _, _, _ in pieces[:-1]]
    ts = [mb.sub(ac, mb.c(shift)) for _, shift, _, _ in pieces[:-1]] + [mb.mul(inv, inv)]
    t = _select_chain(mb, conds, ts)
    degree = len(pieces[0][2]) - 1
    coeff = [_select_chain(mb, conds, [mb.c(p[2][i]) for p in pieces]) for i in range(degree + 1)]
    lo_c = _select_chain(mb, conds, [mb.c(p[3]) for p in pieces])
    acc = coeff[-1]
    for cf in reversed(coeff[1:-1]):
        acc = mb.fma(acc, t, cf)
    g = mb.add(coeff[0], mb.fma(acc, t, lo_c))
    in_last = mb.not_(conds[-1])
    g = mb.select(in_last, mb.mul(g, inv), g)
    hi = mb.mul(ac, ac)
    lo = mb.fma(ac, ac, mb.neg(hi))
    return g, hi, lo


def erfc_tail(mb: MathBuilder, a: Value) -> Value:
    """``erfc(a)`` for ``a >= 1/2`` (including inf), one rounding at underflow."""
    g, hi, lo = erfc_tail_parts(mb, a)
    q, k = exp_core(mb, mb.maxnum(mb.neg(hi), mb.c(-746.0 if mb.bits == 64 else -104.0)))
    # (1 + q)(1 - lo) g = g + g (q - lo (1 + q)), without rounding 1 + q
    q2 = mb.fma(mb.neg(lo), mb.add(mb.c(1.0), q), q)
    return mb.scale(mb.fma(g, q2, g), k)


def erf(mb: MathBuilder, x: Value) -> Value:
    a = mb.fabs(x)
    res = mb.select(mb.lt(a, mb.c(1.0)), erf_small(mb, a), mb.sub(mb.c(1.0), erfc_tail(mb, a)))
    return mb.nan_passthrough(x, mb.copysign(res, x))


def erfc(mb: MathBuilder, x: Value) -> Value:
    a = mb.fabs(x)
    pos = mb.select(mb.lt(a, mb.c(0.5)), mb.sub(mb.c(1.0), erf_small(mb, a)), erfc_tail(mb, a))
    res = mb.select(mb.lt(x, mb.c(0.0)), mb.sub(mb.c(2.0), pos), pos)
    return mb.nan_passthrough(x, res)


# ---------------------------------------------------------------------------------- inverses


def _erfinv_core(d: MathBuilder, a: Value, c: Value, iterations: int, far_tail: bool = True) -> Value:
    """``erfinv(a)`` for ``0 <= a < 1`` given ``c = 1 - a`` exactly (double precision).

    The initial guess is good to about 1e-7 (Giles) or 1e-3 (asymptotic, ``w > 16``); each
    Newton step squares the relative error. Without ``far_tail`` (float32 erfinv, where
    ``c >= 2**-24``) the asymptotic guess is not computed.
    """
    one = d.c(1.0)
    lc = log(d, c)
    w = d.neg(log(d, d.mul(c, d.add(one, a))))
    central = d.lt(w, d.c(5.0))
    t = d.select(central, d.sub(w, d.c(2.5)), d.sub(d.sqrt(w), d.c(3.0)))
    x_giles = d.mul(d.poly_selected(t, central, GILES_CENTRAL, GILES_TAIL), a)
    x = x_giles
    if far_tail:  # erfc(x) ~ exp(-x^2) / (x sqrt(pi)) * (1 - 1/(2 x^2))
        big_l = d.neg(lc)
        x1 = d.sqrt(d.sub(big_l, log(d, d.mul(d.c(SQRT_PI), d.sqrt(big_l)))))
        denom = d.div(d.mul(d.c(SQRT_PI), x1), d.sub(one, d.div(d.c(0.5), d.mul(x1, x1))))
        x_asym = d.sqrt(d.sub(big_l, log(d, denom)))
        x = d.select(d.gt(w, d.c(16.0)), x_asym, x_giles)
    tail = d.ge(a, d.c(0.53))
    for _ in range(iterations):
        step_small = d.mul(d.mul(d.sub(erf_small(d, x), a), d.c(SQRT_PI_OVER_2)), exp_scaled(d, d.mul(x, x)))
        g, hi, lo = erfc_tail_parts(d, x)
        ln_erfc = d.add(d.neg(d.add(hi, lo)), log(d, g))
        step_tail = d.neg(d.mul(d.mul(d.sub(ln_erfc, lc), d.c(SQRT_PI_OVER_2)), g))
        x = d.sub(x, d.select(tail, step_tail, step_small))
    return x


def erfinv(mb: MathBuilder, y: Value) -> Value:
    d = mb.other(ir.DoubleType())
    yd = d.convert(y, d.ty)
    a = d.fabs(yd)
    f64 = mb.bits == 64
    x = _erfinv_core(d, a, d.sub(d.c(1.0), a), 3 if f64 else 1, far_tail=f64)
    x = d.select(d.eq(a, d.c(1.0)), d.c(float("inf")), x)
    x = d.select(d.gt(a, d.c(1.0)), d.c(float("nan")), x)
    x = d.nan_passthrough(yd, d.copysign(x, yd))
    return d.convert(x, mb.ty)


def erfcinv(mb: MathBuilder, z: Value) -> Value:
    d = mb.other(ir.DoubleType())
    zd = d.convert(z, d.ty)
    one, two = d.c(1.0), d.c(2.0)
    upper = d.gt(zd, one)
    c = d.select(upper, d.sub(two, zd), zd)
    a = d.select(upper, d.sub(zd, one), d.sub(one, zd))
    x = _erfinv_core(d, a, c, 3 if mb.bits == 64 else 2)  # float32 z reaches the far tail
    x = d.select(d.eq(c, d.c(0.0)), d.c(float("inf")), x)
    x = d.select(d.or_(d.lt(zd, d.c(0.0)), d.gt(zd, two)), d.c(float("nan")), x)
    x = d.nan_passthrough(zd, d.select(upper, d.neg(x), x))
    return d.convert(x, mb.ty)


FUNCTIONS = {
    (name, kind): fn
    for name, fn in (("erf", erf), ("erfc", erfc), ("erfinv", erfinv), ("erfcinv", erfcinv))
    for kind in ("float", "double")
}
