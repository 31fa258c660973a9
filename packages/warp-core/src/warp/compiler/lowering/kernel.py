"""Lowering of a kernel to an LLVM module with its launch entry points.

Each kernel gets two entries, ``<symbol>_entry_c`` (all arrays contiguous: element addresses
from the shape, which the loop vectorizer handles well) and ``<symbol>_entry_s`` (any strides).
Both have the C signature ``void entry(const char* args, int64 start, int64 end)`` and run the
kernel body for linear thread indices ``start <= i < end``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import llvmlite.ir as ir

from warp.compiler import ir as wir
from warp.compiler.abi import param_layout
from warp.compiler.lowering import types as lt
from warp.compiler.lowering.function import ModuleState, lower_function


@dataclass
class KernelModule:
    """LLVM IR of one kernel plus what the runtime needs to launch it."""

    llvm_ir: str
    entries: dict[str, str]
    sites: list[dict[str, Any]] = field(default_factory=list)
    uses_print: bool = False


def _define_entry(module: ir.Module, name: str, body: ir.Function, kfn: wir.Function) -> None:
    fnty = ir.FunctionType(lt.VOID, [lt.PTR, lt.I64, lt.I64])
    entry = ir.Function(module, fnty, name=name)
    entry.attributes.add("nounwind")
    args, start, end = entry.args
    args.name, start.name, end.name = "args", "start", "end"
    b = ir.IRBuilder(entry.append_basic_block("entry"))
    params = []
    for p, slot in zip(kfn.params, param_layout([p.type for p in kfn.params])):
        ptr = b.gep(args, [ir.Constant(lt.I64, slot.offset)], source_etype=lt.I8)
        raw = b.load(ptr, typ=lt.storage_type(p.type), align=8)
        params.append(lt.from_storage(b, p.type, raw))
    loop, body_bb, done = (entry.append_basic_block(n) for n in ("loop", "body", "done"))
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
    b.cbranch(b.icmp_signed("<", nxt, end), loop, done)
    b.position_at_end(done)
    b.ret_void()


def lower_kernel(
    kfn: wir.Function, *, target: str = "cpu", debug: bool = False, adjoint: wir.Function | None = None
) -> KernelModule:
    """Lower a kernel's IR (and the functions it calls, and its adjoint if given) to an LLVM module."""
    module = ir.Module(name=kfn.symbol)
    state = ModuleState(target=target, debug=debug)
    entries = {}
    for prefix, fn in (("", kfn), ("adjoint_", adjoint)):
        if fn is None:
            continue
        for contiguous in (True, False):
            body = lower_function(module, state, fn, contiguous=contiguous)
            name = f"{fn.symbol}_entry_{'c' if contiguous else 's'}"
            _define_entry(module, name, body, fn)
            entries[prefix + ("contiguous" if contiguous else "strided")] = name
    return KernelModule(str(module), entries, state.sites, state.uses_print)
