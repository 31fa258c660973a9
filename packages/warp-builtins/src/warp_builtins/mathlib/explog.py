"""exp, exp2, log, log2, log10 (float32 and float64) and the cores other families reuse.

exp:  ``x = k ln2 + r``, ``|r| <= ln2/2`` (two-part ln2 with fma), ``e^r = 1 + r + r^2 E(r)``
      (minimax), scaled by ``2^k`` in two steps so overflow gives inf and underflow is gradual.
log:  ``x = 2^e m`` with ``m`` in ``[sqrt(1/2), sqrt(2))`` (subnormals prescaled), ``f = m - 1``;
      float32: ``log1p(f) = f - f^2/2 + f^3 L(f)``; float64: fdlibm's
      ``log1p(f) = f - hfsq + s (hfsq + R(s^2))`` with ``s = f / (2 + f)``.
"""

from __future__ import annotations

from warp_builtins.mathlib.irutil import MathBuilder, Value

# exp(r) = 1 + r + r^2 * E(r), |r| <= ln2/2
EXP32 = (
    0.4999999403953552,
    0.16666515171527863,
    0.04166845604777336,
    0.008369418792426586,
    0.0013813144760206342,
)
EXP64 = (
    0.5,
    0.16666666666666685,
    0.04166666666666603,
    0.008333333333315703,
    0.0013888888889134188,
    0.0001984126989972707,
    2.4801586903849093e-05,
    2.7557231481898093e-06,
    2.7557592374273843e-07,
    2.5113226424682948e-08,
    2.0825636414622886e-09,
)
# log1p(f) = f - f^2/2 + f^3 * L(f), f in [sqrt(1/2) - 1, sqrt(2) - 1]  (float32)
LOG32 = (
    0.3333333134651184,
    -0.2500081956386566,
    0.20001226663589478,
    -0.16623356938362122,
    0.14201757311820984,
    -0.13160181045532227,
    0.1276157796382904,
    -0.07634498924016953,
)
# 2 atanh(s) = 2 s + s * z * R(z), z = s^2 <= 0.0295  (float64)
LOG64 = (
    0.666666666666674,
    0.3999999999937978,
    0.28571428750909106,
    0.22222197626822812,
    0.18183616988460266,
    0.1531261969720265,
    0.14811055017415128,
)

_CONST = {
    # name: (float64 value, float32 hi, float32 lo) ; float64 lo where needed
    "ln2": (0.6931471805599453, 2.3190468138462996e-17, 0.6931471824645996, -1.9046542121259336e-09),
    "log2e": (1.4426950408889634, 2.0355273740931033e-17, 1.4426950216293335, 1.925963033500011e-08),
    "log10e": (0.4342944819032518, 1.098319650216765e-17, 0.4342944920063019, -1.0103049952192578e-08),
    "log10_2": (0.3010299956639812, -2.8037281277851704e-18, 0.3010300099849701, -1.432098883924482e-08),
}


def hilo(mb: MathBuilder, name: str) -> tuple[float, float]:
    """The (hi, lo) split of a constant for the builder's precision."""
    h64, l64, h32, l32 = _CONST[name]
    return (h64, l64) if mb.bits == 64 else (h32, l32)


def exp_limits(mb: MathBuilder) -> tuple[float, float]:
    """Arguments beyond which exp underflows to 0 / overflows to inf."""
    return (-746.0, 711.0) if mb.bits == 64 else (-104.0, 90.0)


# ---------------------------------------------------------------------------------- exp family


def exp_core(mb: MathBuilder, x: Value) -> tuple[Value, Value]:
    """``(q, k)`` with ``e^x = 2^k (1 + q)``, ``|q| < 0.42``; ``x`` must be finite and clamped."""
    k, ki = mb.round_magic(x, hilo(mb, "log2e")[0])
    ln2_hi, ln2_lo = hilo(mb, "ln2")
    r = mb.fma(mb.neg(k), mb.c(ln2_hi), x)
    r = mb.fma(mb.neg(k), mb.c(ln2_lo), r)
    q = mb.fma(mb.mul(r, r), mb.poly(r, EXP64 if mb.bits == 64 else EXP32), r)
    return q, ki


def exp_scaled(mb: MathBuilder, x: Value, extra_k: int = 0) -> Value:
    """``e^x * 2^extra_k`` with clamping (NaN input gives a number: callers pass NaN through)."""
    lo, hi = exp_limits(mb)
    q, k = exp_core(mb, mb.clamp(x, lo, hi))
    if extra_k:
        k = mb.b.add(k, mb.ic(extra_k))
    return mb.scale(mb.add(mb.c(1.0), q), k)


def expm1_small(mb: MathBuilder, x: Value) -> Value:
    """``e^x - 1`` accurate in relative terms, for ``x`` in ``[-inf, 80]`` (NaN gives a number)."""
    q, k = exp_core(mb, mb.clamp(x, -40.0, 80.0))
    two_k = mb.pow2(k)
    return mb.fma(two_k, q, mb.sub(two_k, mb.c(1.0)))


