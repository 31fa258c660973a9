"""Geometric primitives written in the kernel language (one source for every target).

Triangles are ``(a, b, c)``; barycentric results follow NVIDIA Warp's convention: ``(u, v)``
are the weights of ``a`` and ``b``, so the point is ``u*a + v*b + (1 - u - v)*c``.
"""

from __future__ import annotations

import warp as wp

#: "no hit" distance of ray/box tests
INF = wp.constant(float("inf"))
#: the largest finite float32: the bound of an unbounded ray search, so that a missed box (INF)
#: is never within it
FLT_MAX = wp.constant(3.4028234663852886e38)


@wp.func
def boxes_overlap(alo: wp.vec3, ahi: wp.vec3, blo: wp.vec3, bhi: wp.vec3) -> bool:
    """Whether two closed axis-aligned boxes intersect (touching counts)."""
    if alo[0] > bhi[0] or alo[1] > bhi[1] or alo[2] > bhi[2]:
        return False
    if ahi[0] < blo[0] or ahi[1] < blo[1] or ahi[2] < blo[2]:
        return False
    return True


@wp.func
def ray_box(start: wp.vec3, inv_dir: wp.vec3, lo: wp.vec3, hi: wp.vec3, max_t: float) -> float:
    """Entry distance of the ray ``start + t*dir`` (``t`` in [0, max_t]) into a box, or +inf.

    ``inv_dir`` is ``1/dir`` per component (infinite for zero components). A ray parallel to a
    slab (zero component) crosses it everywhere or nowhere: it is inside when its start is in
    the closed slab, faces included (no 0 * inf, which would be NaN).
    """
    tmin = float(0.0)
    tmax = max_t
    for k in range(3):
        if inv_dir[k] == INF or inv_dir[k] == -INF:
            if start[k] < lo[k] or start[k] > hi[k]:
                tmax = -INF
        else:
            t1 = (lo[k] - start[k]) * inv_dir[k]
            t2 = (hi[k] - start[k]) * inv_dir[k]
            near = wp.min(t1, t2)
            far = wp.max(t1, t2)
            if near > tmin:
                tmin = near
            if far < tmax:
                tmax = far
    if tmin <= tmax:
        return tmin
    return INF


@wp.func
def safe_inverse(d: wp.vec3) -> wp.vec3:
    """Componentwise ``1/d`` with signed infinities for zero components."""
    return wp.vec3(1.0 / d[0], 1.0 / d[1], 1.0 / d[2])


@wp.func
def triangle_bounds_lower(a: wp.vec3, b: wp.vec3, c: wp.vec3) -> wp.vec3:
    return wp.min(wp.min(a, b), c)


@wp.func
def triangle_bounds_upper(a: wp.vec3, b: wp.vec3, c: wp.vec3) -> wp.vec3:
    return wp.max(wp.max(a, b), c)


@wp.func
def ray_triangle(start: wp.vec3, dir: wp.vec3, a: wp.vec3, b: wp.vec3, c: wp.vec3) -> wp.vec4:
    """Double-sided ray/triangle intersection (Moller-Trumbore).

    Returns ``(t, u, v, hit)``: distance along ``dir`` in units of its length, barycentric
    weights of ``a`` and ``b``, and 1.0 on a hit (t >= 0), 0.0 otherwise.
    """
    e1 = b - a
    e2 = c - a
    pvec = wp.cross(dir, e2)
    det = wp.dot(e1, pvec)
    if det == 0.0:
        return wp.vec4(0.0, 0.0, 0.0, 0.0)
    inv_det = 1.0 / det
    tvec = start - a
    wb = wp.dot(tvec, pvec) * inv_det
    if wb < 0.0 or wb > 1.0:
        return wp.vec4(0.0, 0.0, 0.0, 0.0)
    qvec = wp.cross(tvec, e1)
    wc = wp.dot(dir, qvec) * inv_det
    if wc < 0.0 or wb + wc > 1.0:
        return wp.vec4(0.0, 0.0, 0.0, 0.0)
    t = wp.dot(e2, qvec) * inv_det
    if t < 0.0:
        return wp.vec4(0.0, 0.0, 0.0, 0.0)
    return wp.vec4(t, 1.0 - wb - wc, wb, 1.0)


