"""Rules for vector, matrix and quaternion builtins (operators with composite operands, dot,
cross, length, normalize, outer, transpose, matrix products, inverse, determinant, ...).

Each rule applies only to argument types with a composite operand (the scalar rules of the
same names stay in :mod:`.core` and :mod:`.scalar_math`). Rules are written with the builtins
themselves (``transpose``, ``outer``, ``cw_mul``, ...) plus ``adj_inner``, the sum of
component-wise products of two composites of one type.
"""

from __future__ import annotations

from typing import Any

from warp.extending import CONSTRUCT, int32, is_scalar_type, FILL, vector, derivative, zero_derivative

from warp_autodiff import ops
from warp_autodiff.rules.context import RuleContext
from warp_autodiff.rules.scalar_math import picks_first


def _kind(t: Any) -> str:
    return "scalar" if is_scalar_type(t) else getattr(t, "_wp_kind_", "")


def _kinds(*kinds: str):
    """Predicate: the argument types have exactly these kinds (scalar/vector/matrix/...)."""

    def applies(types: list[Any]) -> bool:
        return len(types) == len(kinds) and all(
            k == "*" or _kind(t) in k.split("|") for t, k in zip(types, kinds)
        )

    return applies


def _any_composite(types: list[Any]) -> bool:
    return any(not is_scalar_type(t) for t in types)


def inner(ctx: RuleContext, a: Any, b: Any) -> Any:
    return ctx.e.internal(ops.INNER, [a, b], a.type._wp_scalar_type_)


LINEAR = "vector|matrix|quaternion|transform"

# -- scaling ------------------------------------------------------------------------------------

@derivative("mul", applies=_kinds(LINEAR, "scalar"))
def _mul_composite_scalar(ctx: RuleContext) -> list[Any]:
    c, s = ctx.args
    g = ctx.adj_out
    return [ctx.e.mul(g, s) if ctx.wants(0) else None, inner(ctx, g, c) if ctx.wants(1) else None]


@derivative("mul", applies=_kinds("scalar", LINEAR))
def _mul_scalar_composite(ctx: RuleContext) -> list[Any]:
    s, c = ctx.args
    g = ctx.adj_out
    return [inner(ctx, g, c) if ctx.wants(0) else None, ctx.e.mul(s, g) if ctx.wants(1) else None]


@derivative("div", "div_approx", applies=_kinds("vector|matrix|quaternion", "scalar"))
def _div_composite_scalar(ctx: RuleContext) -> list[Any]:
    c, s = ctx.args
    e, g = ctx.e, ctx.adj_out
    dc = e.div(g, s) if ctx.wants(0) else None
    # d(c / s)/ds = -c / s^2, as -<g, c> / (s * s): in float16 each step rounds as written
    ds = e.neg(e.div(inner(ctx, g, c), e.mul(s, s))) if ctx.wants(1) else None
    return [dc, ds]


@derivative("div", "div_approx", applies=_kinds("scalar", "vector|matrix"))
def _div_scalar_composite(ctx: RuleContext) -> list[Any]:
    s, c = ctx.args
    e, g, r = ctx.e, ctx.adj_out, ctx.results[0]
    ds = inner(ctx, g, e.call("div", e.scalar(1.0, s), c)) if ctx.wants(0) else None
    dc = e.neg(e.call("cw_mul", g, e.call("cw_div", r, c))) if ctx.wants(1) else None
    return [ds, dc]


# -- matrix products ----------------------------------------------------------------------------

def _matrix_product(ctx: RuleContext) -> list[Any]:
    a, b = ctx.args
    e, g = ctx.e, ctx.adj_out
    ka, kb = _kind(a.type), _kind(b.type)
    if ka == "matrix" and kb == "vector":  # r = A v
        da = e.call("outer", g, b) if ctx.wants(0) else None
        db = e.mul(e.call("transpose", a), g) if ctx.wants(1) else None
    elif ka == "vector" and kb == "matrix":  # r = v^T B
        da = e.mul(b, g) if ctx.wants(0) else None
        db = e.call("outer", a, g) if ctx.wants(1) else None
    else:  # r = A B
        da = e.mul(g, e.call("transpose", b)) if ctx.wants(0) else None
        db = e.mul(e.call("transpose", a), g) if ctx.wants(1) else None
    return [da, db]