def exp(mb: MathBuilder, x: Value) -> Value:
    return mb.nan_passthrough(x, exp_scaled(mb, x))


def exp2(mb: MathBuilder, x: Value) -> Value:
    lim = 1076.0 if mb.bits == 64 else 151.0
    xc = mb.clamp(x, -lim, lim)
    k, ki = mb.round_magic(xc)
    r = mb.sub(xc, k)  # exact
    ln2 = hilo(mb, "ln2")[0]
    t = mb.mul(r, mb.c(ln2))
    t_lo = mb.fma(r, mb.c(ln2), mb.neg(t))
    q, k2 = exp_core(mb, t)  # |t| <= ln2/2, so k2 == 0
    q = mb.fma(t_lo, mb.add(mb.c(1.0), q), q)
    return mb.nan_passthrough(x, mb.scale(mb.add(mb.c(1.0), q), mb.b.add(ki, k2)))


# ---------------------------------------------------------------------------------- log family


def log_core(mb: MathBuilder, x: Value) -> tuple[Value, Value, Value]:
    """``(e, f, tail)`` with ``log(x) = e ln2 + f + tail`` for finite ``x > 0`` (``e`` as float)."""
    b = mb.b
    tiny = 2.0 ** (-1022 if mb.bits == 64 else -126)
    pre = 54 if mb.bits == 64 else 23
    sub = mb.lt(x, mb.c(tiny))
    xs = mb.select(sub, mb.mul(x, mb.c(2.0**pre)), x)
    eoff = b.select(sub, mb.ic(-pre), mb.ic(0))
    sqrt_half = mb.bits_of(0.7071067811865476)
    ix = b.sub(mb.as_int(xs), sqrt_half)
    e = b.add(b.ashr(ix, mb.ic(mb.mant_bits)), eoff)
    m = mb.as_float(b.add(b.and_(ix, mb.ic((1 << mb.mant_bits) - 1)), sqrt_half))
    f = mb.sub(m, mb.c(1.0))  # exact
    if mb.bits == 32:
        z = mb.mul(f, f)
        tail = mb.fma(mb.mul(z, f), mb.poly(f, LOG32), mb.mul(mb.c(-0.5), z))
    else:
        s = mb.div(f, mb.add(mb.c(2.0), f))
        z = mb.mul(s, s)
        r = mb.mul(z, mb.poly(z, LOG64))
        hfsq = mb.mul(mb.mul(mb.c(0.5), f), f)
        tail = mb.fma(s, mb.add(hfsq, r), mb.neg(hfsq))
    return mb.sitofp(e), f, tail


def log_specials(mb: MathBuilder, x: Value, result: Value) -> Value:
    """Apply log's special values: 0 -> -inf, negative -> NaN, +inf -> +inf, NaN -> NaN."""
    inf = float("inf")
    result = mb.select(mb.eq(x, mb.c(0.0)), mb.c(-inf), result)
    result = mb.select(mb.lt(x, mb.c(0.0)), mb.c(float("nan")), result)
    result = mb.select(mb.eq(x, mb.c(inf)), mb.c(inf), result)
    return mb.nan_passthrough(x, result)


def log(mb: MathBuilder, x: Value) -> Value:
    e, f, tail = log_core(mb, x)
    hi, lo = hilo(mb, "ln2")
    res = mb.fma(e, mb.c(hi), mb.add(f, mb.fma(e, mb.c(lo), tail)))
    return log_specials(mb, x, res)


def log2_parts(mb: MathBuilder, e: Value, f: Value, tail: Value) -> Value:
    """``log2(x)`` from :func:`log_core`'s parts."""
    hi, lo = hilo(mb, "log2e")
    c = mb.fma(f, mb.c(hi), mb.fma(f, mb.c(lo), mb.mul(tail, mb.c(hi))))
    return mb.add(e, c)


def log2(mb: MathBuilder, x: Value) -> Value:
    return log_specials(mb, x, log2_parts(mb, *log_core(mb, x)))


def log10(mb: MathBuilder, x: Value) -> Value:
    e, f, tail = log_core(mb, x)
    hi, lo = hilo(mb, "log10e")
    c = mb.fma(f, mb.c(hi), mb.fma(f, mb.c(lo), mb.mul(tail, mb.c(hi))))
    g_hi, g_lo = hilo(mb, "log10_2")
    res = mb.fma(e, mb.c(g_hi), mb.fma(e, mb.c(g_lo), c))
    return log_specials(mb, x, res)


FUNCTIONS = {
    (name, kind): fn
    for name, fn in (("exp", exp), ("exp2", exp2), ("log", log), ("log2", log2), ("log10", log10))
    for kind in ("float", "double")
}
