"""Vector math builtins (group "Vector Math") and the composite overloads of a few utilities.

``register(registry)`` is the entry point for everything about vectors and matrices: it also
registers the operators (:mod:`composite_ops`), the matrix functions (:mod:`matrix_math`) and
the decompositions (:mod:`matrix_decomp`).

The anonymous constructors ``wp.vector``, ``wp.matrix`` and ``wp.identity`` take type and
shape keywords, so they are Python objects handled by the frontend rather than registry
builtins: see :mod:`composite_ctors` (exported through ``warp_exports``).
"""

from __future__ import annotations

import math
from typing import Any

import llvmlite.ir as ir

from warp.extending import (
    ANY_SCALAR, bool as wp_bool, BuiltinRegistry, int32, LowerContext, matrix, TypeVar, uint32,
)

from warp_builtins.composite_ir import Emitter, Num, result_type, scalar_of
from warp_builtins.composite_ops import cross
from warp_builtins.composite_patterns import F, S, of_kind, same, vec
from warp_builtins import composite_ops, matrix_decomp, matrix_math, composite_ctors

GROUP = "Vector Math"


# -- products and norms -----------------------------------------------------------------------
def _lower_dot(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    return e.dot(e.parts(types[0], args[0]), e.parts(types[1], args[1])).v


def _lower_length_sq(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    a = e.parts(types[0], args[0])
    return e.dot(a, a).v


def _length(e: Emitter, a: list[Num]) -> Num:
    return e.sqrt(e.dot(a, a))


def _lower_length(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    return _length(e, e.parts(types[0], args[0])).v


def _lower_normalize(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    a = e.parts(types[0], args[0])
    n = _length(e, a)
    ok = n > 0.0
    inv = 1.0 / e.select(ok, n, 1.0)
    return e.build(types[0], [e.select(ok, x * inv, 0.0) for x in a])


def _lower_cross(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    return e.build(types[0], cross(e.parts(types[0], args[0]), e.parts(types[1], args[1])))


def _cw(op: str):
    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
        e = Emitter(ctx.builder, scalar_of(types[0]))
        a, b = e.parts(types[0], args[0]), e.parts(types[1], args[1])
        return e.build(types[0], [e.binop(op, x, y) for x, y in zip(a, b)])

    return lower


def _arg_extreme(greater: bool):
    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
        e = Emitter(ctx.builder, scalar_of(types[0]))
        a = e.parts(types[0], args[0])
        best, index = a[0], ir.Constant(ir.IntType(32), 0)
        for i, x in enumerate(a[1:], start=1):
            better = x > best if greater else x < best
            best = e.select(better, x, best)
            index = ctx.builder.select(better.v, ir.Constant(ir.IntType(32), i), index)
        return index

    return lower


def _outer_type(ts: list) -> Any:
    return matrix((ts[0]._shape_[0], ts[1]._shape_[0]), ts[0]._wp_scalar_type_)


def _lower_outer(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    a, b = e.parts(types[0], args[0]), e.parts(types[1], args[1])
    return e.build(result_type(ctx), [x * y for x in a for y in b])


def _lower_lerp(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    a, b, t = e.parts(types[0], args[0]), e.parts(types[1], args[1]), Num(e, args[2])
    s = 1.0 - t
    return e.build(types[0], [x * s + y * t for x, y in zip(a, b)])


def _lower_norm_l1(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    return e.sum([e.abs(x) for x in e.parts(types[0], args[0])]).v


def _delta(e: Emitter, args: list[ir.Value]) -> Num:
    return Num(e, args[1]) if len(args) > 1 else e.c(1.0)


def _lower_norm_huber(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    a = e.parts(types[0], args[0])
    d = _delta(e, args)
    sq = e.dot(a, a)
    return e.select(sq <= d * d, 0.5 * sq, d * (e.sqrt(sq) - 0.5 * d)).v


def _pseudo_huber(e: Emitter, a: list[Num], d: Num) -> Num:
    # As NVIDIA Warp computes it: delta * sqrt(1 + |v|^2 / delta^2) (never zero, so that
    # smooth_normalize is defined at the origin).
    return d * e.sqrt(1.0 + e.dot(a, a) / (d * d))


def _lower_norm_pseudo_huber(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    return _pseudo_huber(e, e.parts(types[0], args[0]), _delta(e, args)).v


def _lower_smooth_normalize(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    a = e.parts(types[0], args[0])
    inv = 1.0 / _pseudo_huber(e, a, _delta(e, args))
    return e.build(types[0], [x * inv for x in a])


# -- component-wise scalar functions ------------------------------------------------------
def _map(fn_name: str):
    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
        e = Emitter(ctx.builder, scalar_of(types[0]))
        return e.build(types[0], [getattr(e, fn_name)(x) for x in e.parts(types[0], args[0])])

    return lower


def _map2(fn_name: str):
    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
        e = Emitter(ctx.builder, scalar_of(types[0]))
        a, b = e.parts(types[0], args[0]), e.parts(types[1], args[1])
        return e.build(types[0], [getattr(e, fn_name)(x, y) for x, y in zip(a, b)])

    return lower


def _reduce(fn_name: str):
    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
        e = Emitter(ctx.builder, scalar_of(types[0]))
        a = e.parts(types[0], args[0])
        best = a[0]
        for x in a[1:]:
            best = getattr(e, fn_name)(best, x)
        return best.v

    return lower


def _classify(test: str):
    """isfinite (all components finite), isnan / isinf (some component NaN / infinite)."""

    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
        scalar = scalar_of(types[0])
        e = Emitter(ctx.builder, scalar)
        parts = e.parts(types[0], args[0])
        if not e.is_float:
            return ir.Constant(ir.IntType(1), int(test == "isfinite"))
        inf = e.c(math.inf)
        if test == "isnan":
            conds = [x.ne(x) for x in parts]
        elif test == "isinf":
            conds = [e.abs(x).eq(inf) for x in parts]
        else:
            conds = [e.abs(x) < inf for x in parts]
        result = conds[0]
        for c in conds[1:]:
            result = (result & c) if test == "isfinite" else (result | c)
        return result.v

    return lower


# -- utilities: select / where / len ----------------------------------------------------------
def _truth(ctx: LowerContext, value: ir.Value, t: Any) -> ir.Value:
    if t._kind_ == "bool":
        return value
    return ctx.builder.icmp_unsigned("!=", value, ir.Constant(value.type, 0))


def _lower_select(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    cond, if_false, if_true = args
    return ctx.builder.select(_truth(ctx, cond, types[0]), if_true, if_false)


def _lower_where(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    cond, if_true, if_false = args
    return ctx.builder.select(_truth(ctx, cond, types[0]), if_true, if_false)


def _lower_len(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    return ir.Constant(ir.IntType(32), types[0]._shape_[0])


class _Cond:
    """Condition pattern: bool or any integer type."""

    def match(self, actual: Any, bindings: dict) -> bool:
        return actual is wp_bool or getattr(actual, "_kind_", None) in ("int", "uint")

    def __repr__(self) -> str:
        return "bool|Int"


# -- registration -----------------------------------------------------------------------------
def register(registry: BuiltinRegistry) -> None:
    """Register vector/matrix builtins and composite operators."""
    composite_ops.register(registry)
    _register_vector(registry)
    _register_utility(registry)
    matrix_math.register(registry)
    matrix_decomp.register(registry)


def exports() -> dict[str, Any]:
    """Python-scope names for the ``warp_exports`` hook: ``wp.vector``, ``wp.matrix``, ``wp.identity``."""
    return composite_ctors.exports()


def _register_vector(registry: BuiltinRegistry) -> None:
    add = registry.add
    g = GROUP
    V, Q = same("vector"), same("quaternion")
    VF, QF = same("vector", dtype=F), same("quaternion", dtype=F)
    for X in (V, Q):
        add("dot", params=[("a", X), ("b", X)], result=S, lower=_lower_dot, group=g,
            doc="Dot product of two vectors (or quaternions) of the same type.")
        add("length_sq", params=[("a", X)], result=S, lower=_lower_length_sq, group=g,
            doc="Squared Euclidean length, dot(a, a).")
    for X in (VF, QF):
        add("length", params=[("a", X)], result=F, lower=_lower_length, group=g,
            doc="Euclidean length sqrt(dot(a, a)).")
        add("normalize", params=[("a", X)], result=X, lower=_lower_normalize, group=g,
            doc="a divided by its length; the zero vector stays zero.")
    V3 = TypeVar("Vec3", vec(3))
    add("cross", params=[("a", V3), ("b", V3)], result=V3, lower=_lower_cross, group=g,
        doc="Cross product of two 3-vectors.")
    for kind in ("vector", "matrix"):
        X = same(kind)
        add("cw_mul", params=[("a", X), ("b", X)], result=X, lower=_cw("mul"), group=g,
            doc="Component-wise product of two vectors (or two matrices) of the same type.")
        add("cw_div", params=[("a", X), ("b", X)], result=X, lower=_cw("div"), group=g,
            doc="Component-wise quotient of two vectors (or two matrices) of the same type.")
    add("argmax", params=[("a", of_kind("vector"))], result=uint32, lower=_arg_extreme(True), group=g,
        doc="Index of the largest component (the first one on ties).")
    add("argmin", params=[("a", of_kind("vector"))], result=uint32, lower=_arg_extreme(False), group=g,
        doc="Index of the smallest component (the first one on ties).")
    add("outer", params=[("a", of_kind("vector")), ("b", of_kind("vector"))], result=_outer_type,
        lower=_lower_outer, group=g, doc="Outer product a b^T: matrix with entries a[i] * b[j].")
    add("norm_l1", params=[("v", VF)], result=F, lower=_lower_norm_l1, group=g,
        doc="L1 norm: sum of the absolute values of the components.")
    add("norm_l2", params=[("v", VF)], result=F, lower=_lower_length, group=g,
        doc="L2 (Euclidean) norm, same as length(v).")
    for name, lower, doc in (
        (
            "norm_huber",
            _lower_norm_huber,
            "Huber norm: |v|^2 / 2 inside delta, delta * (|v| - delta / 2) outside.",
        ),
        (
            "norm_pseudo_huber",
            _lower_norm_pseudo_huber,
            "Pseudo-Huber norm delta * sqrt(1 + |v|^2 / delta^2).",
        ),
    ):
        add(name, params=[("v", VF)], result=F, lower=lower, group=g, doc=doc + " delta defaults to 1.")
        add(name, params=[("v", VF), ("delta", F)], result=F, lower=lower, group=g, doc=doc)
    for params in ([("v", VF)], [("v", VF), ("delta", F)]):
        add(
            "smooth_normalize",
            params=params,
            result=VF,
            lower=_lower_smooth_normalize,
            group=g,
            doc="v divided by its pseudo-Huber norm: a normalization that is smooth at zero (delta "
                "defaults to 1).",
        )


def _register_utility(registry: BuiltinRegistry) -> None:
    add = registry.add
    V = same("vector")
    add("abs", params=[("x", V)], result=V, lower=_map("abs"), group="Scalar Math",
        doc="Component-wise absolute value of a vector.")
    add("sign", params=[("x", V)], result=V, lower=_map("sign"), group="Scalar Math",
        doc="Component-wise sign of a vector: -1 for negative components, 1 otherwise.")
    add("min", params=[("a", V), ("b", V)], result=V, lower=_map2("min"), group="Scalar Math",
        doc="Component-wise minimum of two vectors.")
    add("max", params=[("a", V), ("b", V)], result=V, lower=_map2("max"), group="Scalar Math",
        doc="Component-wise maximum of two vectors.")
    add("min", params=[("a", V)], result=S, lower=_reduce("min"), group="Scalar Math",
        doc="Smallest component of a vector.")
    add("max", params=[("a", V)], result=S, lower=_reduce("max"), group="Scalar Math",
        doc="Largest component of a vector.")
    for kind in ("vector", "quaternion", "matrix"):
        for test, doc in (
            ("isfinite", "True when every component is finite (not NaN nor infinite)."),
            ("isnan", "True when some component is NaN."),
            ("isinf", "True when some component is infinite."),
        ):
            add(
                test,
                params=[("a", of_kind(kind))],
                result=wp_bool,
                lower=_classify(test),
                group="Scalar Math",
                doc=doc,
            )
    for kind in ("vector", "matrix", "quaternion", "transform"):
        X = same(kind, dtype=F)
        add(
            "lerp",
            params=[("a", X), ("b", X), ("t", F)],
            result=X,
            lower=_lower_lerp,
            group="Utility",
            doc="Linear interpolation a * (1 - t) + b * t of two vectors, matrices, quaternions or "
                "transforms.",
        )
        add("len", params=[("a", of_kind(kind, ANY_SCALAR))], result=int32, lower=_lower_len, group="Utility",
            doc="Number of components of a vector, quaternion or transform; number of rows of a matrix.")
    T = TypeVar("T")
    cond = _Cond()
    add("select", params=[("cond", cond), ("value_if_false", T), ("value_if_true", T)], result=T,
        lower=_lower_select, group="Utility",
        doc="value_if_true when cond is true (non-zero), else value_if_false (both are evaluated).")
    add("where", params=[("cond", cond), ("value_if_true", T), ("value_if_false", T)], result=T,
        lower=_lower_where, group="Utility",
        doc="value_if_true when cond is true (non-zero), else value_if_false (both are evaluated).")


__all__ = ["exports", "register"]
