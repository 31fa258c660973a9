"""Plugin module named by this package's ``warp`` entry point."""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from warp.extending import BuiltinRegistry, Float, LowerContext, TypeVar, hookimpl

F = TypeVar("F", Float)


def _lower_smooth_relu(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    """smooth_relu(x) = x for x > 0, else x*x / (1 + x*x) * -0.5 (differentiable at 0)."""
    b = ctx.builder
    (x,) = args
    one = ir.Constant(x.type, 1.0)
    half = ir.Constant(x.type, -0.5)
    x2 = b.fmul(x, x)
    neg = b.fmul(b.fdiv(x2, b.fadd(one, x2)), half)
    return b.select(b.fcmp_ordered(">", x, ir.Constant(x.type, 0.0)), x, neg)


def _lower_fma3(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    return ctx.call_intrinsic("llvm.fma", args)


@hookimpl
def warp_register_builtins(registry: BuiltinRegistry) -> None:
    registry.add("smooth_relu", params=[("x", F)], result=F, lower=_lower_smooth_relu,
                 doc="Identity for positive x, a smooth bounded negative branch otherwise.", group="Example")
    registry.add("fma3", params=[("a", F), ("b", F), ("c", F)], result=F, lower=_lower_fma3,
                 doc="Fused multiply-add a * b + c.", group="Example")


@hookimpl
def warp_exports() -> dict[str, Any]:
    return {"EXAMPLE_PLUGIN_VERSION": "0.1.0"}
