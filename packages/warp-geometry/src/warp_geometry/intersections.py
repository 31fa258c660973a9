"""Geometry utility builtins: ``closest_point_edge_edge`` (closest points of two segments) and
``intersect_tri_tri`` (triangle-triangle intersection test).

``intersect_tri_tri`` follows Moller's interval method ("A fast triangle-triangle intersection
test", 1997): each triangle's vertices are classified against the other's plane (plane values
with ``|d| < 1e-6`` snapped to 0, as NVIDIA Warp documents), the two triangles' intervals on the
line where the planes meet are compared, and coplanar pairs are tested in 2D (edge crossings and
containment). Touching counts as intersecting. Degenerate (zero-area) triangles, which the
interval method cannot classify, are handled as the segment spanned by their vertices. Both
functions are generic over ``vec3f``/``vec3d``.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp.extending import BuiltinRegistry
from warp_geometry.descriptors import add_builtin

GROUP = "Geometry"


# -- closest points of two segments ----------------------------------------------------------
@wp.func
def closest_point_edge_edge_f(p1: wp.vec3, q1: wp.vec3, p2: wp.vec3, q2: wp.vec3, epsilon: float) -> wp.vec3:
    """(s, t, d): closest points ``p1 + s*(q1 - p1)`` and ``p2 + t*(q2 - p2)`` and their distance."""
    d1 = q1 - p1
    d2 = q2 - p2
    r = p1 - p2
    a = wp.dot(d1, d1)
    e = wp.dot(d2, d2)
    f = wp.dot(d2, r)
    s = float(0.0)
    t = float(0.0)
    if a <= epsilon and e <= epsilon:
        s = 0.0
        t = 0.0
    elif a <= epsilon:
        s = 0.0
        t = wp.clamp(f / e, 0.0, 1.0)
    else:
        c = wp.dot(d1, r)
        if e <= epsilon:
            t = 0.0
            s = wp.clamp(-c / a, 0.0, 1.0)
        else:
            b = wp.dot(d1, d2)
            denom = a * e - b * b
            if denom != 0.0:
                s = wp.clamp((b * f - c * e) / denom, 0.0, 1.0)
            else:
                s = 0.0
            t = (b * s + f) / e
            if t < 0.0:
                t = 0.0
                s = wp.clamp(-c / a, 0.0, 1.0)
            elif t > 1.0:
                t = 1.0
                s = wp.clamp((b - c) / a, 0.0, 1.0)
    c1 = p1 + d1 * s
    c2 = p2 + d2 * t
    return wp.vec3(s, t, wp.length(c1 - c2))


# -- triangle-triangle intersection ------------------------------------------------------------
@wp.func
def _snap(d: Any):
    if wp.abs(d) < type(d)(1.0e-6):
        return type(d)(0.0)
    return d


@wp.func
def _dominant_axis(n: Any) -> int:
    """Index of the largest component of ``|n|`` (the axis to drop when projecting to 2D)."""
    ax = wp.abs(n[0])
    ay = wp.abs(n[1])
    az = wp.abs(n[2])
    if ax >= ay and ax >= az:
        return 0
    if ay >= az:
        return 1
    return 2


@wp.func
def _project(p: Any, axis: int):
    """Drop coordinate ``axis``: (the two others), as a pair of scalars in a vec of length 3."""
    if axis == 0:
        return p[1], p[2]
    if axis == 1:
        return p[0], p[2]
    return p[0], p[1]


@wp.func
def _orient(ax: Any, ay: Any, bx: Any, by: Any, cx: Any, cy: Any):
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@wp.func
def _between(a: Any, b: Any, x: Any) -> bool:
    return wp.min(a, b) <= x and x <= wp.max(a, b)


@wp.func
def _segments_meet_2d(a: Any, b: Any, c: Any, d: Any, axis: int) -> bool:
    """Whether closed segments ab and cd meet once projected along ``axis``."""
    ax, ay = _project(a, axis)
    bx, by = _project(b, axis)
    cx, cy = _project(c, axis)
    dx, dy = _project(d, axis)
    o1 = _orient(ax, ay, bx, by, cx, cy)
    o2 = _orient(ax, ay, bx, by, dx, dy)
    o3 = _orient(cx, cy, dx, dy, ax, ay)
    o4 = _orient(cx, cy, dx, dy, bx, by)
    zero = type(o1)(0.0)
    if ((o1 > zero and o2 < zero) or (o1 < zero and o2 > zero)) and (
        (o3 > zero and o4 < zero) or (o3 < zero and o4 > zero)
    ):
        return True
    if o1 == zero and _between(ax, bx, cx) and _between(ay, by, cy):
        return True
    if o2 == zero and _between(ax, bx, dx) and _between(ay, by, dy):
        return True
    if o3 == zero and _between(cx, dx, ax) and _between(cy, dy, ay):
        return True
    if o4 == zero and _between(cx, dx, bx) and _between(cy, dy, by):
        return True
    return False


@wp.func
def _point_in_triangle_2d(p: Any, a: Any, b: Any, c: Any, axis: int) -> bool:
    """Whether ``p`` lies in the closed triangle abc projected along ``axis`` (False if it has no area)."""
    px, py = _project(p, axis)
    ax, ay = _project(a, axis)
    bx, by = _project(b, axis)
    cx, cy = _project(c, axis)
    area = _orient(ax, ay, bx, by, cx, cy)
    zero = type(area)(0.0)
    if area == zero:
        return False
    w0 = _orient(ax, ay, bx, by, px, py)
    w1 = _orient(bx, by, cx, cy, px, py)
    w2 = _orient(cx, cy, ax, ay, px, py)
    if area > zero:
        return w0 >= zero and w1 >= zero and w2 >= zero
    return w0 <= zero and w1 <= zero and w2 <= zero


@wp.func
def _coplanar_tri_tri(axis: int, v0: Any, v1: Any, v2: Any, u0: Any, u1: Any, u2: Any) -> bool:
    """Intersection of two triangles lying in one plane, tested in 2D (projected along ``axis``)."""
    if _segments_meet_2d(v0, v1, u0, u1, axis) or _segments_meet_2d(v0, v1, u1, u2, axis):
        return True
    if _segments_meet_2d(v0, v1, u2, u0, axis) or _segments_meet_2d(v1, v2, u0, u1, axis):
        return True
    if _segments_meet_2d(v1, v2, u1, u2, axis) or _segments_meet_2d(v1, v2, u2, u0, axis):
        return True
    if _segments_meet_2d(v2, v0, u0, u1, axis) or _segments_meet_2d(v2, v0, u1, u2, axis):
        return True
    if _segments_meet_2d(v2, v0, u2, u0, axis):
        return True
    return _point_in_triangle_2d(v0, u0, u1, u2, axis) or _point_in_triangle_2d(u0, v0, v1, v2, axis)


@wp.func
def _interval(p0: Any, p1: Any, p2: Any, d0: Any, d1: Any, d2: Any):
    """Interval of a triangle on the planes' common line (projections ``p``, plane values ``d``).

    Returns (lo, hi, ok); ``ok`` is False when the triangle lies in the other plane."""
    zero = type(d0)(0.0)
    lone = int(-1)
    if d0 * d1 > zero:
        lone = 2
    elif d0 * d2 > zero:
        lone = 1
    elif d1 * d2 > zero or d0 != zero:
        lone = 0
    elif d1 != zero:
        lone = 1
    elif d2 != zero:
        lone = 2
    if lone < 0:
        return zero, zero, False
    # the lone vertex (alone on its side of the plane) and the two others
    pa = p0
    da = d0
    pb = p1
    db = d1
    pc = p2
    dc = d2
    if lone == 1:
        pa = p1
        da = d1
        pb = p0
        db = d0
    elif lone == 2:
        pa = p2
        da = d2
        pc = p0
        dc = d0
    x = pa + (pb - pa) * da / (da - db)
    y = pa + (pc - pa) * da / (da - dc)
    return wp.min(x, y), wp.max(x, y), True


@wp.func
def _longest_edge(a: Any, b: Any, c: Any):
    """Endpoints of the longest edge of a (degenerate) triangle: the segment its vertices span."""
    lab = wp.length_sq(b - a)
    lbc = wp.length_sq(c - b)
    lca = wp.length_sq(a - c)
    if lab >= lbc and lab >= lca:
        return a, b
    if lbc >= lca:
        return b, c
    return c, a


@wp.func
def _segment_triangle(s0: Any, s1: Any, a: Any, b: Any, c: Any, n: Any) -> bool:
    """Whether segment s0s1 meets the triangle abc of (non-zero) normal ``n``."""
    d0 = _snap(wp.dot(n, s0 - a))
    d1 = _snap(wp.dot(n, s1 - a))
    zero = type(d0)(0.0)
    if d0 * d1 > zero:
        return False
    axis = _dominant_axis(n)
    if d0 == zero and d1 == zero:
        return _coplanar_tri_tri(axis, s0, s1, s1, a, b, c)
    x = s0 + (s1 - s0) * (d0 / (d0 - d1))
    return _point_in_triangle_2d(x, a, b, c, axis)


@wp.func
def _segments_meet_3d(a0: Any, a1: Any, b0: Any, b1: Any) -> bool:
    """Whether two segments (or points) meet, up to 1e-6."""
    d1 = a1 - a0
    d2 = b1 - b0
    r = a0 - b0
    la = wp.dot(d1, d1)
    lb = wp.dot(d2, d2)
    s = type(la)(0.0)
    t = type(la)(0.0)
    one = type(la)(1.0)
    if la > s and lb > s:
        b = wp.dot(d1, d2)
        denom = la * lb - b * b
        if denom > s:
            s = wp.clamp((b * wp.dot(d2, r) - wp.dot(d1, r) * lb) / denom, type(la)(0.0), one)
        t = wp.clamp((b * s + wp.dot(d2, r)) / lb, type(la)(0.0), one)
        s = wp.clamp((b * t - wp.dot(d1, r)) / la, type(la)(0.0), one)
    elif lb > s:
        t = wp.clamp(wp.dot(d2, r) / lb, type(la)(0.0), one)
    elif la > s:
        s = wp.clamp(-wp.dot(d1, r) / la, type(la)(0.0), one)
    gap = (a0 + d1 * s) - (b0 + d2 * t)
    return wp.length_sq(gap) <= type(la)(1.0e-12)


@wp.func
def intersect_tri_tri_f(v0: Any, v1: Any, v2: Any, u0: Any, u1: Any, u2: Any) -> int:
    """1 if triangles (v0, v1, v2) and (u0, u1, u2) intersect (touching included), else 0."""
    n1 = wp.cross(v1 - v0, v2 - v0)
    n2 = wp.cross(u1 - u0, u2 - u0)
    zero = type(n1[0])(0.0)
    v_flat = wp.length_sq(n1) == zero
    u_flat = wp.length_sq(n2) == zero
    if v_flat or u_flat:
        if v_flat and u_flat:
            va, vb = _longest_edge(v0, v1, v2)
            ua, ub = _longest_edge(u0, u1, u2)
            return int(_segments_meet_3d(va, vb, ua, ub))
        if v_flat:
            va, vb = _longest_edge(v0, v1, v2)
            return int(_segment_triangle(va, vb, u0, u1, u2, n2))
        ua, ub = _longest_edge(u0, u1, u2)
        return int(_segment_triangle(ua, ub, v0, v1, v2, n1))
    # the vertices of u against the plane of v
    du0 = _snap(wp.dot(n1, u0 - v0))
    du1 = _snap(wp.dot(n1, u1 - v0))
    du2 = _snap(wp.dot(n1, u2 - v0))
    if du0 * du1 > zero and du0 * du2 > zero:
        return 0
    # the vertices of v against the plane of u
    dv0 = _snap(wp.dot(n2, v0 - u0))
    dv1 = _snap(wp.dot(n2, v1 - u0))
    dv2 = _snap(wp.dot(n2, v2 - u0))
    if dv0 * dv1 > zero and dv0 * dv2 > zero:
        return 0
    # intervals on the line of the two planes, projected on its dominant axis
    axis = _dominant_axis(wp.cross(n1, n2))
    a_lo, a_hi, a_ok = _interval(v0[axis], v1[axis], v2[axis], dv0, dv1, dv2)
    if not a_ok:
        return int(_coplanar_tri_tri(_dominant_axis(n1), v0, v1, v2, u0, u1, u2))
    b_lo, b_hi, b_ok = _interval(u0[axis], u1[axis], u2[axis], du0, du1, du2)
    if not b_ok:
        return int(_coplanar_tri_tri(_dominant_axis(n1), v0, v1, v2, u0, u1, u2))
    if a_hi < b_lo or b_hi < a_lo:
        return 0
    return 1


def register(registry: BuiltinRegistry) -> None:
    """Register ``closest_point_edge_edge`` and ``intersect_tri_tri``."""
    v3, f32 = wp.vec3, wp.float32
    add_builtin(
        registry,
        "closest_point_edge_edge",
        params=[("p1", v3), ("q1", v3), ("p2", v3), ("q2", v3), ("epsilon", f32)],
        result=v3,
        func=closest_point_edge_edge_f,
        doc=(
            "Closest points of the segments [p1, q1] and [p2, q2]: ``(s, t, d)`` with the points "
            "``p1 + s*(q1 - p1)`` and ``p2 + t*(q2 - p2)`` and their distance ``d``; a segment whose "
            "squared length is <= ``epsilon`` is taken as a point (its weight is 0)."
        ),
        group=GROUP,
        differentiable=True,
    )
    for v in (wp.vec3, wp.vec3d):
        add_builtin(
            registry,
            "intersect_tri_tri",
            params=[("v0", v), ("v1", v), ("v2", v), ("u0", v), ("u1", v), ("u2", v)],
            result=wp.int32,
            func=intersect_tri_tri_f,
            doc=(
                "1 if the triangles (v0, v1, v2) and (u0, u1, u2) intersect (touching and coplanar "
                "overlap included), 0 otherwise (Moller's interval test)."
            ),
            group=GROUP,
        )
