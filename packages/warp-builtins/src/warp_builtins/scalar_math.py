"""The "Scalar Math" builtins: elementary functions, rounding, min/max/clamp, classification.

Semantics follow NVIDIA Warp: ``sign(x)`` is -1 for ``x < 0`` and 1 otherwise (also for 0);
``step(x)`` is 1 for ``x < 0`` else 0; ``nonzero(x)`` is 0 for ``x == 0`` else 1;
``min(a, b) = a < b ? a : b``, ``max(a, b) = a > b ? a : b`` (for floats, a NaN operand yields
the other operand in either position, as IEEE 754 minNum/maxNum and NVIDIA Warp) and
``clamp(x, low, high) = min(max(low, x), high)``; ``round`` rounds half away from zero,
``rint`` half to even; ``frac(x) = x - trunc(x)``; integer ``abs`` wraps (``abs(INT_MIN)`` is
``INT_MIN``). The cast constructors (``float32(x)``, ...) are registered by warp-core.
"""

from __future__ import annotations

import math
from typing import Any

from llvmlite import ir
from warp.extending import (
    BuiltinRegistry,
    bfloat16, bool as wp_bool, float16, float32, float64, int32, int_types, LowerContext,
)

from warp_builtins.lowering import (
    const,
    float_op,
    float_op_lowering,
    in_float32,
    is_float,
    is_signed,
    less,
)

GROUP = "Scalar Math"
FLOATS = (float16, bfloat16, float32, float64)
INTS = int_types
SCALARS = FLOATS + INTS

#: one-argument float functions: name -> (operation, description)
UNARY_FLOAT: dict[str, tuple[str, str]] = {
    "sin": ("sin", "Return the sine of ``x`` in radians."),
    "cos": ("cos", "Return the cosine of ``x`` in radians."),
    "tan": ("tan", "Return the tangent of ``x`` in radians."),
    "asin": ("asin", "Return the arcsine of ``x`` in radians (NaN outside [-1, 1])."),
    "acos": ("acos", "Return the arccosine of ``x`` in radians (NaN outside [-1, 1])."),
    "atan": ("atan", "Return the arctangent of ``x`` in radians."),
    "sinh": ("sinh", "Return the hyperbolic sine of ``x``."),
    "cosh": ("cosh", "Return the hyperbolic cosine of ``x``."),
    "tanh": ("tanh", "Return the hyperbolic tangent of ``x``."),
    "exp": ("exp", "Return the natural exponential e**x."),
    "log": ("log", "Return the natural logarithm of ``x`` (-inf at 0, NaN for negative x)."),
    "log2": ("log2", "Return the base-2 logarithm of ``x``."),
    "log10": ("log10", "Return the base-10 logarithm of ``x``."),
    "sqrt": ("sqrt", "Return the square root of ``x`` (NaN for negative x)."),
    "cbrt": ("cbrt", "Return the cube root of ``x`` (defined for negative x)."),
    "erf": ("erf", "Return the error function of ``x``."),
    "erfc": ("erfc", "Return the complementary error function 1 - erf(x), accurate for large x."),
    "erfinv": ("erfinv", "Return the inverse error function of ``x`` in [-1, 1]."),
    "erfcinv": ("erfcinv", "Return the inverse complementary error function of ``x`` in [0, 2]."),
    "floor": ("floor", "Return the largest integer value not greater than ``x``."),
    "ceil": ("ceil", "Return the smallest integer value not less than ``x``."),
    "trunc": ("trunc", "Return ``x`` rounded toward zero to an integer value."),
    "round": ("round", "Return ``x`` rounded to the nearest integer value, halfway cases away from zero."),
    "rint": ("roundeven", "Return ``x`` rounded to the nearest integer value, halfway cases to even."),
}

#: two-argument float functions: name -> (operation, parameter names, description)
BINARY_FLOAT: dict[str, tuple[str, tuple[str, str], str]] = {
    "atan2": ("atan2", ("y", "x"), "Return the angle of the point (x, y) in radians, in [-pi, pi]."),
    "pow": ("pow", ("x", "y"), "Return ``x`` raised to the power ``y``."),
    "copysign": ("copysign", ("x", "y"), "Return the magnitude of ``x`` with the sign of ``y``."),
}


# ---------------------------------------------------------------------------------- lowerings


