"""Readable scalar formulas for builtin lowerings (quaternion, transform, spatial math).

A lowering written with this module reads like the math it implements::

    def quat_rotate(em, q, v):              # q, v: lists of Num (components)
        x, y, z, w = q
        c = w * w * 2.0 - 1.0
        ...

:class:`Emitter` wraps the lowering context for one floating point precision; :class:`Num`
wraps an llvmlite value of that precision and overloads ``+ - * /`` (Python numbers become
constants), comparisons (giving ``i1`` values for :meth:`Emitter.select`). float16 values are
computed in float32 and rounded once at the end, as NVIDIA Warp does for half precision math.

:func:`formula` turns such a function into a registry ``lower=``: composite arguments arrive as
flat (row-major) lists of :class:`Num`, float scalars as :class:`Num`, other values untouched;
the function returns what the builtin's result type needs (a list for a composite, a Num for
a float, a tuple of those for several results).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import llvmlite.ir as ir

from warp.extending import (
    composite_values as lc, float32, is_composite, is_scalar_type, lowering_types as lt, LowerContext,
)
from warp_builtins.lowering import float_op


class Num:
    """A floating point SSA value with Python arithmetic operators."""

    __slots__ = ("em", "v")

    def __init__(self, em: Emitter, v: ir.Value):
        self.em = em
        self.v = v

    def _bin(self, other: Any, op: str, swap: bool = False) -> Num:
        o = self.em.lift(other)
        a, b = (o.v, self.v) if swap else (self.v, o.v)
        return Num(self.em, getattr(self.em.b, op)(a, b))

    def __add__(self, o: Any) -> Num:
        return self._bin(o, "fadd")

    def __radd__(self, o: Any) -> Num:
        return self._bin(o, "fadd", True)

    def __sub__(self, o: Any) -> Num:
        return self._bin(o, "fsub")

    def __rsub__(self, o: Any) -> Num:
        return self._bin(o, "fsub", True)

    def __mul__(self, o: Any) -> Num:
        return self._bin(o, "fmul")

    def __rmul__(self, o: Any) -> Num:
        return self._bin(o, "fmul", True)

    def __truediv__(self, o: Any) -> Num:
        return self._bin(o, "fdiv")

    def __rtruediv__(self, o: Any) -> Num:
        return self._bin(o, "fdiv", True)

    def __neg__(self) -> Num:
        return Num(self.em, self.em.b.fneg(self.v))

    def _cmp(self, o: Any, sym: str) -> ir.Value:
        return self.em.b.fcmp_ordered(sym, self.v, self.em.lift(o).v)

    def __lt__(self, o: Any) -> ir.Value:
        return self._cmp(o, "<")

    def __le__(self, o: Any) -> ir.Value:
        return self._cmp(o, "<=")

    def __gt__(self, o: Any) -> ir.Value:
        return self._cmp(o, ">")

    def __ge__(self, o: Any) -> ir.Value:
        return self._cmp(o, ">=")

    __hash__ = object.__hash__


class Emitter:
    """Emits scalar code of one warp float type through a lowering context."""

    def __init__(self, ctx: LowerContext, scalar: Any):
        self.ctx = ctx
        self.b: ir.IRBuilder = ctx.builder
        self.scalar = scalar
        self.store_ty = lt.llvm_type(scalar)
        #: the type computations run in (float16 is widened to float32)
        self.ty = lt.llvm_type(float32) if scalar._bits_ == 16 else self.store_ty

    # -- values in and out ----------------------------------------------------------------
    def wrap(self, v: ir.Value) -> Num:
        if v.type != self.ty:
            v = self.b.fpext(v, self.ty)
        return Num(self, v)

    def lift(self, x: Any) -> Num:
        return x if isinstance(x, Num) else self.const(x)

    def const(self, x: float) -> Num:
        return Num(self, ir.Constant(self.ty, float(x)))

    def unwrap(self, x: Any) -> ir.Value:
        v = self.lift(x).v
        return self.b.fptrunc(v, self.store_ty) if v.type != self.store_ty else v

    def stored(self, x: Any) -> Num:
        """``x`` rounded to the storage precision (float16 intermediates kept as a value of that type)."""
        n = self.lift(x)
        if n.v.type == self.store_ty:
            return n
        return Num(self, self.b.fpext(self.b.fptrunc(n.v, self.store_ty), self.ty))

    def parts(self, cls: Any, value: ir.Value) -> list[Num]:
        """Components of a composite value, row-major."""
        return [self.wrap(c) for c in lc.components(self.b, cls, value)]

    def pack(self, cls: Any, nums: Sequence[Any]) -> ir.Value:
        """A composite value of type ``cls`` from its components, row-major."""
        count = len(lc.component_paths(cls))
        if len(nums) != count:
            raise ValueError(f"{cls.__name__} needs {count} components, got {len(nums)}")
        return lc.assemble(self.b, cls, [self.unwrap(n) for n in nums])

    def output(self, rtype: Any, value: Any) -> Any:
        """LLVM value(s) of result type ``rtype`` (a tuple of types for several results)."""
        if isinstance(rtype, tuple):
            return [self.output(t, v) for t, v in zip(rtype, value)]
        if is_composite(rtype):
            return self.pack(rtype, value)
        if is_scalar_type(rtype) and rtype._kind_ == "float":
            return self.unwrap(value)
        return value

    # -- math (CPU: vectorizable IR math library and intrinsics; CUDA: libdevice) ----------
    def call(self, name: str, *xs: Any) -> Num:
        """Float function ``name`` of :func:`warp_builtins.lowering.float_op` (sin, atan2, sqrt, ...)."""
        return Num(self, float_op(self.ctx, name, [self.lift(x).v for x in xs]))

    def sqrt(self, x: Any) -> Num:
        return self.call("sqrt", x)

    def abs(self, x: Any) -> Num:
        return self.call("fabs", x)

    def floor(self, x: Any) -> Num:
        return self.call("floor", x)

    def copysign(self, mag: Any, sign: Any) -> Num:
        return self.call("copysign", mag, sign)

    def sin(self, x: Any) -> Num:
        return self.call("sin", x)

    def cos(self, x: Any) -> Num:
        return self.call("cos", x)

    def asin(self, x: Any) -> Num:
        return self.call("asin", x)

    def acos(self, x: Any) -> Num:
        return self.call("acos", x)

    def atan2(self, y: Any, x: Any) -> Num:
        return self.call("atan2", y, x)

    def exp(self, x: Any) -> Num:
        return self.call("exp", x)

    def log(self, x: Any) -> Num:
        return self.call("log", x)

    def cbrt(self, x: Any) -> Num:
        return self.call("cbrt", x)

    def min(self, a: Any, b: Any) -> Num:
        a, b = self.lift(a), self.lift(b)
        return self.select(a < b, a, b)

    def max(self, a: Any, b: Any) -> Num:
        a, b = self.lift(a), self.lift(b)
        return self.select(a > b, a, b)

    def clamp(self, x: Any, lo: Any, hi: Any) -> Num:
        return self.min(self.max(x, lo), hi)

    # -- selection ------------------------------------------------------------------------
    def select(self, cond: ir.Value, a: Any, b: Any) -> Num:
        return Num(self, self.b.select(cond, self.lift(a).v, self.lift(b).v))

    def select_all(self, cond: ir.Value, a: Sequence[Any], b: Sequence[Any]) -> list[Num]:
        return [self.select(cond, x, y) for x, y in zip(a, b)]

    def and_(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.b.and_(a, b)

    def or_(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.b.or_(a, b)

    def not_(self, a: ir.Value) -> ir.Value:
        return self.b.not_(a)

    def int_eq(self, a: ir.Value, k: int) -> ir.Value:
        """``a == k`` for an integer SSA value ``a``."""
        return self.b.icmp_signed("==", a, ir.Constant(a.type, k))


# -- 3-vectors as lists of Num ---------------------------------------------------------------


def dot(a: Sequence[Num], b: Sequence[Num]) -> Num:
    total = a[0] * b[0]
    for x, y in zip(a[1:], b[1:]):
        total = total + x * y
    return total


def cross(a: Sequence[Num], b: Sequence[Num]) -> list[Num]:
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def add(a: Sequence[Any], b: Sequence[Any]) -> list[Num]:
    return [x + y for x, y in zip(a, b)]


def sub(a: Sequence[Any], b: Sequence[Any]) -> list[Num]:
    return [x - y for x, y in zip(a, b)]


def scale(a: Sequence[Num], s: Any) -> list[Num]:
    return [x * s for x in a]


def neg(a: Sequence[Num]) -> list[Num]:
    return [-x for x in a]


def length(em: Emitter, a: Sequence[Num]) -> Num:
    return em.sqrt(dot(a, a))


def normalize(em: Emitter, a: Sequence[Num]) -> list[Num]:
    """``a / |a|``, or zeros when ``|a|`` is zero."""
    n = length(em, a)
    inv = em.select(n > 0.0, 1.0 / n, 0.0)
    return scale(a, inv)


def mat_get(m: Sequence[Num], cols: int, i: int, j: int) -> Num:
    """Component (i, j) of a row-major flat matrix with ``cols`` columns."""
    return m[i * cols + j]


# -- control flow inside a lowering ---------------------------------------------------------


def while_loop(
    ctx: LowerContext,
    init: Sequence[ir.Value],
    cond: Callable[[list[ir.Value]], ir.Value],
    body: Callable[[list[ir.Value]], list[ir.Value]],
    name: str = "loop",
) -> list[ir.Value]:
    """Emit ``while cond(vals): vals = body(vals)`` with phi nodes; returns the final values."""
    b = ctx.builder
    fn = b.function
    entry = b.block
    head = fn.append_basic_block(f"{name}.head")
    body_bb = fn.append_basic_block(f"{name}.body")
    exit_bb = fn.append_basic_block(f"{name}.end")
    b.branch(head)
    b.position_at_end(head)
    phis = []
    for v in init:
        phi = b.phi(v.type)
        phi.add_incoming(v, entry)
        phis.append(phi)
    b.cbranch(cond(list(phis)), body_bb, exit_bb)
    b.position_at_end(body_bb)
    new = body(list(phis))
    latch = b.block
    for phi, v in zip(phis, new):
        phi.add_incoming(v, latch)
    b.branch(head)
    b.position_at_end(exit_bb)
    return list(phis)


def branch(
    ctx: LowerContext, pred: ir.Value, then: Callable[[], list[ir.Value]], other: Callable[[], list[ir.Value]]
) -> list[ir.Value]:
    """``then() if pred else other()`` with each side in its own block, merged by phis."""
    b = ctx.builder
    with b.if_else(pred) as (then_ctx, else_ctx):
        with then_ctx:
            a = then()
            a_bb = b.block
        with else_ctx:
            c = other()
            c_bb = b.block
    out = []
    for x, y in zip(a, c):
        phi = b.phi(x.type)
        phi.add_incoming(x, a_bb)
        phi.add_incoming(y, c_bb)
        out.append(phi)
    return out


# -- lowering adapter ------------------------------------------------------------------------


def float_scalar(types: Sequence[Any]) -> Any:
    """The float component type a formula computes in: that of the first float argument."""
    for t in types:
        s = t._wp_scalar_type_ if is_composite(t) else t
        if is_scalar_type(s) and s._kind_ == "float":
            return s
    raise TypeError("formula builtins need a float argument")


def formula(body: Callable[..., Any], result: Callable[[list[Any]], Any]) -> Callable[..., Any]:
    """A registry ``lower=`` evaluating ``body(em, *args)`` (see the module docstring)."""

    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
        em = Emitter(ctx, float_scalar(types))
        conv: list[Any] = []
        for a, t in zip(args, types):
            if is_composite(t):
                conv.append(em.parts(t, a))
            elif is_scalar_type(t) and t._kind_ == "float":
                conv.append(em.wrap(a))
            else:
                conv.append(a)
        return em.output(result(list(types)), body(em, *conv))

    lower.__name__ = f"lower_{body.__name__}"
    lower.__doc__ = body.__doc__
    return lower


def mark_mutating(overload: Any) -> Any:
    """Flag an overload whose last result is the new value of its first argument.

    The frontend rebinds the variable passed as first argument to that value: the SSA form of
    an in-place update such as ``wp.randf(state)`` or ``wp.transform_set_translation(t, p)``.
    """
    overload.mutates_first_arg = True
    return overload


__all__ = [
    "Emitter", "Num", "add", "branch", "cross", "dot", "float_scalar", "formula", "length", "mark_mutating",
    "mat_get", "neg", "normalize", "scale", "sub", "while_loop",
]
