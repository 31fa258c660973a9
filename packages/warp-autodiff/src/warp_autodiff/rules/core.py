"""Rules for warp-core's builtins: operators, casts, comparisons, arrays, atomics, composites."""

from __future__ import annotations

import math
from typing import Any

from warp.extending import (
    CONSTRUCT, CONVERT, derivative, FILL, GET_FIELD, int32, is_scalar_type, SET_FIELD, zero_derivative,
)

from warp_autodiff import ops
from warp_autodiff.rules.context import RuleContext
from warp_autodiff.adjoint_types import is_differentiable


def _scalars(types: list[Any]) -> bool:
    return all(is_scalar_type(t) for t in types)


def _same_composites(types: list[Any]) -> bool:
    """All operands of one (composite) type: element-wise linear operators apply unchanged."""
    return len(set(types)) == 1 and not is_scalar_type(types[0])


# -- arithmetic ---------------------------------------------------------------------------------

@derivative("add", "sub", applies=lambda ts: _scalars(ts) or _same_composites(ts), primal_args=())
def _add_sub(ctx: RuleContext) -> list[Any]:
    g = ctx.adj_out
    second = g if ctx.name == "add" else (ctx.e.neg(g) if ctx.wants(1) else None)
    return [g, second]


@derivative(ops.ADD, primal_args=())
def _adj_add(ctx: RuleContext) -> list[Any]:
    # the sums of adjoints inside an adjoint function (second derivatives: wp.grad(f) under a Tape)
    return [ctx.adj_out, ctx.adj_out]


@derivative("pos", primal_args=())
def _pos(ctx: RuleContext) -> list[Any]:
    return [ctx.adj_out]


@derivative("neg", primal_args=())
def _neg(ctx: RuleContext) -> list[Any]:
    return [ctx.e.neg(ctx.adj_out)]


def _mul_needs(op: Any) -> tuple[int, ...]:
    """a * b reads b for adj_a and a for adj_b (constants take no adjoint)."""
    def wants(k: int) -> bool:
        return is_differentiable(op.args[k].type) and not op.args[k].is_const

    return tuple(k for k, other in ((1, 0), (0, 1)) if wants(other))


@derivative("mul", applies=_scalars, primal_args=_mul_needs)
def _mul(ctx: RuleContext) -> list[Any]:
    a, b = ctx.args
    g, e = ctx.adj_out, ctx.e
    return [e.mul(g, b) if ctx.wants(0) else None, e.mul(g, a) if ctx.wants(1) else None]


@derivative("div", "div_approx", applies=_scalars)
def _div(ctx: RuleContext) -> list[Any]:
    a, b = ctx.args
    g, e = ctx.adj_out, ctx.e
    da = e.div(g, b) if ctx.wants(0) else None
    db = e.neg(e.div(e.mul(g, ctx.results[0]), b)) if ctx.wants(1) else None
    return [da, db]


@derivative("mod", applies=_scalars)
def _mod(ctx: RuleContext) -> list[Any]:
    """fmod(a, b) = a - trunc(a / b) * b."""
    a, b = ctx.args
    g, e = ctx.adj_out, ctx.e
    db = None
    if ctx.wants(1):
        q = e.internal(ops.TRUNC, [e.div(a, b)], a.type)
        db = e.neg(e.mul(g, q))
    return [g if ctx.wants(0) else None, db]


zero_derivative("floordiv")  # piecewise constant

# -- comparisons, logic, bit operations: no derivative ------------------------------------------
zero_derivative("lt", "le", "gt", "ge", "eq", "ne", "unot", "logical_and", "logical_or", "bit_and", "bit_or",
                "bit_xor", "invert", "lshift", "rshift", "tid", "array_shape", "len", "array_view", "view",
                "array_slice", "array_select")

# -- scalar conversions -------------------------------------------------------------------------

def _float_cast(ctx: RuleContext) -> list[Any]:
    src = ctx.op.args[0].type
    if not ctx.wants(0):
        return [None]
    return [ctx.e.cast(ctx.adj_out, src)]


