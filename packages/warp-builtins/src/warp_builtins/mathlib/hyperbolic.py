"""sinh, cosh, tanh for float32 and float64 from the exp/expm1 cores (branch-free).

With ``a = |x|`` and ``E = expm1(a)`` (accurate near 0):

* ``sinh(a) = (E + E / (E + 1)) / 2`` for moderate ``a``, ``e^a / 2`` (scaled without
  overflow) once ``e^-a`` no longer matters;
* ``cosh(a) = h + 1 / (4 h)`` with ``h = e^a / 2``;
* ``tanh(a) = -F / (F + 2)`` with ``F = expm1(-2 a)``.
"""

from __future__ import annotations

from warp_builtins.mathlib.explog import exp_scaled, expm1_small
from warp_builtins.mathlib.irutil import MathBuilder, Value


def sinh(mb: MathBuilder, x: Value) -> Value:
    a = mb.fabs(x)
    threshold = 40.0 if mb.bits == 64 else 20.0
    em1 = expm1_small(mb, mb.minnum(a, mb.c(threshold)))
    moderate = mb.mul(mb.c(0.5), mb.add(em1, mb.div(em1, mb.add(em1, mb.c(1.0)))))
    large = exp_scaled(mb, a, extra_k=-1)
    res = mb.select(mb.lt(a, mb.c(threshold)), moderate, large)
    return mb.nan_passthrough(x, mb.copysign(res, x))


def cosh(mb: MathBuilder, x: Value) -> Value:
    h = exp_scaled(mb, mb.fabs(x), extra_k=-1)
    return mb.nan_passthrough(x, mb.add(h, mb.div(mb.c(0.25), h)))


def tanh(mb: MathBuilder, x: Value) -> Value:
    a = mb.fabs(x)
    f = expm1_small(mb, mb.mul(mb.c(-2.0), a))
    res = mb.div(mb.neg(f), mb.add(f, mb.c(2.0)))
    return mb.nan_passthrough(x, mb.copysign(res, x))


FUNCTIONS = {
    (name, kind): fn
    for name, fn in (("sinh", sinh), ("cosh", cosh), ("tanh", tanh))
    for kind in ("float", "double")
}
