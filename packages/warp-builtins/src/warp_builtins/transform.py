"""Rigid transforms: (p, q) pairs of a translation and a unit quaternion, and 4x4 matrices.

A transform maps a point x to ``p + rotate(q, x)``. Matrices use the column-vector convention
(translation in the last column). ``transform_set_translation`` / ``transform_set_rotation``
update the transform variable passed as first argument (the frontend rebinds it, see
``mutates_first_arg``); the ``_copy`` variants return the updated transform instead.
"""

from __future__ import annotations

import ast
from functools import partial
from typing import Any, Sequence

from warp.extending import (
    BuiltinRegistry,
    Float,
    is_placeholder,
    MatrixOf,
    quaternion,
    QuatOf,
    transformation as xform_type,
    TransformOf,
    TypeVar,
    vector,
    VectorOf,
)
from warp_builtins.formula_builtins import (
    add_formula, matrix_like, quat_like, scalar_of, vector_like, xform_like,
)
from warp_builtins.irexpr import Emitter, Num, add, length, mark_mutating, neg, scale
from warp_builtins.quaternion import qconj, qfrom_matrix, qmul, qrotate, qto_matrix
from warp_builtins.special_forms import SpecialForm, constructor_kernel, identity_kernel, python_dtype

GROUP = "Transformations"
F = TypeVar("F", Float)
XFORM = TransformOf(F)
QUAT = QuatOf(F)
VEC3 = VectorOf(3, F)
MAT44 = MatrixOf(4, 4, F)

# ---------------------------------------------------------------------------------- formulas


def tmul(a: Sequence[Num], b: Sequence[Num]) -> list[Num]:
    """Composition a * b (apply b, then a)."""
    pa, qa, pb, qb = a[:3], a[3:], b[:3], b[3:]
    return [*add(qrotate(qa, pb), pa), *qmul(qa, qb)]


def tinverse(t: Sequence[Num]) -> list[Num]:
    qi = qconj(t[3:])
    return [*neg(qrotate(qi, t[:3])), *qi]


def tpoint(t: Sequence[Num], x: Sequence[Num]) -> list[Num]:
    return add(qrotate(t[3:], x), t[:3])


def mat_point(m: Sequence[Num], x: Sequence[Num], w: float) -> list[Num]:
    """First three rows of m @ (x, w) for a row-major 4x4 m (w = 1 for points, 0 for vectors)."""
    rows = []
    for r in range(3):
        acc = m[4 * r] * x[0] + m[4 * r + 1] * x[1] + m[4 * r + 2] * x[2]
        rows.append(acc + m[4 * r + 3] if w else acc)
    return rows


def compose(em: Emitter, p: Sequence[Num], q: Sequence[Num], s: Sequence[Num]) -> list[Num]:
    """Row-major 4x4 matrix [R(q) diag(s) | p; 0 0 0 1]; R is quat_to_matrix(q) as that builtin
    returns it (float16: rounded before scaling, as multiplying its result would)."""
    r = [em.stored(v) for v in qto_matrix(q)]
    out: list[Any] = []
    for i in range(3):
        out += [r[3 * i] * s[0], r[3 * i + 1] * s[1], r[3 * i + 2] * s[2], p[i]]
    return out + [0.0, 0.0, 0.0, 1.0]


def to_matrix(em: Emitter, t: Sequence[Num]) -> list[Num]:
    one = em.const(1.0)
    return compose(em, t[:3], t[3:], [one, one, one])


def from_matrix(em: Emitter, m: Sequence[Num]) -> list[Num]:
    return [m[3], m[7], m[11], *qfrom_matrix(em, m, 4)]


def decompose(em: Emitter, m: Sequence[Num]) -> tuple[list[Num], list[Num], list[Num]]:
    """(position, rotation, scale) of a matrix made by :func:`compose` (no shear, no reflection)."""
    cols = [[m[j], m[4 + j], m[8 + j]] for j in range(3)]
    s = [length(em, c) for c in cols]
    inv = [em.select(n > 0.0, 1.0 / n, 0.0) for n in s]
    unit = [scale(c, k) for c, k in zip(cols, inv)]
    r = [unit[j][i] for i in range(3) for j in range(3)]  # row-major
    return [m[3], m[7], m[11]], qfrom_matrix(em, r, 3), s


# ---------------------------------------------------------------------------------- builtins


_add = partial(add_formula, group=GROUP)


def _decompose_result(ts: list) -> tuple:
    s = scalar_of(ts[0])
    return (vector(3, s), quaternion(s), vector(3, s))