for _name in ("float16", "bfloat16", "float32", "float64"):
    derivative(_name, primal_args=())(_float_cast)
zero_derivative("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")

# -- arrays -------------------------------------------------------------------------------------

def _index_args(op: Any) -> tuple[int, ...]:
    """The array and its indices (not the stored value): what array rules read."""
    return tuple(range(1 + op.args[0].type.ndim))


@derivative("array_load", primal_args=_index_args)
def _array_load(ctx: RuleContext) -> list[Any]:
    if ctx.adj and ctx.adj[0] is not None:
        ctx.array_accumulate(0, ctx.args[1:], ctx.adj[0])
    return []


@derivative("array_store", replay="effect", always=True, primal_args=_index_args)
def _array_store(ctx: RuleContext) -> list[Any]:
    """arr[i] = v: adj_v += adj(arr)[i], then adj(arr)[i] = 0 (the overwritten value's adjoint:
    earlier writes of the element, in this launch or earlier ones, receive nothing through it)."""
    n = len(ctx.args)
    idx = ctx.args[1:-1]
    if not is_differentiable(ctx.op.args[0].type.dtype):
        return []
    g = ctx.array_adjoint(0, idx) if ctx.wants(n - 1) else None
    ctx.array_clear(0, idx)
    return [None] * (n - 1) + [g]


@derivative("atomic_add", "atomic_sub", replay="effect", always=True, primal_args=_index_args)
def _atomic_add_sub(ctx: RuleContext) -> list[Any]:
    n = len(ctx.args)
    if not ctx.wants(n - 1):
        return []
    g = ctx.array_adjoint(0, ctx.args[1:-1])
    return [None] * (n - 1) + [g if ctx.name == "atomic_add" else ctx.e.neg(g)]


@derivative("atomic_min", "atomic_max", replay="effect", always=True)
def _atomic_min_max(ctx: RuleContext) -> list[Any]:
    """arr[i] = min/max(arr[i], v): v receives adj(arr)[i] where it won, i.e. where it equals the
    element's final value (per component for vectors and matrices; ties all receive it). A NaN
    value written over a NaN element (both NaN) won too."""
    n = len(ctx.args)
    if not ctx.wants(n - 1):
        return []
    idx, value = ctx.args[1:-1], ctx.args[-1]
    g = ctx.array_adjoint(0, idx)
    final = ctx.e.call("array_load", ctx.args[0], *idx)
    return [None] * (n - 1) + [_where_equal(ctx, value, final, g)]


def _same(e: Any, a: Any, b: Any) -> Any:
    """``a == b``, with NaN equal to NaN for floats."""
    equal = e.cmp("eq", a, b)
    if a.type._kind_ != "float":
        return equal
    return e.call("logical_or", equal, e.call("logical_and", e.call("isnan", a), e.call("isnan", b)))


def _where_equal(ctx: RuleContext, a: Any, b: Any, g: Any) -> Any:
    """``g`` where ``a == b`` (NaN equal to NaN) and zero elsewhere, component-wise for composites."""
    e = ctx.e
    if is_scalar_type(a.type):
        return e.select(_same(e, a, b), g, e.zero(g.type))
    count = math.prod(a.type._shape_)
    parts = []
    for k in range(count):
        path = _int_consts(ctx, _component_path(a.type, k))
        ak, bk, gk = (e.call("extract", v, *path) for v in (a, b, g))
        parts.append(e.select(_same(e, ak, bk), gk, e.zero(gk.type)))
    return e.internal(CONSTRUCT, parts, a.type)


zero_derivative("atomic_exch", "atomic_cas", replay="effect")

# -- composite values (vectors, matrices, quaternions, transforms) ------------------------------

def _int_consts(ctx: RuleContext, values: list[int]) -> list[Any]:
    return [ctx.e.const(v, int32) for v in values]


@derivative("extract", primal_args=(1, 2))
def _extract(ctx: RuleContext) -> list[Any]:
    """r = a[i] (or a[i, j], or a row a[i] of a matrix): adj_a[i] += adj_r."""
    a = ctx.args[0]
    idx = ctx.args[1:]
    base = ctx.e.zero(a.type)
    return [ctx.e.call("assign_copy", base, *idx, ctx.adj_out)]