for _name in ("mul", "matmul"):
    derivative(_name, applies=_kinds("matrix", "vector|matrix"))(_matrix_product)
    derivative(_name, applies=_kinds("vector", "matrix"))(_matrix_product)


@derivative("mul", applies=_kinds("quaternion", "quaternion"))
def _quat_product(ctx: RuleContext) -> list[Any]:
    """r = a b (Hamilton): adj_a = adj conj(b), adj_b = conj(a) adj."""
    a, b = ctx.args
    e, g = ctx.e, ctx.adj_out

    def conj(q: Any) -> Any:
        parts = [e.call("extract", q, e.const(k, int32)) for k in range(4)]
        return e.internal(CONSTRUCT, [e.neg(parts[0]), e.neg(parts[1]), e.neg(parts[2]), parts[3]], q.type)

    return [e.mul(g, conj(b)) if ctx.wants(0) else None, e.mul(conj(a), g) if ctx.wants(1) else None]


# -- vector algebra -----------------------------------------------------------------------------

@derivative("dot", applies=_any_composite)
def _dot(ctx: RuleContext) -> list[Any]:
    a, b = ctx.args
    g = ctx.adj_out
    return [ctx.e.mul(b, g) if ctx.wants(0) else None, ctx.e.mul(a, g) if ctx.wants(1) else None]


derivative("spatial_dot", applies=_any_composite)(_dot)


@derivative("ddot", applies=_any_composite)
def _ddot(ctx: RuleContext) -> list[Any]:
    a, b = ctx.args
    g = ctx.adj_out
    return [ctx.e.mul(b, g) if ctx.wants(0) else None, ctx.e.mul(a, g) if ctx.wants(1) else None]


@derivative("cross", applies=_any_composite)
def _cross(ctx: RuleContext) -> list[Any]:
    a, b = ctx.args
    e, g = ctx.e, ctx.adj_out
    return [e.call("cross", b, g) if ctx.wants(0) else None, e.call("cross", g, a) if ctx.wants(1) else None]


@derivative("length", applies=_any_composite)
def _length(ctx: RuleContext) -> list[Any]:
    (v,) = ctx.args
    e, g, r = ctx.e, ctx.adj_out, ctx.results[0]
    positive = e.cmp("gt", r, e.scalar(0.0, r))
    scale = e.select(positive, e.div(g, e.select(positive, r, e.scalar(1.0, r))), e.scalar(0.0, r))
    return [e.mul(v, scale)]


derivative("norm_l2", applies=_any_composite)(_length)


@derivative("norm_l1", applies=_kinds("vector"))
def _norm_l1(ctx: RuleContext) -> list[Any]:
    e, g = ctx.e, ctx.adj_out
    parts = [e.select(e.cmp("lt", x, e.scalar(0.0, x)), e.neg(g), g) for x in _components(ctx, ctx.args[0])]
    return [e.internal(CONSTRUCT, parts, ctx.op.args[0].type)]


@derivative("length_sq", applies=_any_composite)
def _length_sq(ctx: RuleContext) -> list[Any]:
    (v,) = ctx.args
    e, g = ctx.e, ctx.adj_out
    return [e.mul(v, e.mul(e.scalar(2.0, g), g))]


@derivative("normalize", applies=_any_composite)
def _normalize(ctx: RuleContext) -> list[Any]:
    """r = v / |v|: adj_v = (adj - r (r . adj)) / |v| (zero for a zero vector)."""
    (v,) = ctx.args
    e, g, r = ctx.e, ctx.adj_out, ctx.results[0]
    length = e.call("length", v)
    positive = e.cmp("gt", length, e.scalar(0.0, length))
    safe = e.select(positive, length, e.scalar(1.0, length))
    projected = e.sub(g, e.mul(r, e.call("dot", r, g)))
    return [e.select(positive, e.div(projected, safe), e.zero(v.type))]


