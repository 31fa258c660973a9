"""Rules for the scalar math builtins of warp-builtins (``wp.sin``, ``wp.exp``, ``wp.pow``, ...).

Rules are registered by name whether or not the builtin is installed; a rule that needs another
builtin (``sin`` needs ``cos``) resolves it when a kernel is differentiated. Where the result
gives the derivative cheaply (``exp``, ``sqrt``, ``tanh``, ``tan``) the rule reuses it.
Conventions at kinks follow NVIDIA Warp (``abs`` takes the positive branch at 0, ``min`` the
second argument on ties, ``clamp`` the bound when outside).
"""

from __future__ import annotations

import math
from typing import Any

from warp.extending import is_scalar_type, derivative, zero_derivative

from warp_autodiff import ops
from warp_autodiff.rules.context import RuleContext


def _scalars(types: list[Any]) -> bool:
    return all(is_scalar_type(t) for t in types)


def unary(*names: str, primal_args: tuple[int, ...] = (0,)):
    """Register ``fn(ctx, x, y) -> dy/dx`` (y the result) as the rule of scalar builtins."""

    def wrap(fn: Any) -> Any:
        def backward(ctx: RuleContext) -> list[Any]:
            if not ctx.wants(0):
                return [None]
            return [ctx.e.mul(ctx.adj_out, fn(ctx.e, ctx.args[0], ctx.results[0]))]

        for name in names:
            derivative(name, applies=_scalars, primal_args=primal_args)(backward)
        return fn

    return wrap


def _c(e: Any, value: float, like: Any) -> Any:
    return e.scalar(value, like)


@unary("sin")
def _sin(e: Any, x: Any, y: Any) -> Any:
    return e.call("cos", x)


@unary("cos")
def _cos(e: Any, x: Any, y: Any) -> Any:
    return e.neg(e.call("sin", x))


@unary("tan")
def _tan(e: Any, x: Any, y: Any) -> Any:
    return e.add(_c(e, 1.0, x), e.mul(y, y))


@unary("exp")
def _exp(e: Any, x: Any, y: Any) -> Any:
    return y


@unary("log")
def _log(e: Any, x: Any, y: Any) -> Any:
    return e.div(_c(e, 1.0, x), x)


@unary("log2")
def _log2(e: Any, x: Any, y: Any) -> Any:
    return e.div(_c(e, 1.0 / math.log(2.0), x), x)


@unary("log10")
def _log10(e: Any, x: Any, y: Any) -> Any:
    return e.div(_c(e, 1.0 / math.log(10.0), x), x)


@unary("sqrt")
def _sqrt(e: Any, x: Any, y: Any) -> Any:
    return e.div(_c(e, 0.5, x), y)


@unary("cbrt")
def _cbrt(e: Any, x: Any, y: Any) -> Any:
    return e.div(_c(e, 1.0 / 3.0, x), e.mul(y, y))


@unary("sinh")
def _sinh(e: Any, x: Any, y: Any) -> Any:
    return e.call("cosh", x)


@unary("cosh")
def _cosh(e: Any, x: Any, y: Any) -> Any:
    return e.call("sinh", x)


@unary("tanh")
def _tanh(e: Any, x: Any, y: Any) -> Any:
    return e.sub(_c(e, 1.0, x), e.mul(y, y))


@unary("asin")
def _asin(e: Any, x: Any, y: Any) -> Any:
    return e.div(_c(e, 1.0, x), e.call("sqrt", e.sub(_c(e, 1.0, x), e.mul(x, x))))


@unary("acos")
def _acos(e: Any, x: Any, y: Any) -> Any:
    return e.div(_c(e, -1.0, x), e.call("sqrt", e.sub(_c(e, 1.0, x), e.mul(x, x))))


@unary("atan")
def _atan(e: Any, x: Any, y: Any) -> Any:
    return e.div(_c(e, 1.0, x), e.add(_c(e, 1.0, x), e.mul(x, x)))


@unary("erf")
def _erf(e: Any, x: Any, y: Any) -> Any:
    return e.mul(_c(e, 2.0 / math.sqrt(math.pi), x), e.call("exp", e.neg(e.mul(x, x))))


@unary("erfc")
def _erfc(e: Any, x: Any, y: Any) -> Any:
    return e.mul(_c(e, -2.0 / math.sqrt(math.pi), x), e.call("exp", e.neg(e.mul(x, x))))


@unary("erfinv")
def _erfinv(e: Any, x: Any, y: Any) -> Any:
    return e.mul(_c(e, math.sqrt(math.pi) / 2.0, x), e.call("exp", e.mul(y, y)))


@unary("erfcinv")
def _erfcinv(e: Any, x: Any, y: Any) -> Any:
    return e.mul(_c(e, -math.sqrt(math.pi) / 2.0, x), e.call("exp", e.mul(y, y)))


@unary("degrees", primal_args=())
def _degrees(e: Any, x: Any, y: Any) -> Any:
    return _c(e, 180.0 / math.pi, x)


@unary("radians", primal_args=())
def _radians(e: Any, x: Any, y: Any) -> Any:
    return _c(e, math.pi / 180.0, x)


@derivative("frac", applies=_scalars, primal_args=())
def _frac(ctx: RuleContext) -> list[Any]:
    return [ctx.adj_out]


@derivative("abs", applies=_scalars)
def _abs(ctx: RuleContext) -> list[Any]:
    (x,) = ctx.args
    e, g = ctx.e, ctx.adj_out
    return [e.select(e.cmp("lt", x, _c(e, 0.0, x)), e.neg(g), g)]