def lower_abs(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    (x,), (t,) = args, types
    if is_float(t):
        return float_op(ctx, "fabs", [x])
    if not is_signed(t):
        return x
    b = ctx.builder
    zero = const(x.type, 0)
    return b.select(b.icmp_signed("<", x, zero), b.sub(zero, x), x)


def lower_sign(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    (x,), (t,) = args, types
    neg = less(ctx, x, const(x.type, 0), t)
    return ctx.builder.select(neg, const(x.type, -1), const(x.type, 1))


def lower_step(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    (x,), (t,) = args, types
    neg = less(ctx, x, const(x.type, 0), t)
    return ctx.builder.select(neg, const(x.type, 1), const(x.type, 0))


def lower_nonzero(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    (x,), (t,) = args, types
    b = ctx.builder
    zero = const(x.type, 0)
    is_zero = b.fcmp_ordered("==", x, zero) if is_float(t) else b.icmp_unsigned("==", x, zero)
    return b.select(is_zero, zero, const(x.type, 1))


def _min(ctx: LowerContext, a: ir.Value, b: ir.Value, t: Any) -> ir.Value:
    bld = ctx.builder
    if is_float(t):  # a < b, or b is NaN: a NaN operand yields the other one, in either position
        return bld.select(bld.or_(bld.fcmp_ordered("<", a, b), bld.fcmp_unordered("uno", b, b)), a, b)
    return bld.select(less(ctx, a, b, t), a, b)


def _max(ctx: LowerContext, a: ir.Value, b: ir.Value, t: Any) -> ir.Value:
    bld = ctx.builder
    if is_float(t):
        return bld.select(bld.or_(bld.fcmp_ordered(">", a, b), bld.fcmp_unordered("uno", b, b)), a, b)
    return bld.select(less(ctx, b, a, t), a, b)


def lower_min(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    return _min(ctx, args[0], args[1], types[0])


def lower_max(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    return _max(ctx, args[0], args[1], types[0])


def lower_clamp(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    x, low, high = args
    t = types[0]
    return _min(ctx, _max(ctx, low, x, t), high, t)


def lower_frac(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    (x,) = args
    return ctx.builder.fsub(x, float_op(ctx, "trunc", [x]))


def _scale_lowering(factor: float):
    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
        return in_float32(ctx, args[0], lambda v: ctx.builder.fmul(v, const(v.type, factor)))

    return lower


def lower_isfinite(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    x = args[0]
    return ctx.builder.fcmp_ordered("!=", float_op(ctx, "fabs", [x]), const(x.type, math.inf))


def lower_isinf(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    x = args[0]
    return ctx.builder.fcmp_ordered("==", float_op(ctx, "fabs", [x]), const(x.type, math.inf))


def lower_isnan(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    x = args[0]
    return ctx.builder.fcmp_unordered("uno", x, x)


def lower_bit_count(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    x = args[0]
    b = ctx.builder
    module = b.module
    symbol = f"llvm.ctpop.i{x.type.width}"
    fn = module.globals.get(symbol) or ir.Function(module, ir.FunctionType(x.type, [x.type]), symbol)
    count = b.call(fn, [x])
    i32 = ir.IntType(32)
    if x.type.width > 32:
        return b.trunc(count, i32)
    if x.type.width < 32:
        return b.zext(count, i32)
    return count


# ---------------------------------------------------------------------------------- registration


def register(registry: BuiltinRegistry) -> None:
    """Add every Scalar Math builtin to ``registry``."""

    def add(name: str, params: dict, result: Any, lower: Any, doc: str, **kw: Any) -> None:
        registry.add(name, params=params, result=result, lower=lower, doc=doc, group=GROUP, **kw)

    for name, (op, doc) in UNARY_FLOAT.items():
        differentiable = name not in ("floor", "ceil", "trunc", "round", "rint")
        for t in FLOATS:
            add(name, {"x": t}, t, float_op_lowering(op), doc, differentiable=differentiable)
    for name, (op, (p, q), doc) in BINARY_FLOAT.items():
        for t in FLOATS:
            add(name, {p: t, q: t}, t, float_op_lowering(op), doc)

    for t in SCALARS:
        add(
            "abs",
            {"x": t},
            t,
            lower_abs,
            "Return the absolute value of ``x`` (integers wrap at the minimum).",
        )
        add("sign", {"x": t}, t, lower_sign, "Return -1 if ``x`` < 0, else 1.", differentiable=False)
        add("step", {"x": t}, t, lower_step, "Return 1 if ``x`` < 0, else 0.", differentiable=False)
        add(
            "nonzero", {"x": t}, t, lower_nonzero, "Return 1 if ``x`` is not 0, else 0.", differentiable=False
        )
        add("min", {"a": t, "b": t}, t, lower_min, "Return the smaller of ``a`` and ``b``.")
        add("max", {"a": t, "b": t}, t, lower_max, "Return the larger of ``a`` and ``b``.")
        add(
            "clamp",
            {"x": t, "low": t, "high": t},
            t,
            lower_clamp,
            "Return ``x`` limited to the range [``low``, ``high``].",
        )
    for t in INTS:
        add(
            "bit_count",
            {"x": t},
            int32,
            lower_bit_count,
            "Return the number of bits set in the two's complement representation of ``x``.",
            differentiable=False,
        )
    for t in FLOATS:
        add("frac", {"x": t}, t, lower_frac, "Return the fractional part of ``x``, that is x - trunc(x).")
        add(
            "degrees", {"x": t}, t, _scale_lowering(180.0 / math.pi), "Convert ``x`` from radians to degrees."
        )
        add(
            "radians", {"x": t}, t, _scale_lowering(math.pi / 180.0), "Convert ``x`` from degrees to radians."
        )
        add("isfinite", {"a": t}, wp_bool, lower_isfinite,
            "Return True if ``a`` is neither infinite nor NaN.", differentiable=False)  # fmt: skip
        add("isinf", {"a": t}, wp_bool, lower_isinf, "Return True if ``a`` is positive or negative infinity.",
            differentiable=False)  # fmt: skip
        add("isnan", {"a": t}, wp_bool, lower_isnan, "Return True if ``a`` is NaN.", differentiable=False)
