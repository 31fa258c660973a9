"""Random numbers in kernels: a 32-bit state advanced by a PCG hash, and samplers built on it.

``state = wp.rand_init(seed, offset)`` makes a state; each draw (``wp.randf(state)``, ...)
returns a value and advances the state. In the IR values are immutable, so these builtins
return ``(value, new_state)`` and are flagged ``mutates_first_arg``: the frontend rebinds the
variable passed as ``state`` to the new state. The same (seed, offset) always gives the same
sequence, on every target.

The hash is the PCG-RXS-M-XS 32-bit output permutation (Jarzynski & Olano, "Hash Functions
for GPU Rendering", 2020)::

    b = state * 747796405 + 2891336453
    c = ((b >> ((b >> 28) + 4)) ^ b) * 277803737
    next = (c >> 22) ^ c
"""

from __future__ import annotations

import math
from typing import Any, Callable

import llvmlite.ir as ir

from warp.extending import (
    BuiltinRegistry,
    LowerContext,
    ArrayOf, float32, float64, Int, int32, lowering_types as lt, uint32, vector, element_pointer,
)
from warp_builtins.irexpr import Emitter, Num, branch, mark_mutating, while_loop

GROUP = "Random"
U32 = ir.IntType(32)


# ---------------------------------------------------------------------------------- the hash


def _u32(value: int) -> ir.Constant:
    return ir.Constant(U32, value & 0xFFFFFFFF)


def pcg(b: ir.IRBuilder, state: ir.Value) -> ir.Value:
    """The next state (and raw 32-bit output) after ``state``."""
    x = b.add(b.mul(state, _u32(747796405)), _u32(2891336453))
    shift = b.add(b.lshr(x, _u32(28)), _u32(4))
    x = b.mul(b.xor(b.lshr(x, shift), x), _u32(277803737))
    return b.xor(b.lshr(x, _u32(22)), x)