def register(registry: BuiltinRegistry) -> None:
    """Register the transform builtins."""
    _add(registry, "transform_get_translation", [("xform", XFORM)], vector_like(3, 0), lambda em, t: t[:3],
         "Translation part p of a transform (also t.p).")
    _add(registry, "transform_get_rotation", [("xform", XFORM)], quat_like(0),
         lambda em, t: t[3:], "Rotation part q of a transform (also t.q).")
    _add(
        registry,
        "transform_multiply",
        [("a", XFORM), ("b", XFORM)],
        xform_like(0),
        lambda em, a, b: tmul(a, b),
        "Composition of two transforms: applying the result applies b, then a.",
    )
    _add(registry, "transform_inverse", [("xform", XFORM)], xform_like(0), lambda em, t: tinverse(t),
         "Inverse of a rigid transform.")
    _add(registry, "transform_point", [("xform", XFORM), ("point", VEC3)], vector_like(3, 1),
         lambda em, t, x: tpoint(t, x), "Apply a transform to a point (rotation and translation).")
    _add(
        registry,
        "transform_point",
        [("mat", MAT44), ("point", VEC3)],
        vector_like(3, 1),
        lambda em, m, x: mat_point(m, x, 1.0),
        "Apply a 4x4 matrix to a point (homogeneous w = 1, no divide).",
    )
    _add(registry, "transform_vector", [("xform", XFORM), ("vec", VEC3)], vector_like(3, 1),
         lambda em, t, v: qrotate(t[3:], v), "Apply a transform to a direction (rotation only).")
    _add(registry, "transform_vector", [("mat", MAT44), ("vec", VEC3)], vector_like(3, 1),
         lambda em, m, v: mat_point(m, v, 0.0), "Apply a 4x4 matrix to a direction (homogeneous w = 0).")
    _add(registry, "transform_to_matrix", [("xform", XFORM)], matrix_like(4, 4, 0), to_matrix,
         "4x4 matrix of a transform (rotation block and translation column).")
    _add(registry, "transform_from_matrix", [("mat", MAT44)], xform_like(0), from_matrix,
         "Transform of a 4x4 rigid transformation matrix.")
    _add(registry, "transform_compose", [("position", VEC3), ("rotation", QUAT), ("scale", VEC3)],
         matrix_like(4, 4, 0), compose,
         "4x4 matrix from a position, a rotation quaternion and a per-axis scale (scale applied first).")
    _add(registry, "transform_decompose", [("m", MAT44)],
         _decompose_result, decompose,
         "Position, rotation and scale of a 4x4 matrix made by transform_compose, as a tuple.")
    _add(registry, "transform_set_translation_copy", [("xform", XFORM), ("p", VEC3)], xform_like(0),
         lambda em, t, p: [*p, *t[3:]], "Copy of a transform with its translation replaced.")
    _add(registry, "transform_set_rotation_copy", [("xform", XFORM), ("q", QUAT)], xform_like(0),
         lambda em, t, q: [*t[:3], *q], "Copy of a transform with its rotation replaced.")
    mark_mutating(
        _add(
            registry,
            "transform_set_translation",
            [("xform", XFORM), ("p", VEC3)],
            xform_like(0),
            lambda em, t, p: [*p, *t[3:]],
            "Replace the translation of a transform variable in place.",
        )
    )
    mark_mutating(
        _add(
            registry,
            "transform_set_rotation",
            [("xform", XFORM), ("q", QUAT)],
            xform_like(0),
            lambda em, t, q: [*t[:3], *q],
            "Replace the rotation of a transform variable in place.",
        )
    )


# ---------------------------------------------------------------------------------- type arguments


def _generic_or_value(make: Any, args: tuple, dtype: Any) -> Any:
    """Python scope: a value, or the generic annotation when only a placeholder dtype is given."""
    if not args and is_placeholder(dtype):
        return make(dtype)  # e.g. wp.transformation(dtype=Any) as a parameter annotation
    return make(python_dtype(args, dtype))(*args)


transform_identity = SpecialForm(
    "transform_identity",
    kernel=identity_kernel("transform_identity", xform_type, (0.0,) * 6 + (1.0,)),
    python=lambda dtype=None: xform_type(python_dtype((), dtype))(*([0.0] * 6 + [1.0])),
    group=GROUP,
    doc="The identity transform (p = 0, q = identity) of a float type (dtype defaults to float32).",
    signatures=["(dtype: Float = float32) -> transformation(dtype)"],
)

def _transformation_kernel(builder: Any, node: ast.Call) -> Any:
    """``wp.transformation(p, q)`` in kernels, p and q also by keyword (``p=v, q=r``)."""
    named = [kw for kw in node.keywords if kw.arg in ("p", "q")]
    if not named:
        return _positional_transformation(builder, node)
    params = [n for n in ("p", "q") if n not in {kw.arg for kw in named}]
    if len(node.args) > len(params) or (node.args and params[0] != "p"):
        raise builder.error("transformation() got multiple values for 'p' or 'q'", node=node)
    by_name = {kw.arg: kw.value for kw in named}
    by_name.update(zip(params, node.args))
    if set(by_name) != {"p", "q"}:
        raise builder.error("transformation(p=..., q=...) needs both p and q", node=node)
    rest = [kw for kw in node.keywords if kw.arg not in ("p", "q")]
    call = ast.copy_location(ast.Call(func=node.func, args=[by_name["p"], by_name["q"]], keywords=rest), node)
    return _positional_transformation(builder, call)


_positional_transformation = constructor_kernel("transformation", xform_type)


def _transformation_python(*args: Any, p: Any = None, q: Any = None, dtype: Any = None) -> Any:
    if p is not None or q is not None:
        if args or p is None or q is None:
            raise TypeError("transformation() takes p and q, positionally or by keyword")
        args = (p, q)
    return _generic_or_value(xform_type, args, dtype)


transformation = SpecialForm(
    "transformation",
    kernel=_transformation_kernel,
    python=_transformation_python,
    group=GROUP,
    doc="Transform from a translation p and a rotation q, or from its 7 components; all zeros with "
        "no arguments in kernels (the identity transform in Python scope).",
    signatures=[
        "(p: vector(3, Float), q: quaternion(Float), dtype: Float = inferred) -> transformation(dtype)",
        "(*args: Float, dtype: Float = inferred) -> transformation(dtype)",
    ],
)

EXPORTS = {"transform_identity": transform_identity, "transformation": transformation}


def exports() -> dict[str, Any]:
    """Python-scope names to publish on ``wp`` (``warp_exports`` hook)."""
    return dict(EXPORTS)
