"""sinh, cosh, tanh for float32 and float64 from the exp/expm1 cores (branch-free).

With ``a = |x|`` and ``E = expm1(a)`` (accurate near 0):

* ``sinh(a) = a + a^3 P(a^2)`` (minimax) for ``a < 1``, ``(E + E / (E + 1)) / 2`` for moderate
  ``a``, ``e^a / 2`` (scaled without overflow) once ``e^-a`` no longer matters;
* ``cosh(a) = h + 1 / (4 h)`` with ``h = e^a / 2``;
* ``tanh(a) = -F / (F + 2)`` with ``F = expm1(-2 a)`` for ``a < 0.55``, else
  ``1 - 2 / (e^(2a) + 1)``.
"""

from __future__ import annotations

from warp_builtins.mathlib.explog import exp_scaled, expm1_small
from warp_builtins.mathlib.irutil import MathBuilder, Value

# sinh(a) = a + a^3 * P(a^2), a <= 1
SINH32 = (0.1666666716337204, 0.00833333283662796, 0.00019841296307276934, 2.7551934635994257e-06,
          2.5538254178059105e-08)  # fmt: skip
SINH64 = (0.16666666666666666, 0.008333333333333333, 0.000198412698412696, 2.755731922411629e-06,
          2.50521083465088e-08, 1.6059050601294593e-10, 7.646482893203521e-13,
          2.8482330845601394e-15)  # fmt: skip


def sinh(mb: MathBuilder, x: Value) -> Value:
    a = mb.fabs(x)
    threshold = 40.0 if mb.bits == 64 else 20.0
    em1 = expm1_small(mb, mb.minnum(a, mb.c(threshold)))
    moderate = mb.mul(mb.c(0.5), mb.add(em1, mb.div(em1, mb.add(em1, mb.c(1.0)))))
    large = exp_scaled(mb, a, extra_k=-1)
    res = mb.select(mb.lt(a, mb.c(threshold)), moderate, large)
    z = mb.mul(a, a)
    small = mb.fma(mb.mul(a, z), mb.poly(z, SINH64 if mb.bits == 64 else SINH32), a)
    res = mb.select(mb.lt(a, mb.c(1.0)), small, res)
    return mb.nan_passthrough(x, mb.copysign(res, x))


def cosh(mb: MathBuilder, x: Value) -> Value:
    h = exp_scaled(mb, mb.fabs(x), extra_k=-1)
    return mb.nan_passthrough(x, mb.add(h, mb.div(mb.c(0.25), h)))


def tanh(mb: MathBuilder, x: Value) -> Value:
    a = mb.fabs(x)
    f = expm1_small(mb, mb.mul(mb.c(-2.0), a))
    small = mb.div(mb.neg(f), mb.add(f, mb.c(2.0)))
    e2a = exp_scaled(mb, mb.mul(mb.c(2.0), a))
    large = mb.sub(mb.c(1.0), mb.div(mb.c(2.0), mb.add(e2a, mb.c(1.0))))
    res = mb.select(mb.lt(a, mb.c(0.55)), small, large)
    return mb.nan_passthrough(x, mb.copysign(res, x))


FUNCTIONS = {
    (name, kind): fn
    for name, fn in (("sinh", sinh), ("cosh", cosh), ("tanh", tanh))
    for kind in ("float", "double")
}