def _to_u32(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    width = value.type.width
    if width > 32:
        return b.trunc(value, U32)
    if width < 32:
        return b.sext(value, U32)
    return value


class Draws:
    """A random state threaded through a lowering: each draw advances it."""

    def __init__(self, ctx: LowerContext, state: ir.Value):
        self.ctx = ctx
        self.b: ir.IRBuilder = ctx.builder
        self.state = state

    def bits(self) -> ir.Value:
        """Advance the state and return it (32 random bits)."""
        self.state = pcg(self.b, self.state)
        return self.state

    def unit(self, em: Emitter) -> Num:
        """A uniform float in [0, 1) with 24 random bits (exactly representable in float32)."""
        top = self.b.lshr(self.bits(), _u32(8))
        return em.lift(Num(em, self.b.uitofp(top, em.ty))) * (1.0 / 16777216.0)


# ---------------------------------------------------------------------------------- samplers


def _randn(em: Emitter, d: Draws) -> Num:
    """Standard normal (Box-Muller) of two draws u1, u2 in [0, 1), as NVIDIA Warp samples it:
    sqrt(-2 log(u1 + FLT_EPSILON)) cos(2 pi u2) (the epsilon keeps the logarithm finite)."""
    u1 = d.unit(em) + _FLT_EPSILON
    u2 = d.unit(em)
    return em.sqrt(em.log(u1) * -2.0) * em.cos(u2 * (2.0 * math.pi))


#: float32 machine epsilon (2**-23)
_FLT_EPSILON = 2.0**-23


def _disk(em: Emitter, d: Draws) -> list[Num]:
    r = em.sqrt(d.unit(em))
    phi = d.unit(em) * (2.0 * math.pi)
    return [r * em.cos(phi), r * em.sin(phi)]


def _ring(em: Emitter, d: Draws) -> list[Num]:
    phi = d.unit(em) * (2.0 * math.pi)
    return [em.cos(phi), em.sin(phi)]


def _sphere_surface(em: Emitter, d: Draws, lower: float) -> list[Num]:
    """Uniform on the unit sphere (lower = -1) or the z >= 0 hemisphere (lower = 0)."""
    z = 1.0 - d.unit(em) * (1.0 - lower)  # z uniform in (lower, 1]
    r = em.sqrt(em.max(1.0 - z * z, 0.0))
    phi = d.unit(em) * (2.0 * math.pi)
    return [r * em.cos(phi), r * em.sin(phi), z]


def _ball(em: Emitter, d: Draws, lower: float) -> list[Num]:
    """Uniform inside the unit ball (lower = -1) or half ball z >= 0 (lower = 0)."""
    direction = _sphere_surface(em, d, lower)
    r = em.cbrt(d.unit(em))
    return [c * r for c in direction]


def _triangle(em: Emitter, d: Draws) -> list[Num]:
    """Barycentric (u, v) uniform over a triangle (the third weight is 1 - u - v)."""
    r = em.sqrt(d.unit(em))
    return [1.0 - r, d.unit(em) * r]


def _square(em: Emitter, d: Draws, n: int) -> list[Num]:
    return [d.unit(em) - 0.5 for _ in range(n)]


def _poisson(ctx: LowerContext, state: ir.Value, lam: ir.Value) -> tuple[ir.Value, ir.Value]:
    """Poisson sample: Knuth's product method for lam < 10, Hoermann's PTRS above."""
    b = ctx.builder
    em = Emitter(ctx, float64)
    lam64 = em.wrap(b.fpext(lam, em.ty))
    small = lam64 < 10.0

    def knuth() -> list[ir.Value]:
        limit = em.exp(-lam64)

        def cond(vals: list[ir.Value]) -> ir.Value:
            return Num(em, vals[2]) > limit

        def body(vals: list[ir.Value]) -> list[ir.Value]:
            d = Draws(ctx, vals[0])
            p = Num(em, vals[2]) * d.unit(em)
            return [d.state, b.add(vals[1], _u32(1)), p.v]

        st, k, _ = while_loop(ctx, [state, _u32(0), em.const(1.0).v], cond, body, "poisson.knuth")
        # the loop counts the draws including the one that dropped below the limit
        return [st, b.select(b.icmp_unsigned("==", k, _u32(0)), k, b.sub(k, _u32(1)))]

    def ptrs() -> list[ir.Value]:
        slam = em.sqrt(lam64)
        loglam = em.log(lam64)
        bb = slam * 2.53 + 0.931
        a = bb * 0.02483 - 0.059
        inv_alpha = 1.1239 + 1.1328 / (bb - 3.4)
        vr = 0.9277 - 3.6224 / (bb - 2.0)
        log_inv_alpha = em.log(inv_alpha)

        def cond(vals: list[ir.Value]) -> ir.Value:
            return b.not_(vals[2])

        def body(vals: list[ir.Value]) -> list[ir.Value]:
            d = Draws(ctx, vals[0])
            u = d.unit(em) - 0.5
            v = d.unit(em)
            us = 0.5 - em.abs(u)
            kf = em.floor((a * 2.0 / us + bb) * u + lam64 + 0.43)
            quick = em.and_(us >= 0.07, v <= vr)
            reject = em.or_(kf < 0.0, em.and_(us < 0.013, v > us))
            lhs = em.log(v) + log_inv_alpha - em.log(a / (us * us) + bb)
            rhs = kf * loglam - lam64 - _log_factorial(em, em.max(kf, 0.0))
            accept = em.or_(quick, em.and_(em.not_(reject), lhs <= rhs))
            k = b.fptoui(em.max(kf, 0.0).v, U32)
            return [d.state, b.select(accept, k, vals[1]), accept]

        st, k, _ = while_loop(
            ctx, [state, _u32(0), ir.Constant(ir.IntType(1), 0)], cond, body, "poisson.ptrs"
        )
        return [st, k]

    st, k = branch(ctx, small, knuth, ptrs)
    return k, st


def _log_factorial(em: Emitter, k: Num) -> Num:
    """log(k!) = lgamma(k + 1) for integral k >= 0 (Stirling series, shifted for small k)."""
    x = k + 1.0
    shift = x < 10.0
    prod = x
    for n in range(1, 10):
        prod = prod * (x + float(n))
    y = em.select(shift, x + 10.0, x)
    inv = 1.0 / y
    inv2 = inv * inv
    series = inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0)))
    lg = (y - 0.5) * em.log(y) - y + 0.5 * math.log(2.0 * math.pi) + series
    return lg - em.select(shift, em.log(prod), 0.0)


def _sample_cdf(ctx: LowerContext, state: ir.Value, arr: ir.Value, atype: Any) -> tuple[ir.Value, ir.Value]:
    """Index of the first cdf entry >= u for a uniform u (binary search)."""
    b = ctx.builder
    em = Emitter(ctx, float32)
    d = Draws(ctx, state)
    u = d.unit(em)
    n = b.extract_value(arr, [2, 0])

    def cond(vals: list[ir.Value]) -> ir.Value:
        return b.icmp_signed("<", vals[0], vals[1])

    def body(vals: list[ir.Value]) -> list[ir.Value]:
        lo, hi = vals
        mid = b.lshr(b.add(lo, hi), ir.Constant(lo.type, 1))
        ptr = element_pointer(ctx, arr, atype, [mid], [int32])
        value = em.wrap(b.load(ptr, typ=lt.storage_type(atype.dtype), align=lt.alignment(atype.dtype)))
        below = value < u
        return [b.select(below, b.add(mid, ir.Constant(lo.type, 1)), lo), b.select(below, hi, mid)]

    lo, _ = while_loop(ctx, [ir.Constant(lt.I32, 0), n], cond, body, "sample_cdf")
    return lo, d.state


# ---------------------------------------------------------------------------------- builtins


def _drawing(fn: Callable[[Emitter, Draws, list], Any], result: Any) -> Callable[..., list[ir.Value]]:
    """A lowering for a builtin ``(state, *args) -> (value, new_state)`` written over Draws."""

    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> list[ir.Value]:
        em = Emitter(ctx, float32)
        d = Draws(ctx, args[0])
        value = fn(em, d, args[1:])
        return [em.output(result, value), d.state]

    return lower


