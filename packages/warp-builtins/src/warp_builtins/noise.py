"""Gradient (Perlin) noise in 1-4 dimensions, its periodic variant and curl noise.

``noise(state, x)`` is smooth and zero at integer lattice points. Each lattice corner gets a
unit-length pseudo-random gradient: the corner's integer coordinates and the state (the seed, not
advanced) are hashed with the spatial-hash primes (2-d: ``(ix * 73856093) ^ (iy * 19349663 +
state)``), ``randf`` draws one coordinate per axis from that hash, centred on zero, and the
vector is normalized. Values blend the corners' linear ramps with the quintic fade
6t^5 - 15t^4 + 10t^3 (continuous second derivatives), with no rescaling, so 2-d noise lies within
[-sqrt(2)/2, sqrt(2)/2]. This is NVIDIA Warp's construction: 2-d noise, pnoise and curl noise
give Warp's values (checked against Warp's reference images); 1, 3 and 4 dimensions extend the
hash in the same way (a third and fourth prime; in 1-d the gradient is a slope in [-1, 1)),
which no Warp reference checks.
``pnoise`` wraps the corner coordinates (periods px, py, ...); ``curlnoise`` is the curl of a
fractal (octave-summed) noise potential, a divergence-free vector field, computed with the
analytic gradient of the noise. The adjoints of all three (with respect to the position) are in
:mod:`warp_builtins.noise_derivatives`.
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

import llvmlite.ir as ir

from warp.extending import float32, int32, uint32, vector, LowerContext, BuiltinRegistry
from warp_builtins.irexpr import Emitter, Num, while_loop
from warp_builtins.random import U32, _u32, pcg

GROUP = "Random"
#: the spatial-hash primes of the corner coordinates, one per axis
_PRIMES = (73856093, 19349663, 83492791, 67867979)


def _corner_hash(b: ir.IRBuilder, seed: ir.Value, corner: Sequence[ir.Value]) -> ir.Value:
    """The hash of a lattice corner's integer coordinates (as u32) and the seed:
    ``(c0 * p0) ^ (c1 * p1) ^ ... ^ (c_last * p_last + seed)``."""
    h: ir.Value | None = None
    last = len(corner) - 1
    for i, c in enumerate(corner):
        term = b.mul(c, _u32(_PRIMES[i]))
        if i == last:
            term = b.add(term, seed)
        h = term if h is None else b.xor(h, term)
    assert h is not None
    return h


def _gradient(b: ir.IRBuilder, em: Emitter, h: ir.Value, n: int) -> list[Num]:
    """The corner's gradient: ``randf(h) - 0.5`` per axis (``h`` advanced by each draw),
    normalized (a zero vector stays zero, as ``wp.normalize`` leaves it). In 1-d, where a unit
    gradient could only be +-1, the slope is ``2 * randf(h) - 1``, in [-1, 1)."""
    g = []
    for _ in range(n):
        h = pcg(b, h)
        g.append(Num(em, b.uitofp(b.lshr(h, _u32(8)), em.ty)) * (1.0 / 16777216.0) - 0.5)
    if n == 1:
        return [g[0] * 2.0]
    length_sq = g[0] * g[0]
    for gi in g[1:]:
        length_sq = length_sq + gi * gi
    positive = (length_sq > 0.0)
    inv = em.select(positive, 1.0 / em.sqrt(em.select(positive, length_sq, 1.0)), 0.0)
    return [gi * inv for gi in g]


def _fade(t: Num) -> Num:
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


def _dfade(t: Num) -> Num:
    return t * t * (t * (t * 30.0 - 60.0) + 30.0)


def _ddfade(t: Num) -> Num:
    return t * (t * (t * 120.0 - 180.0) + 60.0)


def gradient_noise(
    em: Emitter,
    seed: ir.Value,
    x: Sequence[Num],
    periods: Sequence[ir.Value] | None = None,
    derivative: bool = False,
    hessian: bool = False,
) -> tuple[Num, list[Num], list[list[Num]]]:
    """Noise value at x, (if ``derivative`` or ``hessian``) its gradient with respect to x and
    (if ``hessian``) its matrix of second derivatives (rows of a symmetric n x n matrix).

    Each corner contributes w(s) * ramp, with the weight w = prod_j f_j (f_j = s_j or 1 - s_j
    of the faded fraction s_j) and the linear ramp = g . (frac - corner); the derivatives follow
    from the product rule (the ramp's second derivatives are zero).
    """
    b = em.b
    n = len(x)
    order = 2 if hessian else 1 if derivative else 0
    cell, frac = [], []
    for xi in x:
        fl = em.floor(xi)
        cell.append(b.fptosi(fl.v, U32))
        frac.append(xi - fl)
    s = [_fade(f) for f in frac]
    ds = [_dfade(f) for f in frac] if order else []
    dds = [_ddfade(f) for f in frac] if order > 1 else []
    value: Num | None = None
    grad: list[Num | None] = [None] * n
    hess: list[list[Num | None]] = [[None] * n for _ in range(n)]
    for corner in itertools.product((0, 1), repeat=n):
        coords = []
        for i, bit in enumerate(corner):
            c = b.add(cell[i], _u32(bit))
            if periods is not None:
                c = _wrap(b, c, periods[i])
            coords.append(c)
        g = _gradient(b, em, _corner_hash(b, seed, coords), n)
        d = [f - float(bit) for f, bit in zip(frac, corner)]
        ramp = g[0] * d[0]
        for gi, di in zip(g[1:], d[1:]):
            ramp = ramp + gi * di
        f_parts = [si if bit else 1.0 - si for si, bit in zip(s, corner)]
        w = _product(em, f_parts)
        value = _acc(value, w * ramp)
        if not order:
            continue
        # first and second derivatives of the factors f_j
        df = [ds[j] if corner[j] else -ds[j] for j in range(n)]
        dw = [df[j] * _product(em, f_parts[:j] + f_parts[j + 1:]) for j in range(n)]
        for j in range(n):
            grad[j] = _acc(grad[j], dw[j] * ramp + w * g[j])
        if order < 2:
            continue
        for i in range(n):
            for k in range(i, n):
                if i == k:
                    ddf = dds[i] if corner[i] else -dds[i]
                    ddw = ddf * _product(em, f_parts[:i] + f_parts[i + 1:])
                else:
                    rest = [f_parts[j] for j in range(n) if j not in (i, k)]
                    ddw = df[i] * df[k] * _product(em, rest)
                hess[i][k] = _acc(hess[i][k], ddw * ramp + dw[i] * g[k] + dw[k] * g[i])
    assert value is not None
    grads = [gj for gj in grad if gj is not None]
    rows: list[list[Num]] = []
    if order > 1:  # the upper triangle was summed; every corner added to each entry
        upper = [[h for h in row if h is not None] for row in hess]
        rows = [[upper[min(i, k)][max(i, k) - min(i, k)] for k in range(n)] for i in range(n)]
    return value, grads, rows


def _acc(total: Num | None, part: Num) -> Num:
    return part if total is None else total + part


def _product(em: Emitter, parts: Sequence[Any]) -> Num:
    out = em.const(1.0)
    for p in parts:
        out = out * p
    return out


def _wrap(b: ir.IRBuilder, c: ir.Value, period: ir.Value) -> ir.Value:
    """c mod period in [0, period) for signed c; a period <= 0 leaves c unwrapped."""
    valid = b.icmp_signed(">", period, ir.Constant(period.type, 0))
    p = b.select(valid, period, ir.Constant(period.type, 1))
    r = b.srem(c, p)
    r = b.select(b.icmp_signed("<", r, ir.Constant(r.type, 0)), b.add(r, p), r)
    return b.select(valid, r, c)


# ---------------------------------------------------------------------------------- curl noise


def _seed(b: ir.IRBuilder, state: ir.Value, k: int) -> ir.Value:
    return pcg(b, b.add(state, _u32(0x632BE5AB * (k + 1))))


def _fractal_derivatives(
    ctx: LowerContext, em: Emitter, seeds: list[ir.Value], x: list[Num], octaves: ir.Value,
    lacunarity: Num, gain: Num, hessian: bool = False,
) -> list[list[Num]]:
    """For each seed k, the gradient (or, with ``hessian``, the row-major n x n matrix of second
    derivatives) of the fractal potential sum_o (gain / lacunarity)^o N_k(lacunarity^o x), whose
    octave o contributes gain^o times the gradient of N_k at lacunarity^o x: the curl's octaves
    have amplitudes 1, gain, gain^2, ... (loop over octaves). In 2-d every octave samples the
    same noise (the seed as given, as Warp's 2-d curl noise does); in 3-d and 4-d octave o
    samples the noise of seed + o."""
    b = em.b
    n = len(x)
    size = n * n if hessian else n
    zero = em.const(0.0).v
    init = [ir.Constant(U32, 0), em.const(1.0).v, em.const(1.0).v] + [zero] * (size * len(seeds))

    def cond(vals: list[ir.Value]) -> ir.Value:
        return b.icmp_unsigned("<", vals[0], octaves)

    def body(vals: list[ir.Value]) -> list[ir.Value]:
        amp, freq = Num(em, vals[1]), Num(em, vals[2])
        sums = [Num(em, v) for v in vals[3:]]
        xs = [xi * freq for xi in x]
        out = []
        for k, seed in enumerate(seeds):
            octave_seed = seed if n == 2 else b.add(seed, vals[0])
            _, g, h = gradient_noise(em, octave_seed, xs, derivative=True, hessian=hessian)
            # the potential's octave is (amp / freq) N(freq x): one factor of freq per derivative
            parts = [hij * (amp * freq) for row in h for hij in row] if hessian else [gj * amp for gj in g]
            out += [sums[k * size + j] + parts[j] for j in range(size)]
        return [b.add(vals[0], _u32(1)), (amp * gain).v, (freq * lacunarity).v] + [o.v for o in out]

    final = while_loop(ctx, init, cond, body, "curlnoise")
    flat = [Num(em, v) for v in final[3:]]
    return [flat[k * size:(k + 1) * size] for k in range(len(seeds))]


def _potential_seeds(b: ir.IRBuilder, state: ir.Value, n: int) -> list[ir.Value]:
    """Seeds of the potential's components: the state itself for the one stream function of
    2-d, three seeds derived from it for the vector potential otherwise."""
    if n == 2:
        return [state]
    return [_seed(b, state, k) for k in range(3)]


def _curl(
    ctx: LowerContext, state: ir.Value, x: list[Num], em: Emitter, octaves: ir.Value, lacunarity: Num,
    gain: Num,
) -> list[Num]:
    seeds = _potential_seeds(em.b, state, len(x))
    if len(x) == 2:
        (g,) = _fractal_derivatives(ctx, em, seeds, x, octaves, lacunarity, gain)
        return [-g[1], g[0]]
    gx, gy, gz = _fractal_derivatives(ctx, em, seeds, x, octaves, lacunarity, gain)
    # curl of the potential (Px, Py, Pz); a 4th (time) coordinate only varies the field
    return [gz[1] - gy[2], gx[2] - gz[0], gy[0] - gx[1]]


def curl_vjp(
    ctx: LowerContext, state: ir.Value, x: list[Num], em: Emitter, octaves: ir.Value, lacunarity: Num,
    gain: Num, w: list[Num],
) -> list[Num]:
    """``J^T w`` for the Jacobian J of :func:`_curl` with respect to x (second derivatives of
    the potential)."""
    n = len(x)
    seeds = _potential_seeds(em.b, state, n)
    hs = _fractal_derivatives(ctx, em, seeds, x, octaves, lacunarity, gain, hessian=True)

    def h(k: int, j: int, i: int) -> Num:  # d^2 P_k / dx_j dx_i
        return hs[k][j * n + i]

    if n == 2:
        return [w[1] * h(0, 0, i) - w[0] * h(0, 1, i) for i in range(n)]
    px, py, pz = 0, 1, 2
    out = []
    for i in range(n):
        d0 = h(pz, 1, i) - h(py, 2, i)  # d v0 / dx_i
        d1 = h(px, 2, i) - h(pz, 0, i)
        d2 = h(py, 0, i) - h(px, 1, i)
        out.append(w[0] * d0 + w[1] * d1 + w[2] * d2)
    return out


# ---------------------------------------------------------------------------------- builtins


def point_components(em: Emitter, t: Any, v: ir.Value) -> list[Num]:
    """The coordinates of a noise position (a float or a vector) as :class:`Num` values."""
    return em.parts(t, v) if hasattr(t, "_wp_kind_") else [em.wrap(v)]


def _lower_noise(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    em = Emitter(ctx, float32)
    value, _, _ = gradient_noise(em, args[0], point_components(em, types[1], args[1]))
    return em.unwrap(value)


def _lower_pnoise(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    em = Emitter(ctx, float32)
    value, _, _ = gradient_noise(em, args[0], point_components(em, types[1], args[1]), periods=args[2:])
    return em.unwrap(value)


def _lower_curl(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
    em = Emitter(ctx, float32)
    x = point_components(em, types[1], args[1])
    if len(args) > 2:
        octaves, lac, gain = args[2], em.wrap(args[3]), em.wrap(args[4])
    else:
        octaves, lac, gain = _u32(1), em.const(2.0), em.const(0.5)
    out = _curl(ctx, args[0], x, em, octaves, lac, gain)
    return em.pack(vector(len(out), float32), out)


def register(registry: BuiltinRegistry) -> None:
    """Register noise, pnoise and curlnoise."""
    vecs = {2: vector(2, float32), 3: vector(3, float32), 4: vector(4, float32)}
    names = {1: ["x"], 2: ["xy"], 3: ["xyz"], 4: ["xyzt"]}
    for n in (1, 2, 3, 4):
        xt = float32 if n == 1 else vecs[n]
        point = [("state", uint32), (names[n][0], xt)]
        registry.add(
            "noise",
            params=point,
            result=float32,
            lower=_lower_noise,
            group=GROUP,
            differentiable=True,
            doc=(
                "Smooth gradient (Perlin) noise at a point, within [-sqrt(n)/2, sqrt(n)/2] in n "
                "dimensions; state seeds it."
            ),
        )
        periods = [(f"p{c}", int32) for c in ("x", "y", "z", "t")[:n]]
        registry.add("pnoise", params=point + periods, result=float32, lower=_lower_pnoise, group=GROUP,
                     differentiable=True,
                     doc="Periodic gradient noise: repeats with integer periods px, py, ... along each axis.")
    for n in (2, 3, 4):
        point = [("state", uint32), (names[n][0], vecs[n])]
        out = vecs[2] if n == 2 else vecs[3]
        doc = "Divergence-free noise: the curl of a fractal noise potential (octaves, lacunarity, gain)."
        registry.add(
            "curlnoise",
            params=point,
            result=out,
            lower=_lower_curl,
            group=GROUP,
            differentiable=True,
            doc=doc,
        )
        registry.add(
            "curlnoise",
            params=point + [("octaves", uint32), ("lacunarity", float32), ("gain", float32)],
            result=out,
            lower=_lower_curl,
            group=GROUP,
            differentiable=True,
            doc=doc,
        )
