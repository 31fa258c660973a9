"""sin, cos and tan on the CPU: a short path for ordinary arguments, the full range when needed.

Kernels call LLVM's ``llvm.sin``/``llvm.cos``/``llvm.tan`` intrinsics, which LLVM vectorizes;
after optimization warp-core asks :func:`define` for the scalar or vector function replacing
each (see :mod:`warp.targets.cpu.late_intrinsics`). The function:

* computes the vector with a Cody-Waite reduction in double precision, exact while
  ``|x| <= LIMIT`` (2**30), and polynomials in double: float32 results are rounded once
  (under 0.6 ulp), float64 ones come from a double-double reduced argument;
* when some lane has ``|x| > LIMIT``, inf or NaN, calls instead an out-of-line function that
  computes the whole vector with the table-driven full-range reduction of
  :mod:`warp_builtins.mathlib.trig` (exact for every argument; its table lookups are gathers).

The branch is on the whole vector, taken before either path, so ordinary arguments pay one
compare for it and none of the table lookups large arguments need.

float32 ``sin`` and ``cos`` reduce by pi (``x = k*pi + r``, ``|r| <= pi/2``) and evaluate one odd
polynomial, ``sin(r)``, with the sign of ``(-1)**k``; ``cos`` uses ``x = (2m + 1)*pi/2 + r``.
``tan`` and the float64 functions reduce by pi/2 and evaluate both ``sin(r)`` and ``cos(r)``.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from warp_builtins.mathlib import trig
from warp_builtins.mathlib.irutil import MathBuilder, Value, float_kind, intrinsic_suffix, lanes_of
from warp_builtins.mathlib.trig_fast import PIO2_1, PIO2_2, TWO_OVER_PI, cody_waite_f64

#: arguments up to this magnitude take the short path (the reduction below is exact there)
LIMIT = 2.0**30
INV_PI = 0.3183098861837907
PI_1 = 3.141592653589793
PI_2 = 1.2246467991473532e-16

# sin(r) = r + r^3 * S(z), z = r^2, |r| <= pi/2 * 1.0001 (fit "sinpi2_32" of tools/fit_mathlib.py:
# relative error 4e-11, about 0.001 ulp of float32)
SIN_PI2 = (
    -0.16666666638948474,
    0.00833333142264532,
    -0.000198408902767629,
    2.7525861137491583e-06,
    -2.3889270990986732e-08,
)


def _sin_pi2(d: MathBuilder, r: Value) -> Value:
    z = d.mul(r, r)
    return d.fma(d.mul(r, z), d.poly(z, SIN_PI2), r)


def _flip_if_odd(d: MathBuilder, value: Value, k: Value) -> Value:
    """``-value`` where the integer ``k`` (lanes of i64) is odd: its low bit moved to the sign."""
    return d.as_float(d.b.xor(d.as_int(value), d.b.shl(k, d.ic(63))))


def sin_f32(mb: MathBuilder, x: Value) -> Value:
    """float32 sin for ``|x| <= LIMIT``."""
    d = mb.other(ir.DoubleType())
    xd = d.convert(x, d.ty)
    k, ki = d.round_magic(xd, INV_PI)
    r = d.fma(d.neg(k), d.c(PI_1), xd)  # exact
    r = d.fma(d.neg(k), d.c(PI_2), r)
    s = _flip_if_odd(d, _sin_pi2(d, r), ki)
    return trig._keep_zero(mb, x, d.convert(s, mb.ty))


def cos_f32(mb: MathBuilder, x: Value) -> Value:
    """float32 cos for ``|x| <= LIMIT``: ``x = (2m + 1) pi/2 + r``, ``cos x = (-1)**(m + 1) sin r``."""
    d = mb.other(ir.DoubleType())
    xd = d.convert(x, d.ty)
    m, mi = d.round_magic(d.fma(xd, d.c(INV_PI), d.c(-0.5)))
    k = d.fma(m, d.c(2.0), d.c(1.0))
    r = d.fma(d.neg(k), d.c(PIO2_1), xd)
    r = d.fma(d.neg(k), d.c(PIO2_2), r)
    c = _flip_if_odd(d, _sin_pi2(d, r), d.b.add(mi, d.ic(1)))
    return d.convert(c, mb.ty)


def tan_f32(mb: MathBuilder, x: Value) -> Value:
    """float32 tan for ``|x| <= LIMIT``."""
    d = mb.other(ir.DoubleType())
    xd = d.convert(x, d.ty)
    k, ki = d.round_magic(xd, TWO_OVER_PI)
    r = d.fma(d.neg(k), d.c(PIO2_1), xd)
    r = d.fma(d.neg(k), d.c(PIO2_2), r)
    return trig.tan_f32_from_double(mb, x, r, d.to_int32(ki))


_F64 = trig.f64_functions(cody_waite_f64)  # exact for |x| <= LIMIT

#: (name, kind) -> builder of the short path (valid for |x| <= LIMIT)
SHORT: dict[tuple[str, str], Callable[[MathBuilder, Value], Value]] = {
    ("sin", "float"): sin_f32,
    ("cos", "float"): cos_f32,
    ("tan", "float"): tan_f32,
    ("sin", "double"): _F64["sin"],
    ("cos", "double"): _F64["cos"],
    ("tan", "double"): _F64["tan"],
}


def _needs_full_range(mb: MathBuilder, x: Value) -> Value:
    """Lanes with ``|x| > LIMIT``, inf or NaN."""
    return mb.b.fcmp_unordered(">", mb.fabs(x), mb.c(LIMIT))


def _full_range(module: ir.Module, name: str, scalar: ir.Type) -> ir.Function:
    """``internal noinline`` scalar ``name`` with the full-range reduction (shared by all widths)."""
    symbol = f"__wp_late_{name}_full_{intrinsic_suffix(scalar)}"
    existing = module.globals.get(symbol)
    if existing is not None:
        return existing
    fn = ir.Function(module, ir.FunctionType(scalar, [scalar]), symbol)
    fn.linkage = "internal"
    fn.attributes.add("noinline")
    fn.attributes.add("nounwind")
    fn.attributes.add("cold")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    b.ret(trig.FUNCTIONS[(name, float_kind(scalar))](MathBuilder(b, scalar), fn.args[0]))
    return fn


#: lanes of the one vector full-range function per function and type (512 bits); narrower
#: vectors are padded to it, wider ones split
FULL_RANGE_LANES = {"float": 16, "double": 8}


def _full_range_vector(module: ir.Module, name: str, ty: ir.VectorType) -> ir.Function:
    """``internal noinline cold (ptr x, ptr out)``: the full-range function on a whole vector
    (its table lookups are gathers). One body per function and type, of
    :data:`FULL_RANGE_LANES` lanes; other widths call it in pieces (the last one padded).

    The vectors pass through memory: a call taking two pointers leaves the register allocation
    of the hot loop around it as if the call were not there (measured: vector arguments and
    results in registers made an adjoint kernel 25-60% slower, slow path never taken).
    """
    kind = float_kind(ty)
    symbol = f"__wp_late_{name}_full_{intrinsic_suffix(ty)}"
    existing = module.globals.get(symbol)
    if existing is not None:
        return existing
    ptr = ir.PointerType()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr, ptr]), symbol)
    fn.linkage = "internal"
    fn.attributes.add("noinline")
    fn.attributes.add("nounwind")
    fn.attributes.add("cold")
    src, dst = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    width = FULL_RANGE_LANES[kind]
    if ty.count == width:
        b.store(trig.FUNCTIONS[(name, kind)](MathBuilder(b, ty), b.load(src, typ=ty)), dst)
        b.ret_void()
        return fn
    wide = ir.VectorType(ty.element, width)
    inner = _full_range_vector(module, name, wide)
    wide_in, wide_out = b.alloca(wide), b.alloca(wide)
    x = b.load(src, typ=ty)
    i32 = ir.IntType(32)
    result: Value = ir.Constant(ty, ir.Undefined)
    for start in range(0, ty.count, width):
        # lanes start.. of x; past its end, lane 0 of the second operand (x again) pads
        take = [start + i if start + i < ty.count else ty.count for i in range(width)]
        b.store(b.shuffle_vector(x, x, ir.Constant(ir.VectorType(i32, width), take)), wide_in)
        b.call(inner, [wide_in, wide_out])
        piece = b.load(wide_out, typ=wide)
        for i in range(min(width, ty.count - start)):
            value = b.extract_element(piece, ir.Constant(i32, i))
            result = b.insert_element(result, value, ir.Constant(i32, start + i))
    b.store(result, dst)
    b.ret_void()
    return fn


def _dispatch(b: ir.IRBuilder, module: ir.Module, name: str, x: Value) -> Value:
    """``name(x)``: the short path when no lane needs more, else the full range on all lanes."""
    ty = x.type
    mb = MathBuilder(b, ty)
    lanes = lanes_of(ty)
    if lanes is not None:  # stack slots for the slow path (static allocas: in the entry block)
        with b.goto_entry_block():
            slots = b.alloca(ty), b.alloca(ty)
    redo = _needs_full_range(mb, x)
    if lanes is not None:
        redo = b.icmp_unsigned("!=", b.bitcast(redo, ir.IntType(lanes)), ir.Constant(ir.IntType(lanes), 0))
    slow = b.append_basic_block("full_range")
    fast = b.append_basic_block("short")
    done = b.append_basic_block("done")
    b.cbranch(redo, slow, fast).set_weights([1, 1 << 20])
    b.position_at_end(fast)
    short = SHORT[(name, float_kind(ty))](mb, x)
    fast_end = b.block
    b.branch(done)
    b.position_at_end(slow)
    if lanes is None:
        full = b.call(_full_range(module, name, ty), [x])
    else:
        b.store(x, slots[0])
        b.call(_full_range_vector(module, name, ty), list(slots))
        full = b.load(slots[1], typ=ty)
    b.branch(done)
    b.position_at_end(done)
    result = b.phi(ty)
    result.add_incoming(short, fast_end)
    result.add_incoming(full, slow)
    return result


def define(name: str) -> Callable[[ir.Module, str, ir.Type], None]:
    """The late-intrinsic definer of ``llvm.<name>.*`` (sin, cos or tan) for warp-core."""

    def define_one(module: ir.Module, symbol: str, ty: ir.Type) -> None:
        fn = ir.Function(module, ir.FunctionType(ty, [ty]), symbol)
        fn.linkage = "linkonce_odr"
        fn.attributes.add("alwaysinline")
        fn.attributes.add("nounwind")
        (x,) = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        if float_kind(ty) == "half":  # in float32, rounded at the end
            lanes = lanes_of(ty)
            f32 = ir.FloatType() if lanes is None else ir.VectorType(ir.FloatType(), lanes)
            b.ret(b.fptrunc(_dispatch(b, module, name, b.fpext(x, f32)), ty))
        else:
            b.ret(_dispatch(b, module, name, x))

    define_one.__name__ = f"define_{name}"
    return define_one


#: the functions provided this way
NAMES = ("sin", "cos", "tan")
