"""Lowerings that differ on CUDA: kernel ``printf`` through the device runtime's ``vprintf``."""

from __future__ import annotations

from typing import Sequence

import llvmlite.ir as ir

from warp.compiler.lowering import types as lt
from warp.compiler.lowering.context import LowerContext


def emit_vprintf(ctx: LowerContext, fmt: ir.Value, args: Sequence[ir.Value]) -> None:
    """Call ``vprintf(fmt, &packed_args)``: the arguments (C varargs promotions applied) packed
    in a stack struct, each at its natural alignment, as CUDA's ``vprintf`` expects."""
    vprintf = ctx.declare("vprintf", lt.I32, [lt.PTR, lt.PTR])
    if not args:
        ctx.builder.call(vprintf, [fmt, ir.Constant(lt.PTR, None)])
        return
    packed = ir.LiteralStructType([a.type for a in args])
    slot = ctx.alloca(packed, "printf.args")
    b = ctx.builder
    zero = ir.Constant(lt.I32, 0)
    for k, a in enumerate(args):
        # no source_etype: llvmlite then types the result as a pointer to field k
        b.store(a, b.gep(slot, [zero, ir.Constant(lt.I32, k)]))
    b.call(vprintf, [fmt, b.bitcast(slot, lt.PTR)])
