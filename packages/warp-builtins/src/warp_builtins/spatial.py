"""Spatial (6-D) vector algebra in Featherstone's convention.

A spatial vector is a 6-vector (w, v): the *top* three components are angular (w), the
*bottom* three linear (v). Motion vectors (twists) and force vectors (wrenches) share the
layout; spatial matrices are 6x6. Constructors are the named types (``wp.spatial_vector(w, v)``,
``wp.spatial_vector(wx, wy, wz, vx, vy, vz)``).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Sequence

from warp.extending import Float, MatrixOf, TransformOf, TypeVar, VectorOf, BuiltinRegistry
from warp_builtins.formula_builtins import add_formula, matrix_like, same_as, scalar_like, vector_like
from warp_builtins.irexpr import Num, add, cross, dot
from warp_builtins.quaternion import qrotate

GROUP = "Spatial Math"
F = TypeVar("F", Float)
SVEC = VectorOf(6, F)
VEC3 = VectorOf(3, F)
MAT33 = MatrixOf(3, 3, F)
XFORM = TransformOf(F)

# ---------------------------------------------------------------------------------- formulas


def scross(a: Sequence[Num], b: Sequence[Num]) -> list[Num]:
    """Motion cross product a x b: (wa x wb, va x wb + wa x vb)."""
    wa, va, wb, vb = a[:3], a[3:], b[:3], b[3:]
    return [*cross(wa, wb), *add(cross(va, wb), cross(wa, vb))]


def scross_dual(a: Sequence[Num], b: Sequence[Num]) -> list[Num]:
    """Force cross product a x* b: (wa x wb + va x vb, wa x vb)."""
    wa, va, wb, vb = a[:3], a[3:], b[:3], b[3:]
    return [*add(cross(wa, wb), cross(va, vb)), *cross(wa, vb)]


def adjoint(r: Sequence[Any], s: Sequence[Any]) -> list[Any]:
    """Row-major 6x6 [[R, 0], [S, R]] from row-major 3x3 R and S."""
    out: list[Any] = []
    for i in range(3):
        out += [*r[3 * i:3 * i + 3], 0.0, 0.0, 0.0]
    for i in range(3):
        out += [*s[3 * i:3 * i + 3], *r[3 * i:3 * i + 3]]
    return out


def twist(t: Sequence[Num], x: Sequence[Num]) -> list[Num]:
    """Motion vector x expressed in the parent frame of transform t."""
    p, q = t[:3], t[3:]
    w = qrotate(q, x[:3])
    v = add(qrotate(q, x[3:]), cross(p, w))
    return [*w, *v]


def wrench(t: Sequence[Num], x: Sequence[Num]) -> list[Num]:
    """Force vector x expressed in the parent frame of transform t."""
    p, q = t[:3], t[3:]
    v = qrotate(q, x[3:])
    w = add(qrotate(q, x[:3]), cross(p, v))
    return [*w, *v]


# ---------------------------------------------------------------------------------- builtins


_add = partial(add_formula, group=GROUP)


def register(registry: BuiltinRegistry) -> None:
    """Register the spatial math builtins."""
    _add(registry, "spatial_top", [("svec", SVEC)], vector_like(3, 0), lambda em, a: a[:3],
         "Top (angular) 3-vector of a spatial vector.")
    _add(registry, "spatial_bottom", [("svec", SVEC)], vector_like(3, 0), lambda em, a: a[3:],
         "Bottom (linear) 3-vector of a spatial vector.")
    _add(
        registry,
        "spatial_dot",
        [("a", SVEC), ("b", SVEC)],
        scalar_like(0),
        lambda em, a, b: dot(a, b),
        "Dot product of two spatial vectors (power of a wrench on a twist).",
    )
    _add(registry, "spatial_cross", [("a", SVEC), ("b", SVEC)], same_as(0), lambda em, a, b: scross(a, b),
         "Spatial cross product of motion vectors: (wa x wb, va x wb + wa x vb).")
    _add(
        registry,
        "spatial_cross_dual",
        [("a", SVEC), ("b", SVEC)],
        same_as(0),
        lambda em, a, b: scross_dual(a, b),
        "Dual spatial cross product (motion x force): (wa x wb + va x vb, wa x vb).",
    )
    _add(registry, "spatial_adjoint", [("r", MAT33), ("s", MAT33)], matrix_like(6, 6, 0),
         lambda em, r, s: adjoint(r, s), "6x6 block matrix [[R, 0], [S, R]] (adjoint of a transform).")
    _add(registry, "transform_twist", [("t", XFORM), ("x", SVEC)], vector_like(6, 1),
         lambda em, t, x: twist(t, x), "Transform a spatial motion vector (twist) by a rigid transform.")
    _add(
        registry,
        "transform_wrench",
        [("t", XFORM), ("x", SVEC)],
        vector_like(6, 1),
        lambda em, t, x: wrench(t, x),
        "Transform a spatial force vector (wrench) by a rigid transform.",
    )
    _add(registry, "velocity_at_point", [("qd", SVEC), ("r", VEC3)], vector_like(3, 1),
         lambda em, qd, r: add(cross(qd[:3], r), qd[3:]),
         "Linear velocity at point r of a body moving with spatial velocity qd: w x r + v.")
