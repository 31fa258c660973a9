"""Scalar overloads of the "Utility" builtins ``lerp`` and ``smoothstep``.

``lerp(a, b, t) = a * (1 - t) + b * t`` and
``smoothstep(a, b, x) = s * s * (3 - 2 s)`` with ``s = clamp((x - a) / (b - a), 0, 1)``, as in
NVIDIA Warp (float16 arithmetic rounds after every operation, like Warp's half type).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from warp.extending import bfloat16, float16, float32, float64, LowerContext, BuiltinRegistry

from warp_builtins.lowering import const

GROUP = "Utility"
FLOATS = (float16, bfloat16, float32, float64)


def lower_lerp(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    a, b, t = args
    bld = ctx.builder
    one_minus_t = bld.fsub(const(t.type, 1.0), t)
    return bld.fadd(bld.fmul(a, one_minus_t), bld.fmul(b, t))


def lower_smoothstep(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    a, b, x = args
    bld = ctx.builder
    zero, one = const(x.type, 0.0), const(x.type, 1.0)
    s = bld.fdiv(bld.fsub(x, a), bld.fsub(b, a))
    s = bld.select(bld.fcmp_ordered(">", zero, s), zero, s)  # max(0, s)
    s = bld.select(bld.fcmp_ordered("<", s, one), s, one)  # min(s, 1)
    poly = bld.fsub(const(x.type, 3.0), bld.fmul(const(x.type, 2.0), s))
    return bld.fmul(bld.fmul(s, s), poly)


def register(registry: BuiltinRegistry) -> None:
    """Add the scalar ``lerp`` and ``smoothstep`` overloads to ``registry``."""
    for t in FLOATS:
        registry.add(
            "lerp",
            params={"a": t, "b": t, "t": t},
            result=t,
            lower=lower_lerp,
            doc="Linearly interpolate from ``a`` (t = 0) to ``b`` (t = 1): a * (1 - t) + b * t.",
            group=GROUP,
        )
        registry.add(
            "smoothstep",
            params={"a": t, "b": t, "x": t},
            result=t,
            lower=lower_smoothstep,
            doc="Smooth Hermite step from 0 at ``x`` = ``a`` to 1 at ``x`` = ``b``.",
            group=GROUP,
        )
