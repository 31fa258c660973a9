"""Full-range argument reduction ``x * 2/pi = k + t`` for sin, cos and tan (Payne-Hanek style).

Any float ``x`` is ``m * 2**s`` with an integer ``m`` (24 or 53 bits) and ``s`` fixed by the
exponent field. Bits of 2/pi of weight ``2**w`` with ``s + w >= 2`` add multiples of 4 to
``x * 2/pi``, which the quadrant (``k mod 4``) ignores, so ``x * 2/pi`` is reduced against
``F_E = (2/pi) mod 2**(2 - s)``, a number of at most 26 (float32) or 55 (float64) integer bits
times ``2**-s``. A table indexed by the biased exponent ``E`` holds ``F_E`` split into doubles
(two for float32, four for float64) carrying the ~90 / ~170 bits that matter; the products with
``x`` are split exactly with fused multiply-adds and summed with error-free transformations.

The reduction is branch-free and the same code serves every argument (one table load per
chunk, i.e. gathers when vectorized), so loops stay vectorizable on the inner- and outer-loop
paths; ``|x| <= pi/4`` skips it (``r = x``). Accuracy: ``t`` is within about ``2**-52``
(float32) / ``2**-104`` (float64) of ``x * 2/pi - k`` relative to ``|t|``, including the
arguments closest to multiples of pi/2.

The bits of 2/pi come from an integer Machin formula, so the tables are computed (once, at
import) rather than transcribed.
"""

from __future__ import annotations

from functools import lru_cache

from llvmlite import ir

from warp_builtins.mathlib.irutil import MathBuilder, Value

#: bits of 2/pi computed: enough for the smallest float64 exponent window (s = -1074 needs none,
#: s = 971 needs weights down to 2**(2 - 971 - 212))
_BITS = 1400
PIO2_HI = 1.5707963267948966
PIO2_LO = 6.123233995736766e-17