@derivative("outer", applies=_any_composite)
def _outer(ctx: RuleContext) -> list[Any]:
    a, b = ctx.args
    e, g = ctx.e, ctx.adj_out
    return [e.mul(g, b) if ctx.wants(0) else None, e.mul(a, g) if ctx.wants(1) else None]


@derivative("transpose", applies=_any_composite, primal_args=())
def _transpose(ctx: RuleContext) -> list[Any]:
    return [ctx.e.call("transpose", ctx.adj_out)]


@derivative("trace", applies=_any_composite, primal_args=())
def _trace(ctx: RuleContext) -> list[Any]:
    m = ctx.op.args[0].type
    ones = ctx.e.internal(FILL, [ctx.adj_out], vector(m._shape_[0], m._wp_scalar_type_))
    return [ctx.e.call("diag", ones)]


@derivative("diag", applies=_any_composite, primal_args=())
def _diag(ctx: RuleContext) -> list[Any]:
    return [ctx.e.call("get_diag", ctx.adj_out)]


@derivative("get_diag", applies=_any_composite, primal_args=())
def _get_diag(ctx: RuleContext) -> list[Any]:
    return [ctx.e.call("diag", ctx.adj_out)]


@derivative("cw_mul", applies=_any_composite)
def _cw_mul(ctx: RuleContext) -> list[Any]:
    a, b = ctx.args
    e, g = ctx.e, ctx.adj_out
    return [
        e.call("cw_mul", g, b) if ctx.wants(0) else None,
        e.call("cw_mul", g, a) if ctx.wants(1) else None,
    ]


@derivative("cw_div", applies=_any_composite)
def _cw_div(ctx: RuleContext) -> list[Any]:
    a, b = ctx.args
    e, g, r = ctx.e, ctx.adj_out, ctx.results[0]
    da = e.call("cw_div", g, b) if ctx.wants(0) else None
    db = e.neg(e.call("cw_mul", g, e.call("cw_div", r, b))) if ctx.wants(1) else None
    return [da, db]


@derivative("determinant", applies=_any_composite)
def _determinant(ctx: RuleContext) -> list[Any]:
    """d det(M) / dM = det(M) M^-T."""
    (m,) = ctx.args
    e = ctx.e
    return [e.mul(e.call("transpose", e.call("inverse", m)), e.mul(ctx.results[0], ctx.adj_out))]


@derivative("inverse", "inverse_approx", applies=_any_composite)
def _inverse(ctx: RuleContext) -> list[Any]:
    """r = M^-1: adj_M = -r^T adj r^T."""
    e, g = ctx.e, ctx.adj_out
    rt = e.call("transpose", ctx.results[0])
    return [e.neg(e.mul(e.mul(rt, g), rt))]


@derivative("skew", applies=_any_composite, primal_args=())
def _skew(ctx: RuleContext) -> list[Any]:
    e, g = ctx.e, ctx.adj_out

    def at(i: int, j: int) -> Any:
        return e.call("extract", g, e.const(i, int32), e.const(j, int32))

    parts = [e.sub(at(2, 1), at(1, 2)), e.sub(at(0, 2), at(2, 0)), e.sub(at(1, 0), at(0, 1))]
    return [e.internal(CONSTRUCT, parts, ctx.op.args[0].type)]


def _from_vectors(ctx: RuleContext) -> list[Any]:
    e, g = ctx.e, ctx.adj_out
    rows = g if ctx.name == "matrix_from_rows" else e.call("transpose", g)
    return [
        e.call("extract", rows, e.const(k, int32)) if ctx.wants(k) else None for k in range(len(ctx.args))
    ]


derivative("matrix_from_rows", applies=_any_composite, primal_args=())(_from_vectors)
derivative("matrix_from_cols", applies=_any_composite, primal_args=())(_from_vectors)


@derivative("lerp", applies=_kinds(LINEAR, LINEAR, "scalar"))
def _lerp_composite(ctx: RuleContext) -> list[Any]:
    a, b, t = ctx.args
    e, g = ctx.e, ctx.adj_out
    return [
        e.mul(g, e.sub(e.scalar(1.0, t), t)) if ctx.wants(0) else None,
        e.mul(g, t) if ctx.wants(1) else None,
        inner(ctx, g, e.sub(b, a)) if ctx.wants(2) else None,
    ]


