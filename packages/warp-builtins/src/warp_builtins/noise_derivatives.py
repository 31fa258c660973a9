"""Derivative rules of ``noise``, ``pnoise`` and ``curlnoise`` with respect to the position.

The adjoint of a noise value is its analytic gradient times the result's adjoint; the adjoint of
curl noise is ``J^T adj`` with J the Jacobian of the curl, built from the second derivatives of
the fractal potential (:func:`warp_builtins.noise.curl_vjp`). Both are computed by internal
operations (not builtins a kernel can call) lowered with the forward's own formulas, so the
gradients are those of exactly the function the forward pass evaluates. The seed, the periods
and the octave count are integers; lacunarity and gain get no adjoint (as in NVIDIA Warp).
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from warp.extending import DerivativeContext, Overload, derivative, float32, vector, LowerContext
from warp_builtins.irexpr import Emitter
from warp_builtins.noise import point_components, curl_vjp, gradient_noise
from warp_builtins.random import _u32

GROUP = "Random"


def _pack_like(em: Emitter, t: Any, parts: list[Any]) -> ir.Value:
    return em.pack(t, parts) if hasattr(t, "_wp_kind_") else em.unwrap(parts[0])


def _lower_gradient(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    """Gradient of noise(state, x) or pnoise(state, x, periods...) at x (x's type)."""
    em = Emitter(ctx, float32)
    periods = args[2:] or None
    x = point_components(em, types[1], args[1])
    _, grad, _ = gradient_noise(em, args[0], x, periods, derivative=True)
    return _pack_like(em, types[1], grad)


def _lower_curl_vjp(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    """J^T w of curlnoise(state, x[, octaves, lacunarity, gain]) for w = args[-1] (x's type)."""
    em = Emitter(ctx, float32)
    x = point_components(em, types[1], args[1])
    if len(args) > 3:
        octaves, lac, gain = args[2], em.wrap(args[3]), em.wrap(args[4])
    else:
        octaves, lac, gain = _u32(1), em.const(2.0), em.const(0.5)
    w = em.parts(types[-1], args[-1])
    return em.pack(vector(len(x), float32), curl_vjp(ctx, args[0], x, em, octaves, lac, gain, w))


def _internal(name: str, lower: Any, doc: str) -> Overload:
    return Overload(name, (), None, lower=lower, doc=doc, group=GROUP, package="warp-builtins",
                    differentiable=False)


NOISE_GRADIENT = _internal("adj_noise_gradient", _lower_gradient, "Gradient of (periodic) noise at x.")
CURL_VJP = _internal("adj_curlnoise_vjp", _lower_curl_vjp, "Transposed Jacobian of curl noise times w.")


@derivative("noise", "pnoise")
def _noise(ctx: DerivativeContext) -> list[Any]:
    out: list[Any] = [None] * len(ctx.args)
    if ctx.wants(1):
        grad = ctx.e.internal(NOISE_GRADIENT, ctx.args, ctx.types[1])
        out[1] = ctx.e.mul(grad, ctx.adj_out)
    return out


@derivative("curlnoise")
def _curlnoise(ctx: DerivativeContext) -> list[Any]:
    out: list[Any] = [None] * len(ctx.args)
    if ctx.wants(1):
        out[1] = ctx.e.internal(CURL_VJP, [*ctx.args, ctx.adj_out], ctx.types[1])
    return out