def picks_first(e: Any, name: str, a: Any, b: Any) -> Any:
    """Whether ``min``/``max(a, b)`` returned ``a``: it is smaller (larger), or ``b`` is NaN (the
    builtins drop a NaN operand, as C's fmin/fmax do); ties and a NaN ``a`` give ``b``."""
    first = e.cmp("lt" if name == "min" else "gt", a, b)
    if a.type._kind_ != "float":
        return first
    return e.call("logical_or", first, e.call("isnan", b))


@derivative("min", "max", applies=_scalars)
def _min_max(ctx: RuleContext) -> list[Any]:
    a, b = ctx.args
    e, g = ctx.e, ctx.adj_out
    first = picks_first(e, ctx.name, a, b)
    zero = e.zero(a.type)
    return [
        e.select(first, g, zero) if ctx.wants(0) else None,
        e.select(first, zero, g) if ctx.wants(1) else None,
    ]


@derivative("clamp", applies=_scalars)
def _clamp(ctx: RuleContext) -> list[Any]:
    """``clamp(x, lo, hi) = min(max(lo, x), hi)`` with NaN-dropping min/max: the gradient goes to
    the operand the result came from (``clamp(NaN, lo, hi)`` is ``min(lo, hi)``)."""
    x, lo, hi = ctx.args
    e, g = ctx.e, ctx.adj_out
    zero = e.zero(x.type)
    take_lo = picks_first(e, "max", lo, x)
    take_mid = picks_first(e, "min", e.call("max", lo, x), hi)
    return [
        e.select(e.call("logical_and", take_mid, e.call("unot", take_lo)), g, zero) if ctx.wants(0) else None,
        e.select(e.call("logical_and", take_mid, take_lo), g, zero) if ctx.wants(1) else None,
        e.select(take_mid, zero, g) if ctx.wants(2) else None,
    ]


@derivative("atan2", applies=_scalars)
def _atan2(ctx: RuleContext) -> list[Any]:
    y, x = ctx.args
    e, g = ctx.e, ctx.adj_out
    scale = e.div(g, e.add(e.mul(x, x), e.mul(y, y)))
    return [e.mul(scale, x) if ctx.wants(0) else None, e.neg(e.mul(scale, y)) if ctx.wants(1) else None]


@derivative("pow", applies=_scalars)
def _pow(ctx: RuleContext) -> list[Any]:
    x, y = ctx.args
    e, g, r = ctx.e, ctx.adj_out, ctx.results[0]
    dx = e.mul(g, e.mul(y, e.call("pow", x, e.sub(y, _c(e, 1.0, y))))) if ctx.wants(0) else None
    dy = e.mul(g, e.mul(e.call("log", x), r)) if ctx.wants(1) else None
    return [dx, dy]


@derivative("copysign", applies=_scalars)
def _copysign(ctx: RuleContext) -> list[Any]:
    x, y = ctx.args
    e, g = ctx.e, ctx.adj_out
    one = _c(e, 1.0, x)
    sign = e.mul(e.call("copysign", one, x), e.call("copysign", one, y))
    return [e.mul(g, sign) if ctx.wants(0) else None, None]


@derivative("lerp", applies=_scalars)
def _lerp(ctx: RuleContext) -> list[Any]:
    """a + t * (b - a)."""
    a, b, t = ctx.args
    e, g = ctx.e, ctx.adj_out
    return [
        e.mul(g, e.sub(_c(e, 1.0, t), t)) if ctx.wants(0) else None,
        e.mul(g, t) if ctx.wants(1) else None,
        e.mul(g, e.sub(b, a)) if ctx.wants(2) else None,
    ]


@derivative("smoothstep", applies=_scalars)
def _smoothstep(ctx: RuleContext) -> list[Any]:
    """s(t) = t^2 (3 - 2t), t = clamp((x - a) / (b - a), 0, 1); ds/dt = 6 t (1 - t)."""
    a, b, x = ctx.args
    e, g = ctx.e, ctx.adj_out
    width = e.sub(b, a)
    t = e.div(e.sub(x, a), width)
    zero, one = _c(e, 0.0, x), _c(e, 1.0, x)
    t = e.select(e.cmp("lt", t, zero), zero, e.select(e.cmp("gt", t, one), one, t))
    ds = e.div(e.mul(g, e.mul(_c(e, 6.0, x), e.mul(t, e.sub(one, t)))), width)
    return [
        e.mul(ds, e.sub(t, one)) if ctx.wants(0) else None,
        e.neg(e.mul(ds, t)) if ctx.wants(1) else None,
        ds if ctx.wants(2) else None,
    ]


def _select_like(true_index: int, false_index: int):
    def backward(ctx: RuleContext) -> list[Any]:
        cond = ctx.args[0]
        e, g = ctx.e, ctx.adj_out
        if not (is_scalar_type(cond.type) and cond.type._kind_ == "bool"):
            cond = e.cmp("ne", cond, e.zero(cond.type))
        zero = e.zero(ctx.op.results[0].type)
        out: list[Any] = [None, None, None]
        if ctx.wants(true_index):
            out[true_index] = e.select(cond, g, zero)
        if ctx.wants(false_index):
            out[false_index] = e.select(cond, zero, g)
        return out

    return backward


derivative("where", primal_args=(0,))(_select_like(1, 2))  # where(cond, value_if_true, value_if_false)
derivative("select", primal_args=(0,))(_select_like(2, 1))  # select(cond, value_if_false, value_if_true)
derivative(ops.SELECT, primal_args=(0,))(_select_like(1, 2))  # in adjoint functions: cond ? a : b

zero_derivative("floor", "ceil", "round", "rint", "trunc", "sign", "step", "nonzero", "isfinite", "isinf",
                "isnan", "bit_count")
