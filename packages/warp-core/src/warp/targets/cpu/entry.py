"""The CPU kernel entry: a loop over a range of linear thread indices around the kernel body.

``void <name>(const char* args, int64 start, int64 end)`` loads the parameters from the argument
buffer once (:func:`warp.compiler.abi.param_layout`) and calls the body for ``start <= i < end``.
The loop of the contiguous-array entry is hinted for (outer-loop) vectorization when the kernel's
body allows it (:func:`warp.compiler.lowering.kernel.outer_vectorizable`).
"""

from __future__ import annotations

import llvmlite.ir as ir

from warp.compiler import ir as wir
from warp.compiler.abi import param_layout
from warp.compiler.lowering import types as lt
from warp.compiler.lowering.kernel import THREAD_LOOP_MARK, EntryVariant, outer_vectorizable
from warp.compiler.options import CompileOptions


def define_entry(
    module: ir.Module, name: str, body: ir.Function, kernel_ir: wir.Function, options: CompileOptions,
    *, contiguous: bool, variant: EntryVariant | None = None,
) -> None:
    """Add the entry ``name`` calling ``body(args, i, *params)`` for each ``i`` in ``[start, end)``.

    With a ``variant`` (lowered for some adjoints), the entry runs ``variant.fast`` instead of
    ``body`` when ``variant.guard(args, 0, *params)`` holds for the launch.
    """
    fnty = ir.FunctionType(lt.VOID, [lt.PTR, lt.I64, lt.I64])
    entry = ir.Function(module, fnty, name=name)
    entry.attributes.add("nounwind")
    args, start, end = entry.args
    args.name, start.name, end.name = "args", "start", "end"
    b = ir.IRBuilder(entry.append_basic_block("entry"))
    params = []
    for p, slot in zip(kernel_ir.params, param_layout([p.type for p in kernel_ir.params]), strict=True):
        ptr = b.gep(args, [ir.Constant(lt.I64, slot.offset)], source_etype=lt.I8)
        raw = b.load(ptr, typ=lt.storage_type(p.type), align=8)
        params.append(lt.from_storage(b, p.type, raw))
    done = entry.append_basic_block("done")
    if variant is not None and contiguous:
        fast, fast_ir = variant.fast, variant.fast_ir
        ok = b.call(variant.guard, [args, ir.Constant(lt.I64, 0)] + params)
        fast_bb, general_bb = entry.append_basic_block("fast"), entry.append_basic_block("general")
        b.cbranch(ok, fast_bb, general_bb)
        b.position_at_end(fast_bb)
        _thread_loop(b, fast, args, params, start, end, done, outer_vectorizable(fast_ir, fast))
        b.position_at_end(general_bb)
    _thread_loop(b, body, args, params, start, end, done, contiguous and outer_vectorizable(kernel_ir, body))
    b.position_at_end(done)
    b.ret_void()


def _thread_loop(b: ir.IRBuilder, body: ir.Function, args: ir.Value, params: list, start: ir.Value,
                 end: ir.Value, done: ir.Block, vectorize: bool) -> None:
    """``for i in [start, end): body(args, i, *params)``, then branch to ``done``."""
    entry = b.function
    loop, body_bb = entry.append_basic_block("loop"), entry.append_basic_block("body")
    pre = b.block
    b.cbranch(b.icmp_signed("<", start, end), loop, done)
    b.position_at_end(loop)
    i = b.phi(lt.I64, "i")
    i.add_incoming(start, pre)
    b.branch(body_bb)
    b.position_at_end(body_bb)
    b.call(body, [args, i] + params)
    nxt = b.add(i, ir.Constant(lt.I64, 1), flags=["nsw", "nuw"])
    i.add_incoming(nxt, body_bb)
    latch = b.cbranch(b.icmp_signed("<", nxt, end), loop, done)
    if vectorize:
        latch.set_metadata(THREAD_LOOP_MARK, entry.module.add_metadata([]))
