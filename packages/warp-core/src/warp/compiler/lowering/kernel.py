"""Lowering of a kernel to an LLVM module with its launch entry points.

Each kernel gets two entries, ``<symbol>_entry_c`` (all arrays contiguous: element addresses
from the shape, which the loop vectorizer handles well) and ``<symbol>_entry_s`` (any strides).
The backend defines what an entry looks like (the CPU's loops over a range of thread indices,
see :mod:`warp.runtime.backends.cpu_entry`); the kernel body and the functions it calls are
lowered here, the same for every backend.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

import llvmlite.ir as ir
from warp.compiler import ir as wir
from warp.compiler.lowering.function import ModuleState, lower_function
from warp.compiler.lowering.half import legalize_half_conversions
from warp.compiler.lowering.local_memory import indexes_dynamically
from warp.compiler.options import CompileOptions

#: ``define_entry(module, name, body, kernel_ir, options, *, contiguous)`` of a backend.
DefineEntry = Callable[..., None]


@dataclass
class KernelModule:
    """LLVM IR of one kernel plus what the runtime needs to launch it."""

    llvm_ir: str
    entries: dict[str, str]
    sites: list[dict[str, Any]] = field(default_factory=list)
    uses_print: bool = False
    #: external C symbols called -> "file:line" of the first use
    externals: dict[str, str] = field(default_factory=dict)


#: Loop metadata asking LLVM to vectorize the thread loop even when the kernel body contains
#: loops of its own (outer-loop vectorization: one SIMD lane per thread).
THREAD_LOOP_MARK = "wp.thread_loop"


_JUMPS = frozenset({"break", "continue", "return", "print"})


def _pure_region(region: wir.Region, seen: set[int]) -> bool:
    """True if the ops of ``region`` (callees included) have no side effects and no jumps."""
    for op in wir.walk(region):
        if op.kind in _JUMPS:
            return False
        if op.kind == "call" and op.attrs["overload"].side_effects:
            return False
        if op.kind == "call_func":
            callee = op.attrs["func"]
            if id(callee) not in seen:
                seen.add(id(callee))
                body_ops = [o for o in callee.body.ops if o.kind != "return"]
                if not _pure_region(wir.Region(ops=body_ops), seen) or any(
                    o.kind == "return" for sub in callee.body.ops for r in sub.regions for o in wir.walk(r)
                ):
                    return False
    return True


def outer_vectorizable(fn: wir.Function) -> bool:
    """Whether to ask LLVM to vectorize the thread loop around a kernel that contains loops.

    LLVM's outer-loop vectorizer (the VPlan native path) only handles simple inner loops and
    can abort on others (atomics inside the inner loop, for one), so the hint is given only to
    kernels whose loops are free of side effects and of break/continue/return.
    """
    loops = [op for op in wir.walk(fn.body) if op.kind in ("for", "while")]
    if not loops or indexes_dynamically(fn):
        return False  # a stack slot indexed at runtime index cannot be shared by SIMD lanes
    return all(_pure_region(r, set()) for op in loops for r in op.regions)


def lower_kernel(kfn: wir.Function, options: CompileOptions, define_entry: DefineEntry) -> KernelModule:
    """Lower a kernel's IR (and the functions it calls) to an LLVM module with its two entries.

    ``define_entry`` is the backend's entry builder (:meth:`warp.runtime.backends.Backend.define_entry`).
    """
    module = ir.Module(name=kfn.symbol)
    state = ModuleState(target=options.target, debug=options.debug)
    entries = {}
    for contiguous in (True, False):
        body = lower_function(module, state, kfn, contiguous=contiguous)
        name = f"{kfn.symbol}_entry_{'c' if contiguous else 's'}"
        define_entry(module, name, body, kfn, options, contiguous=contiguous)
        entries["contiguous" if contiguous else "strided"] = name
    if options.target == "cpu":  # no compiler-runtime helpers for float16 conversions on the host
        legalize_half_conversions(module)
    return KernelModule(_with_loop_ids(str(module)), entries, state.sites, state.uses_print, state.externals)


def _with_loop_ids(text: str) -> str:
    """Replace thread-loop marks by self-referential ``!llvm.loop`` IDs (llvmlite cannot build them)."""
    pattern = re.compile(r"!" + re.escape(THREAD_LOOP_MARK) + r" !(\d+)")
    extra: list[str] = []

    def loop_id(match: re.Match) -> str:
        n = 900000 + 2 * len(extra)
        extra.append(f"!{n} = distinct !{{!{n}, !{n + 1}}}\n!{n + 1} = !{{!\"llvm.loop.vectorize.enable\", i1 true}}")
        return f"!llvm.loop !{n}"

    text = pattern.sub(loop_id, text)
    return text + ("\n" + "\n".join(extra) + "\n" if extra else "")