# -- component-wise scalar functions of vectors -------------------------------------------------

def _components(ctx: RuleContext, value: Any) -> list[Any]:
    n = value.type._shape_[0]
    return [ctx.e.call("extract", value, ctx.e.const(k, int32)) for k in range(n)]


@derivative("abs", applies=_kinds("vector"))
def _abs_vector(ctx: RuleContext) -> list[Any]:
    e = ctx.e
    parts = [e.select(e.cmp("lt", x, e.scalar(0.0, x)), e.neg(g), g)
             for x, g in zip(_components(ctx, ctx.args[0]), _components(ctx, ctx.adj_out))]
    return [e.internal(CONSTRUCT, parts, ctx.op.args[0].type)]


@derivative("min", "max", applies=_kinds("vector", "vector"))
def _min_max_vector(ctx: RuleContext) -> list[Any]:
    e = ctx.e
    a, b = ctx.args
    pick_a, pick_b = [], []
    for x, y, g in zip(_components(ctx, a), _components(ctx, b), _components(ctx, ctx.adj_out)):
        first = picks_first(e, ctx.name, x, y)
        zero = e.scalar(0.0, x)
        pick_a.append(e.select(first, g, zero))
        pick_b.append(e.select(first, zero, g))
    return [e.internal(CONSTRUCT, pick_a, a.type) if ctx.wants(0) else None,
            e.internal(CONSTRUCT, pick_b, b.type) if ctx.wants(1) else None]


@derivative("min", "max", applies=_kinds("vector"))
def _min_max_reduce(ctx: RuleContext) -> list[Any]:
    """The gradient goes to the first component equal to the result (the reduction drops NaN
    components, so a NaN component never receives it unless all are NaN: then component 0)."""
    (v,) = ctx.args
    e = ctx.e
    result = e.call(ctx.name, v)
    index = e.const(0, int32)
    for i in reversed(range(v.type._shape_[0])):
        k = e.const(i, int32)
        index = e.select(e.cmp("eq", e.call("extract", v, k), result), k, index)
    return [e.call("assign_copy", e.zero(v.type), index, ctx.adj_out)]


zero_derivative("argmin", "argmax")
derivative("sign", applies=_kinds("vector"), primal_args=())(lambda ctx: None)


@derivative("mod", applies=_kinds("vector", "vector"))
def _mod_vector(ctx: RuleContext) -> list[Any]:
    """Component-wise fmod(a, b) = a - trunc(a / b) * b."""
    a, b = ctx.args
    e = ctx.e
    db = None
    if ctx.wants(1):
        parts = [e.neg(e.mul(g, e.internal(ops.TRUNC, [e.div(x, y)], x.type)))
                 for x, y, g in zip(_components(ctx, a), _components(ctx, b), _components(ctx, ctx.adj_out))]
        db = e.internal(CONSTRUCT, parts, b.type)
    return [ctx.adj_out if ctx.wants(0) else None, db]


@derivative("div", "div_approx", applies=_kinds("scalar", "quaternion"))
def _div_scalar_quat(ctx: RuleContext) -> list[Any]:
    """r = s / q component-wise: adj_s = sum adj_i / q_i, adj_q_i = -adj_i r_i / q_i."""
    s, q = ctx.args
    e, g, r = ctx.e, ctx.adj_out, ctx.results[0]

    def comps(value: Any) -> list[Any]:
        return [e.call("extract", value, e.const(k, int32)) for k in range(4)]

    gs, qs, rs = comps(g), comps(q), comps(r)
    ds = None
    if ctx.wants(0):
        ds = e.div(gs[0], qs[0])
        for gi, qi in zip(gs[1:], qs[1:]):
            ds = e.add(ds, e.div(gi, qi))
    dq = None
    if ctx.wants(1):
        dq = e.internal(
            CONSTRUCT, [e.neg(e.div(e.mul(gi, ri), qi)) for gi, ri, qi in zip(gs, rs, qs)], q.type
        )
    return [ds, dq]
