"""A small arithmetic DSL over llvmlite values, used to write the composite-type builtins.

Lowerings of vector/matrix builtins are written as ordinary Python arithmetic on :class:`Num`
values, each wrapping one LLVM scalar of a known warp scalar type::

    e = Emitter(ctx.builder, float32)
    a, b = e.parts(vec3, args[0]), e.parts(vec3, args[1])
    d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]     # emits fmul/fadd
    return d.v

Operations pick the instruction from the scalar kind (``fadd`` for floats, ``add`` for
integers, ``sdiv``/``udiv`` with warp's never-trapping integer division, ordered float
compares). Only instructions and the intrinsics ``llvm.sqrt``/``llvm.fabs`` are emitted, which
every target supports (the CUDA target lowers them to PTX instructions).

Floating point ``+``/``-`` of composite values carry LLVM's ``reassoc contract`` flags and
``*`` carries ``contract`` (see :data:`FLOAT_FLAGS`): products may fuse into FMAs (as CUDA
does by default), and a loop accumulating vectors (``acc += d * s``) becomes a reduction the
loop vectorizer can widen, which is what makes O(n^2) vector loops (n-body) run at SIMD speed.
NaN/infinity semantics are unchanged (no ``nnan``/``ninf``/``arcp``); results may differ from
strict left-to-right evaluation in the last bits. Set the entries to ``()`` for strict IEEE
evaluation order.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import llvmlite.ir as ir

from warp.extending import (
    composite_values as lc, float32, lowering_types as lt, lower_div, lower_mod, LowerContext,
)


#: fast-math flags per float operation of composite arithmetic (see the module docstring)
FLOAT_FLAGS: dict[str, tuple[str, ...]] = {
    "add": ("reassoc", "contract"),
    "sub": ("reassoc", "contract"),
    "mul": ("contract",),
}


class _Ctx:
    """The minimal lowering context the core integer division helper needs."""

    def __init__(self, builder: ir.IRBuilder):
        self.builder = builder


class Cond:
    """A boolean (``i1``) value; ``&``, ``|`` and ``~`` combine conditions."""

    __slots__ = ("e", "v")

    def __init__(self, e: "Emitter", v: ir.Value):
        self.e = e
        self.v = v

    def __and__(self, other: "Cond") -> "Cond":
        return Cond(self.e, self.e.b.and_(self.v, other.v))

    def __or__(self, other: "Cond") -> "Cond":
        return Cond(self.e, self.e.b.or_(self.v, other.v))

    def __invert__(self) -> "Cond":
        return Cond(self.e, self.e.b.not_(self.v))


class Num:
    """One scalar LLVM value with arithmetic operators (operands may be Python numbers)."""

    __slots__ = ("e", "v")

    def __init__(self, e: "Emitter", v: ir.Value):
        self.e = e
        self.v = v

    def __add__(self, o: Any) -> "Num":
        return self.e.binop("add", self, o)

    def __radd__(self, o: Any) -> "Num":
        return self.e.binop("add", o, self)

    def __sub__(self, o: Any) -> "Num":
        return self.e.binop("sub", self, o)

    def __rsub__(self, o: Any) -> "Num":
        return self.e.binop("sub", o, self)

    def __mul__(self, o: Any) -> "Num":
        return self.e.binop("mul", self, o)

    def __rmul__(self, o: Any) -> "Num":
        return self.e.binop("mul", o, self)

    def __truediv__(self, o: Any) -> "Num":
        return self.e.binop("div", self, o)

    def __rtruediv__(self, o: Any) -> "Num":
        return self.e.binop("div", o, self)

    def __mod__(self, o: Any) -> "Num":
        return self.e.binop("mod", self, o)

    def __neg__(self) -> "Num":
        return self.e.neg(self)

    def __lt__(self, o: Any) -> Cond:
        return self.e.cmp("<", self, o)

    def __le__(self, o: Any) -> Cond:
        return self.e.cmp("<=", self, o)

    def __gt__(self, o: Any) -> Cond:
        return self.e.cmp(">", self, o)

    def __ge__(self, o: Any) -> Cond:
        return self.e.cmp(">=", self, o)

    def eq(self, o: Any) -> Cond:
        return self.e.cmp("==", self, o)

    def ne(self, o: Any) -> Cond:
        return self.e.cmp("!=", self, o)


class Emitter:
    """Emits scalar code of warp scalar type ``scalar`` through ``builder``."""

    def __init__(self, builder: ir.IRBuilder, scalar: Any):
        self.b = builder
        self.scalar = scalar
        self.kind = scalar._kind_
        self.ty = lt.llvm_type(scalar)
        self.is_float = self.kind == "float"

    # -- values ---------------------------------------------------------------------------
    def c(self, x: Any) -> Num:
        """A constant of this scalar type."""
        if self.is_float:
            return Num(self, ir.Constant(self.ty, float(x)))
        if self.kind == "bool":
            return Num(self, ir.Constant(self.ty, int(bool(x))))
        return Num(self, ir.Constant(self.ty, int(x)))

    def wrap(self, x: Any) -> Num:
        if isinstance(x, Num):
            return x
        if isinstance(x, ir.Value):
            return Num(self, x)
        return self.c(x)

    def nums(self, values: Iterable[ir.Value]) -> list[Num]:
        return [Num(self, v) for v in values]

    def parts(self, cls: Any, value: ir.Value) -> list[Num]:
        """Components of composite ``value`` of type ``cls`` (row-major)."""
        return self.nums(lc.components(self.b, cls, value))

    def rows(self, cls: Any, value: ir.Value) -> list[list[Num]]:
        """Components of a matrix as a list of rows."""
        flat = self.parts(cls, value)
        r, c = cls._shape_
        return [flat[i * c:(i + 1) * c] for i in range(r)]

    def build(self, cls: Any, parts: Sequence[Any]) -> ir.Value:
        """A composite value of type ``cls`` from row-major components."""
        return lc.assemble(self.b, cls, [self.wrap(p).v for p in parts])

    def build_rows(self, cls: Any, rows: Sequence[Sequence[Any]]) -> ir.Value:
        return self.build(cls, [x for row in rows for x in row])

    # -- arithmetic -----------------------------------------------------------------------
    def binop(self, op: str, a: Any, b: Any) -> Num:
        a, b = self.wrap(a), self.wrap(b)
        bld = self.b
        if self.is_float:
            fn = {"add": bld.fadd, "sub": bld.fsub, "mul": bld.fmul, "div": bld.fdiv, "mod": bld.frem}[op]
            return Num(self, fn(a.v, b.v, flags=FLOAT_FLAGS.get(op, ())))
        if op in ("div", "mod"):
            lower = lower_div if op == "div" else lower_mod
            # the helpers read only ctx.builder, which _Ctx provides
            return Num(self, lower(_Ctx(bld), [a.v, b.v], [self.scalar, self.scalar]))  # type: ignore[arg-type]
        fn = {"add": bld.add, "sub": bld.sub, "mul": bld.mul}[op]
        return Num(self, fn(a.v, b.v))

    def neg(self, a: Num) -> Num:
        if self.is_float:
            return Num(self, self.b.fneg(a.v))
        return Num(self, self.b.sub(ir.Constant(self.ty, 0), a.v))

    def cmp(self, op: str, a: Any, b: Any) -> Cond:
        a, b = self.wrap(a), self.wrap(b)
        if self.is_float:
            if op == "!=":
                return Cond(self, self.b.fcmp_unordered(op, a.v, b.v))
            return Cond(self, self.b.fcmp_ordered(op, a.v, b.v))
        if self.kind == "int":
            return Cond(self, self.b.icmp_signed(op, a.v, b.v))
        return Cond(self, self.b.icmp_unsigned(op, a.v, b.v))

    def select(self, cond: Cond, a: Any, b: Any) -> Num:
        return Num(self, self.b.select(cond.v, self.wrap(a).v, self.wrap(b).v))

    def _intrinsic(self, name: str, *args: Num) -> Num:
        module = self.b.module
        suffix = {16: "f16", 32: "f32", 64: "f64"}[self.scalar._bits_]
        symbol = f"llvm.{name}.{suffix}"
        fn = module.globals.get(symbol)
        if fn is None:
            fn = ir.Function(module, ir.FunctionType(self.ty, [self.ty] * len(args)), symbol)
        return Num(self, self.b.call(fn, [a.v for a in args]))

    def sqrt(self, a: Any) -> Num:
        return self._intrinsic("sqrt", self.wrap(a))

    def abs(self, a: Any) -> Num:
        a = self.wrap(a)
        if self.is_float:
            return self._intrinsic("fabs", a)
        if self.kind == "uint":
            return a
        return self.select(a < 0, -a, a)

    def min(self, a: Any, b: Any) -> Num:
        a, b = self.wrap(a), self.wrap(b)
        if self.is_float:  # a NaN operand yields the other one, in either position
            return self.select((a < b) | self._isnan(b), a, b)
        return self.select(a < b, a, b)

    def max(self, a: Any, b: Any) -> Num:
        a, b = self.wrap(a), self.wrap(b)
        if self.is_float:
            return self.select((a > b) | self._isnan(b), a, b)
        return self.select(a > b, a, b)

    def _isnan(self, a: Num) -> Cond:
        return Cond(self, self.b.fcmp_unordered("uno", a.v, a.v))

    def sign(self, a: Any) -> Num:
        """-1 for negative values, 1 otherwise (0 included)."""
        a = self.wrap(a)
        if self.kind == "uint":
            return self.c(1)
        return self.select(a < 0, -1, 1)

    def sum(self, values: Sequence[Any]) -> Num:
        total = self.wrap(values[0])
        for v in values[1:]:
            total = total + v
        return total

    def dot(self, a: Sequence[Any], b: Sequence[Any]) -> Num:
        return self.sum([x * y for x, y in zip(a, b)])

    def convert(self, a: Num, to: "Emitter") -> Num:
        """``a`` converted to the (float) type of emitter ``to``."""
        if to.scalar is self.scalar:
            return Num(to, a.v)
        src, dst = self.scalar._bits_, to.scalar._bits_
        op = self.b.fpext if dst > src else self.b.fptrunc
        return Num(to, op(a.v, to.ty))

    def compute(self) -> "Emitter":
        """The emitter used for precision-sensitive algorithms: float16 computes in float32."""
        if self.is_float and self.scalar._bits_ == 16:
            return Emitter(self.b, float32)
        return self


def scalar_of(t: Any) -> Any:
    """The component scalar type of a composite type (or the type itself for scalars)."""
    return getattr(t, "_wp_scalar_type_", None) or t


def result_type(ctx: LowerContext, i: int = 0) -> Any:
    """Type of result ``i`` of the op being lowered."""
    return ctx.op.results[i].type


def helper_function(
    ctx: LowerContext, name: str, ret: ir.Type, params: Sequence[ir.Type], body: Any
) -> ir.Function:
    """Define (once per module) an internal function and return it.

    ``body(builder, args)`` emits the body into the entry block and returns the value to
    return. Large algorithms (SVD, eigen-decomposition) are emitted once per module this way
    and called, rather than inlined at every use.
    """
    module = ctx.module if hasattr(ctx, "module") else ctx.builder.module
    fn = module.globals.get(name)
    if fn is not None:
        return fn
    fn = ir.Function(module, ir.FunctionType(ret, list(params)), name=name)
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    builder.ret(body(builder, list(fn.args)))
    return fn


def counted_loop(builder: ir.IRBuilder, count: int, state: list[ir.Value], body: Any) -> list[ir.Value]:
    """Run ``body(builder, state) -> new_state`` ``count`` times as an LLVM loop; the final state.

    The state is a list of SSA values carried through phi nodes.
    """
    fn = builder.function
    pre = builder.block
    head = fn.append_basic_block("loop.head")
    exit_bb = fn.append_basic_block("loop.exit")
    builder.branch(head)
    builder.position_at_end(head)
    i64 = ir.IntType(64)
    counter = builder.phi(i64)
    counter.add_incoming(ir.Constant(i64, 0), pre)
    phis = []
    for v in state:
        phi = builder.phi(v.type)
        phi.add_incoming(v, pre)
        phis.append(phi)
    new_state = body(builder, list(phis))
    nxt = builder.add(counter, ir.Constant(i64, 1))
    latch = builder.block
    counter.add_incoming(nxt, latch)
    for phi, v in zip(phis, new_state):
        phi.add_incoming(v, latch)
    builder.cbranch(builder.icmp_unsigned("<", nxt, ir.Constant(i64, count)), head, exit_bb)
    builder.position_at_end(exit_bb)
    return list(new_state)
