"""Operators on vectors, matrices, quaternions and transforms (group "Operators").

``+ - * / % @``, unary ``- +`` and ``== !=`` on composite values. Typing is strict: both
operands must have the same component type (``vec3f + vec3d`` is an error); untyped float
literals adopt the partner's component type (``2.0 * v``). Products change shape like NumPy:
``(R, C) * (C) -> (R)``, ``(R) * (R, C) -> (C)``, ``(R, K) * (K, C) -> (R, C)``.
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from warp.extending import (
    bool as wp_bool, BuiltinRegistry, composite_values as lc, LowerContext, matrix, shift, vector,
)

from warp_builtins.composite_ir import Emitter, Num, result_type, scalar_of
from warp_builtins.composite_patterns import KINDS, B, F, I, S, Shaped, same

GROUP = "Operators"


# -- component-wise ---------------------------------------------------------------------------
def _cw_binary(op: str):
    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
        out = result_type(ctx)
        e = Emitter(ctx.builder, scalar_of(out))
        a = e.parts(types[0], args[0]) if types[0] is out else None
        b = e.parts(types[1], args[1]) if types[1] is out else None
        parts = a if a is not None else b
        assert parts is not None  # one operand at least is of the result type
        n = len(parts)
        a = a if a is not None else [Num(e, args[0])] * n
        b = b if b is not None else [Num(e, args[1])] * n
        return e.build(out, [e.binop(op, x, y) for x, y in zip(a, b)])

    return lower


def _lower_neg(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    return e.build(types[0], [-x for x in e.parts(types[0], args[0])])


def _lower_eq(negate: bool):
    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
        e = Emitter(ctx.builder, scalar_of(types[0]))
        a, b = e.parts(types[0], args[0]), e.parts(types[1], args[1])
        if not a:  # zero-length composites are equal
            return ir.Constant(ir.IntType(1), 0 if negate else 1)
        cond = a[0].eq(b[0])
        for x, y in zip(a[1:], b[1:]):
            cond = cond & x.eq(y)
        return (~cond).v if negate else cond.v

    return lower


# -- bitwise (integer vectors and matrices) ------------------------------------------------------
_BITWISE = {"bit_and": "and_", "bit_or": "or_", "bit_xor": "xor"}


def _lower_bitwise(op: str):
    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
        t, bld = types[0], ctx.builder
        pairs = zip(lc.components(bld, t, args[0]), lc.components(bld, t, args[1]))
        if op in _BITWISE:
            parts = [getattr(bld, _BITWISE[op])(x, y) for x, y in pairs]
        else:
            parts = [shift(bld, op, x, y, t._wp_scalar_type_) for x, y in pairs]
        return lc.assemble(bld, t, parts)

    return lower


def _lower_invert(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    t, bld = types[0], ctx.builder
    return lc.assemble(bld, t, [bld.not_(x) for x in lc.components(bld, t, args[0])])


# -- products ---------------------------------------------------------------------------------
def _mat_vec_type(ts: list) -> Any:
    return vector(ts[0]._shape_[0], ts[0]._wp_scalar_type_)


def _vec_mat_type(ts: list) -> Any:
    return vector(ts[1]._shape_[1], ts[1]._wp_scalar_type_)


def _mat_mat_type(ts: list) -> Any:
    return matrix((ts[0]._shape_[0], ts[1]._shape_[1]), ts[0]._wp_scalar_type_)


def _lower_mat_vec(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    rows, v = e.rows(types[0], args[0]), e.parts(types[1], args[1])
    return e.build(result_type(ctx), [e.dot(row, v) for row in rows])


def _lower_vec_mat(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[1]))
    v, rows = e.parts(types[0], args[0]), e.rows(types[1], args[1])
    cols = types[1]._shape_[1]
    return e.build(result_type(ctx), [e.dot(v, [row[j] for row in rows]) for j in range(cols)])


def _lower_mat_mat(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    a, b = e.rows(types[0], args[0]), e.rows(types[1], args[1])
    cols = types[1]._shape_[1]
    return e.build_rows(result_type(ctx), [[e.dot(row, [r[j] for r in b]) for j in range(cols)] for row in a])


def quat_mul(a: list[Num], b: list[Num]) -> list[Num]:
    """Hamilton product of quaternions stored (x, y, z, w)."""
    x1, y1, z1, w1 = a
    x2, y2, z2, w2 = b
    return [
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
    ]


def cross(a: list[Num], b: list[Num]) -> list[Num]:
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def quat_rotate(q: list[Num], v: list[Num]) -> list[Num]:
    """Rotate v by the unit quaternion q (warp's formula)."""
    u, w = q[:3], q[3]
    c = 2.0 * w * w - 1.0
    uxv = cross(u, v)
    d = (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) * 2.0
    return [v[i] * c + uxv[i] * w * 2.0 + u[i] * d for i in range(3)]


def _lower_quat_mul(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    return e.build(types[0], quat_mul(e.parts(types[0], args[0]), e.parts(types[1], args[1])))


def _lower_transform_mul(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    a, b = e.parts(types[0], args[0]), e.parts(types[1], args[1])
    p = [x + y for x, y in zip(quat_rotate(a[3:], b[:3]), a[:3])]
    return e.build(types[0], p + quat_mul(a[3:], b[3:]))


# -- registration -----------------------------------------------------------------------------
def register(registry: BuiltinRegistry) -> None:
    """Register the composite-type overloads of the operator builtins."""
    add = registry.add
    for kind in KINDS:
        V = same(kind)
        add("add", params=[("a", V), ("b", V)], result=V, lower=_cw_binary("add"), group=GROUP,
            doc="Component-wise sum of two vectors, matrices, quaternions or transforms of one type (a + b).")
        add(
            "sub",
            params=[("a", V), ("b", V)],
            result=V,
            lower=_cw_binary("sub"),
            group=GROUP,
            doc="Component-wise difference of two vectors, matrices, quaternions or transforms of "
                "one type (a - b).",
        )
        add("mul", params=[("a", S), ("b", V)], result=V, lower=_cw_binary("mul"), group=GROUP,
            doc="Scalar times vector, matrix, quaternion or transform: every component scaled (a * b).")
        add("mul", params=[("a", V), ("b", S)], result=V, lower=_cw_binary("mul"), group=GROUP,
            doc="Vector, matrix, quaternion or transform times scalar: every component scaled (a * b).")
        add("neg", params=[("x", V)], result=V, lower=_lower_neg, group=GROUP,
            doc="Component-wise negation of a vector, matrix, quaternion or transform (-x).")
        add("pos", params=[("x", V)], result=V, lower=lambda ctx, a, t: a[0], group=GROUP,
            doc="The value itself (+x).")
        VB = same(kind, dtype=B)
        add("eq", params=[("a", VB), ("b", VB)], result=wp_bool, lower=_lower_eq(False), group=GROUP,
            doc="True when two composite values of one type are equal in every component (a == b).")
        add("ne", params=[("a", VB), ("b", VB)], result=wp_bool, lower=_lower_eq(True), group=GROUP,
            doc="True when two composite values of one type differ in some component (a != b).")
    for kind in ("vector", "matrix", "quaternion"):
        V = same(kind)
        add("div", params=[("a", V), ("b", S)], result=V, lower=_cw_binary("div"), group=GROUP,
            doc="Vector, matrix or quaternion divided by a scalar, component-wise (a / b).")
    for kind in ("vector", "matrix", "quaternion"):
        V = same(kind)
        add("div", params=[("a", S), ("b", V)], result=V, lower=_cw_binary("div"), group=GROUP,
            doc="Scalar divided by each component of a vector, matrix or quaternion (a / b).")
    add("div_approx", params=[("a", F), ("b", F)], result=F, group=GROUP,
        lower=lambda ctx, a, t: ctx.builder.fdiv(*a),
        doc="Division a / b that may use a faster approximate reciprocal (computed exactly here).")
    for kind in ("vector", "matrix", "quaternion"):
        V = same(kind, dtype=F)
        add("div_approx", params=[("a", V), ("b", F)], result=V, lower=_cw_binary("div"), group=GROUP,
            doc="Vector, matrix or quaternion divided by a scalar, possibly approximately (exact here).")
        add("div_approx", params=[("a", F), ("b", V)], result=V, lower=_cw_binary("div"), group=GROUP,
            doc="Scalar divided by each component, possibly approximately (exact here).")
    V = same("vector")
    add("mod", params=[("a", V), ("b", V)], result=V, lower=_cw_binary("mod"), group=GROUP,
        doc="Component-wise remainder of two vectors (a % b), C fmod semantics.")

    for kind in ("vector", "matrix"):
        V = same(kind, "Int" + ("Vec" if kind == "vector" else "Mat"), dtype=I)
        ops = (("bit_and", "&"), ("bit_or", "|"), ("bit_xor", "^"), ("lshift", "<<"), ("rshift", ">>"))
        for name, sym in ops:
            add(name, params=[("a", V), ("b", V)], result=V, lower=_lower_bitwise(name), group=GROUP,
                doc=f"Component-wise a {sym} b of two integer {kind}s of one type (shifts as for scalars).")
        add("invert", params=[("a", V)], result=V, lower=_lower_invert, group=GROUP,
            doc=f"Component-wise bitwise complement (~a) of an integer {kind}.")

    mv = [("a", Shaped("matrix", ("R", "K"))), ("b", Shaped("vector", ("K",)))]
    vm = [("a", Shaped("vector", ("R",))), ("b", Shaped("matrix", ("R", "C")))]
    mm = [("a", Shaped("matrix", ("R", "K"))), ("b", Shaped("matrix", ("K", "C")))]
    for name, sym in (("mul", "*"), ("matmul", "@")):
        add(name, params=mv, result=_mat_vec_type, lower=_lower_mat_vec, group=GROUP,
            doc=f"Matrix-vector product (a {sym} b): an (R, C) matrix times a C-vector gives an R-vector.")
        add(name, params=vm, result=_vec_mat_type, lower=_lower_vec_mat, group=GROUP,
            doc=f"Vector-matrix product (a {sym} b): an R-vector times an (R, C) matrix gives a C-vector.")
        add(name, params=mm, result=_mat_mat_type, lower=_lower_mat_mat, group=GROUP,
            doc=f"Matrix product (a {sym} b): (R, K) times (K, C) gives (R, C).")
    Q = same("quaternion")
    add("mul", params=[("a", Q), ("b", Q)], result=Q, lower=_lower_quat_mul, group=GROUP,
        doc="Hamilton product of two quaternions (a * b), composing rotation b then a.")
    T = same("transform")
    add("mul", params=[("a", T), ("b", T)], result=T, lower=_lower_transform_mul, group=GROUP,
        doc="Composition of two rigid transforms (a * b): apply b, then a.")