@derivative("assign_copy", primal_args=(1, 2))
def _assign_copy(ctx: RuleContext) -> list[Any]:
    """r = a with a[i..] = x: adj_a += adj_r with [i..] cleared, adj_x += adj_r[i..]."""
    idx, x = ctx.args[1:-1], ctx.args[-1]
    g, e = ctx.adj_out, ctx.e
    da = e.call("assign_copy", g, *idx, e.zero(x.type)) if ctx.wants(0) else None
    dx = e.call("extract", g, *idx) if ctx.wants(len(ctx.args) - 1) else None
    return [da] + [None] * len(idx) + [dx]


def _component_path(t: Any, flat: int) -> list[int]:
    if t._wp_kind_ == "matrix":
        cols = t._shape_[1]
        return [flat // cols, flat % cols]
    return [flat]


def _components_of(ctx: RuleContext, value: Any, t: Any, start: int, count: int) -> list[Any]:
    return [
        ctx.e.call("extract", value, *_int_consts(ctx, _component_path(t, start + k))) for k in range(count)
    ]


@derivative(CONSTRUCT, primal_args=())
def _construct(ctx: RuleContext) -> list[Any]:
    """r = T(c0, c1, ...) from scalars and/or composites, flattened row-major."""
    g, rtype = ctx.adj_out, ctx.op.results[0].type
    out: list[Any] = []
    flat = 0
    for k, a in enumerate(ctx.args):
        n = 1 if is_scalar_type(a.type) else math.prod(a.type._shape_)
        if not ctx.wants(k):
            out.append(None)
        elif n == 1 and is_scalar_type(a.type):
            out.append(_components_of(ctx, g, rtype, flat, 1)[0])
        else:
            parts = _components_of(ctx, g, rtype, flat, n)
            out.append(ctx.e.internal(CONSTRUCT, parts, a.type))
        flat += n
    return out


@derivative(FILL, primal_args=())
def _construct_fill(ctx: RuleContext) -> list[Any]:
    """r = T(x) (every component x): adj_x += sum of adj_r's components."""
    rtype = ctx.op.results[0].type
    parts = _components_of(ctx, ctx.adj_out, rtype, 0, math.prod(rtype._shape_))
    total = parts[0]
    for p in parts[1:]:
        total = ctx.e.add(total, p)
    return [total]


@derivative(CONVERT, primal_args=())
def _construct_convert(ctx: RuleContext) -> list[Any]:
    """r = T(v) converting component types: adj_v += convert(adj_r)."""
    return [ctx.e.internal(CONVERT, [ctx.adj_out], ctx.op.args[0].type)]


# -- structs --------------------------------------------------------------------------------------

def _field_op(ctx: RuleContext, overload_name: str, args: list, result_type: Any) -> Any:
    overload = GET_FIELD if overload_name == "struct_get" else SET_FIELD
    return ctx.e.op("call", args, [result_type], overload=overload, field=ctx.op.attrs["field"]).result


@derivative(GET_FIELD, primal_args=())
def _struct_get(ctx: RuleContext) -> list[Any]:
    """r = s.f: adj_s.f += adj_r."""
    s_type = ctx.op.args[0].type
    r_type = ctx.op.results[0].type
    if not is_differentiable(r_type):
        return [None]
    return [_field_op(ctx, "struct_set", [ctx.e.zero(s_type), ctx.adj_out], s_type)]


@derivative(SET_FIELD, primal_args=())
def _struct_set(ctx: RuleContext) -> list[Any]:
    """r = s with s.f = v: adj_s += adj_r with f cleared, adj_v += adj_r.f."""
    s_type, v_type = ctx.op.args[0].type, ctx.op.args[1].type
    g = ctx.adj_out
    ds = None
    if ctx.wants(0):
        ds = _field_op(ctx, "struct_set", [g, ctx.e.zero(v_type)], s_type) if is_differentiable(v_type) else g
    dv = _field_op(ctx, "struct_get", [g], v_type) if ctx.wants(1) else None
    return [ds, dv]
