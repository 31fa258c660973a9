"""float16 conversions computed inline, never through compiler-runtime helpers.

On x86 without AVX512-FP16, LLVM lowers ``fptrunc double to half`` to a call of libgcc's
``__truncdfhf2`` (and, without F16C, every half conversion to ``__truncsfhf2`` /
``__extendhfsf2``), which a plain Python process does not provide: the kernel fails to load.
:func:`legalize_half_conversions` rewrites, after lowering, every conversion to or from
``half`` in a module (casts from float/double/integers, casts to them, and the saturating
``llvm.fpto[su]i.sat`` intrinsics) into calls of small internal ``alwaysinline`` functions that
do the conversion with integer and float32/float64 arithmetic: round to nearest even,
subnormals, overflow to infinity, NaN kept quiet, exactly as NumPy's ``astype(np.float16)``.
``double`` converts directly (one rounding, not through float).

Arithmetic on ``half`` values stays native (LLVM computes it in float with F16C instructions).
"""

from __future__ import annotations

import struct
from typing import Callable

import llvmlite.ir as ir
from llvmlite.ir import instructions as ins

HALF = ir.HalfType()
F32 = ir.FloatType()
F64 = ir.DoubleType()
I16 = ir.IntType(16)
I32 = ir.IntType(32)
I64 = ir.IntType(64)


def _c(ty: ir.Type, v: int | float) -> ir.Constant:
    return ir.Constant(ty, v)


