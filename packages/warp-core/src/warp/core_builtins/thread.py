"""``wp.tid()``: the index of the current thread in the launch grid."""

from __future__ import annotations


import llvmlite.ir as ir

from warp.compiler.lowering import types as lt
from warp.compiler.lowering.context import LowerContext
from warp.compiler.registry import BuiltinRegistry
from warp.types.scalars import int32


def _non_negative(ctx: LowerContext, index: ir.Value) -> ir.Value:
    """``index`` with its sign bit cleared, which changes nothing (launch dimensions fit in
    int32) but tells LLVM that thread indices are never negative: it then drops the
    count-from-the-end adjustment of ``a[i]`` and such loops stay vectorizable. (An
    ``llvm.assume`` says the same but makes the outer-loop vectorizer abort.)"""
    return ctx.builder.and_(index, ir.Constant(index.type, 0x7FFFFFFF))


def inner_launch_size(ctx: LowerContext) -> ir.Value:
    """Product of launch dimensions 1..3 (i64; 1 in a one-dimensional launch), read with
    ``invariant.load`` (the header does not change during a launch: hoisted out of the loop)."""
    b = ctx.builder
    dims = [ctx.launch_dim(k) for k in (1, 2, 3)]
    invariant = ctx.module.add_metadata([])
    for load in dims:
        load.set_metadata("invariant.load", invariant)
    return b.mul(b.mul(dims[0], dims[1]), dims[2])


def _first_coordinate(ctx: LowerContext) -> ir.Value:
    """The thread's coordinate along launch dimension 0 (i64): the linear index divided by the
    product of the other dimensions, which is 1 in a 1-D launch (no division then: the branch
    is loop invariant and the loop stays vectorizable)."""
    b = ctx.builder
    lin = ctx.linear_index
    inner = inner_launch_size(ctx)
    entry = b.block
    with b.if_then(b.icmp_unsigned("!=", inner, ir.Constant(lt.I64, 1)), likely=False):
        divided = b.udiv(lin, inner)
        divided_block = b.block
    first = b.phi(lt.I64)
    first.add_incoming(lin, entry)
    first.add_incoming(divided, divided_block)
    return first


def lower_tid(ctx: LowerContext, args: list, types: list) -> ir.Value | tuple[ir.Value, ...]:
    """For one result, the index along launch dimension 0 (the linear index in a 1-D launch; the
    first coordinate in a multi-dimensional one, as NVIDIA Warp 1.19 gives); for n results, the
    index decomposed over launch dims 0..n-1."""
    b = ctx.builder
    assert ctx.current_op is not None  # builtins are lowered from their call op
    n = len(ctx.current_op.results)
    lin = ctx.linear_index
    if n == 1:
        return _non_negative(ctx, b.trunc(_first_coordinate(ctx), lt.I32))
    out = []
    rest = lin
    for k in range(n - 1, 0, -1):
        dim = ctx.launch_dim(k)
        out.append(_non_negative(ctx, b.trunc(b.urem(rest, dim), lt.I32)))
        rest = b.udiv(rest, dim)
    out.append(_non_negative(ctx, b.trunc(rest, lt.I32)))
    return tuple(reversed(out))


def lower_block_dim(ctx: LowerContext, args: list, types: list) -> ir.Value:
    """1: targets without blocks run one thread per block."""
    return ir.Constant(lt.I32, 1)


def lower_block_dim_cuda(ctx: LowerContext, args: list, types: list) -> ir.Value:
    """``blockDim.x`` on CUDA (the ``ntid.x`` special register)."""
    fn = ctx.declare("llvm.nvvm.read.ptx.sreg.ntid.x", lt.I32, [])
    return ctx.builder.call(fn, [])


def register(registry: BuiltinRegistry) -> None:
    """Register ``tid`` and ``block_dim``."""
    registry.add(
        "block_dim",
        params=[],
        result=int32,
        lower=lower_block_dim,
        lower_for={"cuda": lower_block_dim_cuda},
        doc="Threads per block of the launch (CPU launches run one thread per block, so 1 there).",
        group="Utility",
        differentiable=False,
    )
    registry.add(
        "tid",
        params=[],
        result=int32,
        lower=lower_tid,
        doc="Index of the current thread: i, j[, k[, l]] = wp.tid(); a single i = wp.tid() is the index "
        "along the first launch dimension (the linear index in a 1-D launch).",
        group="Utility",
    )