def _int_range(ctx: LowerContext, raw: ir.Value, low: ir.Value, high: ir.Value) -> ir.Value:
    """low + raw % (high - low) in 32-bit unsigned arithmetic (low when the range is empty)."""
    b = ctx.builder
    span = b.sub(high, low)
    empty = b.icmp_unsigned("==", span, _u32(0))
    rem = b.urem(raw, b.select(empty, _u32(1), span))
    return b.add(low, b.select(empty, _u32(0), rem))


def register(registry: BuiltinRegistry) -> None:
    """Register the random number builtins."""
    add = registry.add

    def drawing(name: str, params: list, result: Any, fn: Callable, doc: str) -> None:
        ov = add(
            name,
            params=[("state", uint32), *params],
            result=(result, uint32),
            lower=_drawing(fn, result),
            doc=doc,
            group=GROUP,
            differentiable=False,
        )
        mark_mutating(ov)

    add("rand_init", params=[("seed", Int)], result=uint32, group=GROUP, differentiable=False,
        lower=lambda ctx, a, t: pcg(ctx.builder, _to_u32(ctx.builder, a[0])),
        doc="A random state from a seed.")
    add(
        "rand_init",
        params=[("seed", Int), ("offset", Int)],
        result=uint32,
        group=GROUP,
        differentiable=False,
        lower=lambda ctx, a, t: pcg(
            ctx.builder,
            ctx.builder.add(_to_u32(ctx.builder, a[0]), pcg(ctx.builder, _to_u32(ctx.builder, a[1]))),
        ),
        doc="A random state from a seed and an offset (e.g. the thread index) selecting a sequence.",
    )
    drawing("randi", [], int32, lambda em, d, a: d.bits(),
            "A random int32 (all 32 bits random); advances state.")
    drawing("randi", [("low", int32), ("high", int32)], int32,
            lambda em, d, a: _int_range(d.ctx, d.bits(), a[0], a[1]),
            "A random int32 in [low, high); advances state.")
    drawing("randu", [], uint32, lambda em, d, a: d.bits(), "A random uint32; advances state.")
    drawing("randu", [("low", uint32), ("high", uint32)], uint32,
            lambda em, d, a: _int_range(d.ctx, d.bits(), a[0], a[1]),
            "A random uint32 in [low, high); advances state.")
    drawing("randf", [], float32, lambda em, d, a: d.unit(em),
            "A uniform random float in [0, 1); advances state.")
    drawing("randf", [("low", float32), ("high", float32)], float32,
            lambda em, d, a: em.wrap(a[0]) + (em.wrap(a[1]) - em.wrap(a[0])) * d.unit(em),
            "A uniform random float in [low, high); advances state.")
    drawing("randn", [], float32, lambda em, d, a: _randn(em, d),
            "A standard normal random float (mean 0, variance 1); advances state.")
    vec2, vec3 = vector(2, float32), vector(3, float32)
    drawing("sample_triangle", [], vec2, lambda em, d, a: _triangle(em, d),
            "Uniform barycentric coordinates (u, v) on a triangle (third weight 1 - u - v); advances state.")
    drawing("sample_unit_ring", [], vec2, lambda em, d, a: _ring(em, d),
            "A uniform point on the unit circle; advances state.")
    drawing("sample_unit_disk", [], vec2, lambda em, d, a: _disk(em, d),
            "A uniform point inside the unit disk; advances state.")
    drawing("sample_unit_sphere_surface", [], vec3, lambda em, d, a: _sphere_surface(em, d, -1.0),
            "A uniform point on the unit sphere; advances state.")
    drawing("sample_unit_sphere", [], vec3, lambda em, d, a: _ball(em, d, -1.0),
            "A uniform point inside the unit ball; advances state.")
    drawing("sample_unit_hemisphere_surface", [], vec3, lambda em, d, a: _sphere_surface(em, d, 0.0),
            "A uniform point on the unit hemisphere z >= 0; advances state.")
    drawing("sample_unit_hemisphere", [], vec3, lambda em, d, a: _ball(em, d, 0.0),
            "A uniform point inside the unit half ball z >= 0; advances state.")
    drawing("sample_unit_square", [], vec2, lambda em, d, a: _square(em, d, 2),
            "A uniform point in the square [-0.5, 0.5]^2; advances state.")
    drawing("sample_unit_cube", [], vec3, lambda em, d, a: _square(em, d, 3),
            "A uniform point in the cube [-0.5, 0.5]^3; advances state.")
    mark_mutating(add(
        "poisson", params=[("state", uint32), ("lam", float32)], result=(uint32, uint32), group=GROUP,
        differentiable=False, lower=lambda ctx, a, t: list(_poisson(ctx, a[0], a[1])),
        doc="A Poisson-distributed count with mean lam; advances state."))
    mark_mutating(
        add(
            "sample_cdf",
            params=[("state", uint32), ("cdf", ArrayOf(float32, 1))],
            result=(int32, uint32),
            group=GROUP,
            differentiable=False,
            lower=lambda ctx, a, t: list(_sample_cdf(ctx, a[0], a[1], t[1])),
            doc="Index i of the first cdf[i] >= u for a uniform u (samples a discrete "
                "distribution); advances state.",
        )
    )