@wp.func
def closest_point_triangle(p: wp.vec3, a: wp.vec3, b: wp.vec3, c: wp.vec3) -> wp.vec3:
    """Barycentric weights ``(wa, wb, wc)`` of the point of triangle abc closest to ``p``.

    Voronoi-region walk (vertex, edge, then face regions), as in Ericson's Real-Time Collision
    Detection; degenerate triangles fall back to the closest of their edges.
    """
    ab = b - a
    ac = c - a
    ap = p - a
    d1 = wp.dot(ab, ap)
    d2 = wp.dot(ac, ap)
    if d1 <= 0.0 and d2 <= 0.0:
        return wp.vec3(1.0, 0.0, 0.0)
    bp = p - b
    d3 = wp.dot(ab, bp)
    d4 = wp.dot(ac, bp)
    if d3 >= 0.0 and d4 <= d3:
        return wp.vec3(0.0, 1.0, 0.0)
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        t = d1 / (d1 - d3)
        return wp.vec3(1.0 - t, t, 0.0)
    cp = p - c
    d5 = wp.dot(ab, cp)
    d6 = wp.dot(ac, cp)
    if d6 >= 0.0 and d5 <= d6:
        return wp.vec3(0.0, 0.0, 1.0)
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        t = d2 / (d2 - d6)
        return wp.vec3(1.0 - t, 0.0, t)
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        t = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return wp.vec3(0.0, 1.0 - t, t)
    denom = va + vb + vc
    if denom == 0.0:  # degenerate (collinear) triangle whose regions did not resolve
        return _closest_on_edges(p, a, b, c)
    inv = 1.0 / denom
    v = vb * inv
    w = vc * inv
    return wp.vec3(1.0 - v - w, v, w)


@wp.func
def _segment_t(p: wp.vec3, a: wp.vec3, b: wp.vec3) -> float:
    ab = b - a
    den = wp.dot(ab, ab)
    if den == 0.0:
        return 0.0
    return wp.clamp(wp.dot(p - a, ab) / den, 0.0, 1.0)


@wp.func
def _closest_on_edges(p: wp.vec3, a: wp.vec3, b: wp.vec3, c: wp.vec3) -> wp.vec3:
    t0 = _segment_t(p, a, b)
    t1 = _segment_t(p, b, c)
    t2 = _segment_t(p, c, a)
    d0 = wp.length_sq(p - (a + t0 * (b - a)))
    d1 = wp.length_sq(p - (b + t1 * (c - b)))
    d2 = wp.length_sq(p - (c + t2 * (a - c)))
    if d0 <= d1 and d0 <= d2:
        return wp.vec3(1.0 - t0, t0, 0.0)
    if d1 <= d2:
        return wp.vec3(0.0, 1.0 - t1, t1)
    return wp.vec3(t2, 0.0, 1.0 - t2)


@wp.func
def triangle_distance_sq(p: wp.vec3, a: wp.vec3, b: wp.vec3, c: wp.vec3) -> float:
    """Squared distance from ``p`` to triangle abc."""
    w = closest_point_triangle(p, a, b, c)
    q = w[0] * a + w[1] * b + w[2] * c
    return wp.length_sq(p - q)


@wp.func
def box_distance_sq(p: wp.vec3, lo: wp.vec3, hi: wp.vec3) -> float:
    """Squared distance from ``p`` to a box (0 inside)."""
    d = wp.max(wp.max(lo - p, p - hi), wp.vec3(0.0, 0.0, 0.0))
    return wp.dot(d, d)


@wp.func
def box_max_distance_sq(p: wp.vec3, lo: wp.vec3, hi: wp.vec3) -> float:
    """Squared distance from ``p`` to the farthest point of a box."""
    d = wp.max(wp.abs(p - lo), wp.abs(hi - p))
    return wp.dot(d, d)