def _arctan_inv(n: int, scale: int) -> int:
    """``atan(1/n) * 2**scale`` (truncated) by its alternating series, in integers."""
    total = term = (1 << scale) // n
    n2 = n * n
    k = 1
    while term:
        term //= n2
        total += -(term // (2 * k + 1)) if k % 2 else term // (2 * k + 1)
        k += 1
    return total


@lru_cache(maxsize=1)
def two_over_pi_bits() -> tuple[int, int]:
    """``(T, n)`` with ``2/pi = T * 2**-n`` to within ``2**-(n - 4)``."""
    guard = 64
    scale = _BITS + guard
    pi = 16 * _arctan_inv(5, scale) - 4 * _arctan_inv(239, scale)  # pi * 2**scale
    return (1 << (_BITS + 1 + scale)) // pi, _BITS


def _split(value: int, shift: int, parts: int) -> list[float]:
    """``value * 2**-shift`` as ``parts`` doubles, each the nearest double to what the previous
    ones left (integer arithmetic: ``int / int`` rounds correctly)."""
    if shift < 0:
        value, shift = value << -shift, 0
    out = []
    for _ in range(parts):
        c = value / (1 << shift)
        out.append(c)
        num, den = c.as_integer_ratio()  # den is a power of two
        value = value * den - (num << shift)
        shift += den.bit_length() - 1
    return out


def window(s: int, parts: int, scale: int = 0) -> list[float]:
    """``F = (2/pi) mod 2**(2 - s)`` times ``2**scale``, split into ``parts`` doubles."""
    t, n = two_over_pi_bits()
    keep = n + 2 - s  # bits of T of weight below 2**(2 - s)
    if keep < t.bit_length():
        t &= (1 << keep) - 1
    return _split(t, n - scale, parts)


#: float64 exponents at or above this are scaled by 2**-SCALE64 (and their table by 2**SCALE64)
#: so that the last chunks of F stay normal numbers
BIG64 = 1023 + 512
SCALE64 = 600


@lru_cache(maxsize=None)
def table(kind: str) -> list[float]:
    """The flattened reduction table: per biased exponent E, 2 (float) or 3 (double) doubles."""
    if kind == "float":
        rows = [window(max(e, 1) - 150, 2) for e in range(256)]
    else:
        rows = [window(max(e, 1) - 1075, 3, SCALE64 if e >= BIG64 else 0) for e in range(2048)]
    return [c for row in rows for c in row]


def _global_table(mb: MathBuilder, kind: str) -> ir.GlobalVariable:
    module = mb.module
    name = f"__wp_two_over_pi_{'f32' if kind == 'float' else 'f64'}"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    values = table(kind)
    ty = ir.ArrayType(ir.DoubleType(), len(values))
    g = ir.GlobalVariable(module, ty, name)
    g.linkage = "internal"
    g.global_constant = True
    g.initializer = ir.Constant(ty, values)
    return g


def _load(mb: MathBuilder, g: ir.GlobalVariable, index: Value) -> Value:
    """``g[index]`` (a double); a gather (``llvm.masked.gather``) when ``mb`` works on vectors."""
    b = mb.b
    if mb.lanes is None:
        ptr = b.gep(g, [ir.Constant(ir.IntType(64), 0), index], inbounds=True)
        return b.load(ptr, typ=ir.DoubleType())
    lanes = mb.lanes
    vty = ir.VectorType(ir.DoubleType(), lanes)
    ptrs = ir.VectorType(ir.PointerType(), lanes)
    # lane addresses g + 8 * index (llvmlite's gep takes no vector index; LLVM folds this into one)
    i32, vi64 = ir.IntType(32), ir.VectorType(ir.IntType(64), lanes)
    base = b.insert_element(
        ir.Constant(vi64, ir.Undefined), b.ptrtoint(g, ir.IntType(64)), ir.Constant(i32, 0)
    )
    base = b.shuffle_vector(
        base, ir.Constant(vi64, ir.Undefined), ir.Constant(ir.VectorType(i32, lanes), [0] * lanes)
    )
    ptr = b.inttoptr(b.add(base, b.shl(index, ir.Constant(vi64, [3] * lanes))), ptrs)
    name = f"llvm.masked.gather.v{lanes}f64.v{lanes}p0"
    gather = mb.module.globals.get(name) or ir.Function(
        mb.module,
        ir.FunctionType(vty, [ptrs, ir.IntType(32), ir.VectorType(ir.IntType(1), lanes), vty]),
        name,
    )
    mask = ir.Constant(ir.VectorType(ir.IntType(1), lanes), [1] * lanes)
    return b.call(gather, [ptr, ir.Constant(ir.IntType(32), 8), mask, ir.Constant(vty, ir.Undefined)])


def two_prod(d: MathBuilder, a: Value, b: Value) -> tuple[Value, Value]:
    """``p + e == a * b`` exactly (barring under/overflow), ``p = fl(a * b)``."""
    p = d.mul(a, b)
    return p, d.fma(a, b, d.neg(p))


def two_sum(d: MathBuilder, a: Value, b: Value) -> tuple[Value, Value]:
    """``s + e == a + b`` exactly, ``s = fl(a + b)``."""
    s = d.add(a, b)
    bb = d.sub(s, a)
    return s, d.add(d.sub(a, d.sub(s, bb)), d.sub(b, bb))


def fast_two_sum(d: MathBuilder, a: Value, b: Value) -> tuple[Value, Value]:
    """``s + e == a + b`` exactly when ``a`` is 0 or ``|a| >= |b|``."""
    s = d.add(a, b)
    return s, d.sub(b, d.sub(s, a))


def _round(d: MathBuilder, v: Value) -> tuple[Value, Value]:
    """``rint(v)`` as (double, i64), for ``|v| < 2**51``."""
    return d.round_magic(v)


def reduce_f32(mb: MathBuilder, x: Value) -> tuple[Value, Value]:
    """``(r, q)`` for a float32 ``x``: double ``r = x - k*pi/2`` in [-pi/4, pi/4] (relative error
    about 2**-52) and the i32 quadrant ``q`` (low bits of ``k``)."""
    b = mb.b
    d = mb.other(ir.DoubleType())
    i64 = mb.lane_type(ir.IntType(64))
    xd = d.convert(x, d.ty)
    exp = b.and_(b.lshr(mb.as_int(x), mb.i32(23)), mb.i32(0xFF))
    base = b.shl(b.zext(exp, i64), d.ic(1))
    g = _global_table(mb, "float")
    hi = _load(mb, g, base)
    lo = _load(mb, g, b.add(base, d.ic(1)))
    p, e = two_prod(d, xd, hi)  # |p| < 2**26
    k, ki = _round(d, p)
    t = d.add(d.sub(p, k), d.fma(xd, lo, e))
    # small |x| needs no special case: k = 0 and t = x * 2/pi to 2**-52 (no underflow in double)
    return d.mul(t, d.c(PIO2_HI)), d.to_int32(ki)


def reduce_f64(mb: MathBuilder, x: Value) -> tuple[Value, Value, Value]:
    """``(r_hi, r_lo, q)`` for a float64 ``x``: ``x - k*pi/2 = r_hi + r_lo`` (|r| <= pi/4 plus
    rounding, relative error about 2**-100) and the i32 quadrant ``q``."""
    b = mb.b
    exp = b.and_(b.lshr(mb.as_int(x), mb.ic(52)), mb.ic(0x7FF))
    base = b.mul(exp, mb.ic(3))
    g = _global_table(mb, "double")
    c = [_load(mb, g, b.add(base, mb.ic(j))) for j in range(3)]
    big = b.icmp_unsigned(">=", exp, mb.ic(BIG64))
    xs = mb.mul(x, mb.select(big, mb.c(2.0**-SCALE64), mb.c(1.0)))
    p0, e0 = two_prod(mb, xs, c[0])  # |p0| < 2**55
    p1, e1 = two_prod(mb, xs, c[1])  # |p1| < 4
    p2, e2 = two_prod(mb, xs, c[2])  # |p2| < 2**-50
    # p0 = k0 + f0 exactly; k0 only matters mod 4
    k0 = mb.intrinsic("roundeven", p0)
    f0 = mb.sub(p0, k0)
    k0 = mb.sub(k0, mb.mul(mb.c(4.0), mb.floor(mb.mul(k0, mb.c(0.25)))))  # k0 mod 4, exact
    a, ea = two_sum(mb, e0, p1)
    s, es = two_sum(mb, f0, a)
    k1, _ = mb.round_magic(s)
    s = mb.sub(s, k1)  # exact, |s| <= 0.5
    s, t1 = fast_two_sum(mb, s, es)  # s is 0 or a multiple of ulp(s + k1) > 2 |es|
    s, t2 = two_sum(mb, s, ea)
    s, t3 = two_sum(mb, s, e1)
    s, t4 = two_sum(mb, s, p2)
    tail = mb.add(mb.add(mb.add(t1, t2), mb.add(t3, t4)), e2)
    # r = (s + tail) * pi/2 as hi + lo; |tail| is tiny next to |s| (or both are 0)
    hi, lo = two_prod(mb, s, mb.c(PIO2_HI))
    lo = mb.add(lo, mb.fma(s, mb.c(PIO2_LO), mb.mul(tail, mb.c(PIO2_HI))))
    _, qi = mb.round_magic(mb.add(k0, k1))
    small = mb.le(mb.fabs(x), mb.c(0.7853981633974483))
    hi = mb.select(small, x, hi)
    lo = mb.select(small, mb.c(0.0), lo)
    q = b.select(small, mb.i32(0), mb.to_int32(qi))
    return hi, lo, q