def _float_to_half_bits(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """i16 bits of float or double ``x`` rounded to half (round to nearest, ties to even)."""
    wide = x.type == F64
    it, mant, exp_bias = (I64, 52, 1023) if wide else (I32, 23, 127)
    bits = b.bitcast(x, it)
    sign_shift = 48 if wide else 16
    sign = b.and_(b.lshr(bits, _c(it, sign_shift)), _c(it, 0x8000))
    a = b.and_(bits, _c(it, (1 << (63 if wide else 31)) - 1))
    inf_bits = ((1 << (11 if wide else 8)) - 1) << mant
    drop = mant - 10  # mantissa bits dropped
    # NaN: quiet, keeping the top payload bits; infinity and overflow (>= 65520) -> inf
    nan = b.or_(_c(it, 0x7E00), b.and_(b.lshr(a, _c(it, drop)), _c(it, 0x3FF)))
    overflow_from = _bits_of(65520.0, wide)
    # normal halves (>= 2**-14): rebias the exponent, round the dropped bits to nearest even
    rebased = b.sub(a, _c(it, (exp_bias - 15) << mant))
    odd = b.and_(b.lshr(rebased, _c(it, drop)), _c(it, 1))
    normal = b.lshr(b.add(b.add(rebased, _c(it, (1 << (drop - 1)) - 1)), odd), _c(it, drop))
    # subnormal halves: adding 2**k whose ulp is 2**-24 rounds |x| to a multiple of 2**-24
    magic = 2.0 ** (28 if wide else -1)
    fty = F64 if wide else F32
    absx = b.bitcast(a, fty)
    sub = b.sub(b.bitcast(b.fadd(absx, _c(fty, magic)), it), _c(it, _bits_of(magic, wide)))
    result = b.select(b.icmp_unsigned("<", a, _c(it, _bits_of(2.0**-14, wide))), sub, normal)
    result = b.select(b.icmp_unsigned(">=", a, _c(it, overflow_from)), _c(it, 0x7C00), result)
    result = b.select(b.icmp_unsigned(">", a, _c(it, inf_bits)), nan, result)
    return b.trunc(b.or_(result, sign), I16)


def _bits_of(value: float, wide: bool) -> int:
    if wide:
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    return struct.unpack("<I", struct.pack("<f", value))[0]


def _half_to_float(b: ir.IRBuilder, h: ir.Value) -> ir.Value:
    """float value of half ``h`` (exact)."""
    bits = b.zext(b.bitcast(h, I16), I32)
    sign = b.shl(b.and_(bits, _c(I32, 0x8000)), _c(I32, 16))
    magnitude = b.and_(bits, _c(I32, 0x7FFF))
    exponent = b.and_(bits, _c(I32, 0x7C00))
    normal = b.add(b.shl(magnitude, _c(I32, 13)), _c(I32, 112 << 23))
    special = b.or_(b.shl(magnitude, _c(I32, 13)), _c(I32, 0x7F800000))  # inf / NaN (payload kept)
    subnormal = b.bitcast(b.fmul(b.uitofp(magnitude, F32), _c(F32, 2.0**-24)), I32)  # exact
    result = b.select(b.icmp_unsigned("==", exponent, _c(I32, 0)), subnormal, normal)
    result = b.select(b.icmp_unsigned("==", exponent, _c(I32, 0x7C00)), special, result)
    return b.bitcast(b.or_(result, sign), F32)


def _define(module: ir.Module, name: str, ret: ir.Type, arg: ir.Type, body: Callable) -> ir.Function:
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    fn = ir.Function(module, ir.FunctionType(ret, [arg]), name=name)
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    fn.attributes.add("nounwind")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    b.ret(body(b, fn.args[0]))
    return fn


def _suffix(ty: ir.Type) -> str:
    return {HALF: "f16", F32: "f32", F64: "f64"}.get(ty) or f"i{ty.width}"


def _to_half_body(op: str) -> Callable:
    def body(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
        if op == "sitofp":
            x = b.sitofp(x, F32)  # exact below 2**24; anything larger is inf as half anyway
        elif op == "uitofp":
            x = b.uitofp(x, F32)
        return b.bitcast(_float_to_half_bits(b, x), HALF)

    return body


def _from_half_body(op: str, to: ir.Type) -> Callable:
    def body(b: ir.IRBuilder, h: ir.Value) -> ir.Value:
        f = _half_to_float(b, h)
        if op == "fpext":
            return f if to == F32 else b.fpext(f, to)
        return b.fptosi(f, to) if op == "fptosi" else b.fptoui(f, to)

    return body


def _replacement(module: ir.Module, instr: ins.Instruction) -> tuple[ir.Function, list[ir.Value]] | None:
    """(helper, arguments) that compute ``instr`` without half conversions, or None if not one."""
    if isinstance(instr, ins.CastInstr):
        op, src, dst = instr.opname, instr.operands[0].type, instr.type
        if dst == HALF and op in ("fptrunc", "sitofp", "uitofp"):
            name = f"__wp_{op}_{_suffix(src)}_to_f16"
            return _define(module, name, HALF, src, _to_half_body(op)), [instr.operands[0]]
        if src == HALF and op in ("fpext", "fptosi", "fptoui"):
            name = f"__wp_{op}_f16_to_{_suffix(dst)}"
            return _define(module, name, dst, HALF, _from_half_body(op, dst)), [instr.operands[0]]
        return None
    if isinstance(instr, ins.CallInstr) and isinstance(instr.callee, ir.Function):
        callee = instr.callee.name
        if callee.startswith(("llvm.fptosi.sat.", "llvm.fptoui.sat.")) and callee.endswith(".f16"):
            float_name = callee[: -len("f16")] + "f32"
            ret = instr.type
            inner = module.globals.get(float_name)
            if inner is None:
                inner = ir.Function(module, ir.FunctionType(ret, [F32]), float_name)

            def body(b: ir.IRBuilder, h: ir.Value) -> ir.Value:
                return b.call(inner, [_half_to_float(b, h)])

            return _define(module, f"__wp_{callee[5:].replace('.', '_')}", ret, HALF, body), list(instr.args)
    return None


def legalize_half_conversions(module: ir.Module) -> int:
    """Replace every conversion to or from half in ``module`` by an inline helper; returns the count."""
    count = 0
    for fn in list(module.functions):  # helpers defined on the way hold no half conversions
        if fn.is_declaration:
            continue
        replaced: dict[int, ir.Value] = {}
        # the replaced instructions, kept alive while ``replaced`` is keyed by their ids: an unused
        # one freed early would hand its id to a new object (a helper function, a call), which
        # would then be taken for it
        originals: list[ins.Instruction] = []
        for block in fn.blocks:
            for i, instr in enumerate(block.instructions):
                found = _replacement(module, instr)
                if found is not None:
                    helper, args = found
                    originals.append(instr)
                    block.instructions[i] = replaced[id(instr)] = ins.CallInstr(block, helper, args)
        if not replaced:
            continue
        count += len(replaced)
        for block in fn.blocks:
            for instr in block.instructions:
                if isinstance(instr, ins.PhiInstr):
                    instr.incomings = [(replaced.get(id(v), v), blk) for v, blk in instr.incomings]
                elif any(id(op) in replaced for op in instr.operands):
                    _replace_operands(instr, replaced)
    return count


def _replace_operands(instr: ins.Instruction, replaced: dict[int, ir.Value]) -> None:
    """Point ``instr``'s uses of replaced values at their replacements.

    Some llvmlite instructions print from attributes that duplicate their operands
    (``extractvalue``/``insertvalue``: ``aggregate``, ``value``; ``getelementptr``: ``pointer``,
    ``indices``), so those are updated too.
    """
    instr.operands = tuple(replaced.get(id(op), op) for op in instr.operands)
    fields = vars(instr)
    for attr in ("aggregate", "value", "pointer"):
        if attr in fields and id(fields[attr]) in replaced:
            fields[attr] = replaced[id(fields[attr])]
    if isinstance(instr, ins.GEPInstr):
        instr.indices = [replaced.get(id(i), i) for i in instr.indices]
    instr._clear_string_cache()
