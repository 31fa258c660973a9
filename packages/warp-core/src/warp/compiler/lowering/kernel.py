"""Lowering of a kernel to an LLVM module with its launch entry points.

Each kernel gets two entries, ``<symbol>_entry_c`` (all arrays contiguous: element addresses
from the shape, which the loop vectorizer handles well) and ``<symbol>_entry_s`` (any strides),
or only the strided one for targets that do not want the contiguous variant (CUDA: no loop
vectorizer to help, and half the code to optimize and emit). Targets with a vector width (CUDA)
add ``<symbol>_entry_v`` for kernels that can use it (:mod:`~warp.compiler.lowering.vector_entry`).
The target defines what an entry looks like (the CPU's loops over a range of thread indices,
see :mod:`warp.targets.cpu.entry`); the kernel body and the functions it calls are
lowered here, the same for every target.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import llvmlite.ir as ir
from warp.compiler import ir as wir
from warp.compiler.lowering.function import ModuleState, lower_function
from warp.compiler.lowering.local_memory import indexes_dynamically
from warp.compiler.lowering.outer_loops import dynamic_loops_vectorizable, outer_loop_blockers
from warp.compiler.lowering.vector_entry import small_enough, wants_vector_entry
from warp.compiler.options import CompileOptions

if TYPE_CHECKING:
    from warp.targets.base import Target

#: ``define_entry(module, name, body, kernel_ir, options, *, contiguous, variant)`` of a target.
DefineEntry = Callable[..., None]


@dataclass(frozen=True)
class EntryVariant:
    """A faster body of a kernel and the per-launch guard deciding whether it applies.

    Lowered from :attr:`warp.compiler.ir.Function.variants` for targets whose entries choose
    (:attr:`warp.targets.base.Target.entry_variants`): the entry calls ``guard(args, 0, *params)``
    once per launch and runs ``fast`` (lowered from ``fast_ir``) instead of the body when it holds.
    """

    guard: ir.Function
    fast: ir.Function
    fast_ir: wir.Function


@dataclass
class KernelModule:
    """LLVM IR of one kernel plus what the runtime needs to launch it."""

    llvm_ir: str
    entries: dict[str, str]
    sites: list[dict[str, Any]] = field(default_factory=list)
    uses_print: bool = False
    #: external C symbols called -> "file:line" of the first use
    externals: dict[str, str] = field(default_factory=dict)
    #: thread indices per thread of ``entries["vector"]`` (0: the kernel has no vector entry)
    vector_width: int = 0


#: Loop metadata asking LLVM to vectorize the thread loop even when the kernel body contains
#: loops of its own (outer-loop vectorization: one SIMD lane per thread); given only to bodies
#: :mod:`warp.compiler.lowering.outer_loops` accepts.
THREAD_LOOP_MARK = "wp.thread_loop"


def outer_vectorizable(fn: wir.Function, body: ir.Function | None = None) -> bool:
    """Whether to ask LLVM to vectorize the thread loop around a kernel that contains loops.

    LLVM's outer-loop vectorizer (the VPlan native path) aborts the process on instructions it
    cannot widen (atomics anywhere in the kernel, dynamically indexed stack slots, ...), so the
    hint needs a kernel whose dynamic loops are not left by jumps and, given its lowered
    ``body``, a body that :func:`~warp.compiler.lowering.outer_loops.outer_loop_blockers` accepts.
    """
    if not dynamic_loops_vectorizable(fn) or indexes_dynamically(fn):
        return False  # a stack slot indexed at runtime index cannot be shared by SIMD lanes
    return body is None or not outer_loop_blockers(body)


def lower_kernel(
    kfn: wir.Function, options: CompileOptions, define_entry: DefineEntry, *, contiguous_entry: bool = True
) -> KernelModule:
    """Lower a kernel's IR (and the functions it calls) to an LLVM module with its entries.

    ``define_entry`` is the target's entry builder (:meth:`warp.targets.base.Target.define_entry`).
    Without ``contiguous_entry`` only the strided entry is made, and it serves both kinds of
    launch (``entries["contiguous"]`` names it too).
    """
    module = ir.Module(name=kfn.symbol)
    target: Target = options.target
    state = ModuleState(target=target, debug=options.debug, fast_math=options.fast_math)
    entries = {}
    variants = kfn.variants
    for contiguous in (True, False) if contiguous_entry else (False,):
        body = lower_function(module, state, kfn, contiguous=contiguous)
        variant = None
        if variants is not None and contiguous and target.entry_variants:
            # a faster version of the body and the per-launch guard deciding whether it applies
            # (warp_autodiff.transform.variants): the entry picks one before its thread loop
            guard = lower_function(module, state, variants.guard, contiguous=True)
            fast = lower_function(module, state, variants.fast, contiguous=True)
            variant = EntryVariant(guard, fast, variants.fast)
        name = f"{kfn.symbol}_entry_{'c' if contiguous else 's'}"
        define_entry(module, name, body, kfn, options, contiguous=contiguous, variant=variant)
        entries["contiguous" if contiguous else "strided"] = name
    entries.setdefault("contiguous", entries["strided"])
    wanted = target.vector_width > 1 and not options.debug and wants_vector_entry(kfn)
    width = options.vector_width if wanted else 0
    if width > 1 and small_enough(module, set(entries.values())):
        body = lower_function(module, state, kfn, contiguous=True)
        entries["vector"] = f"{kfn.symbol}_entry_v"
        target.define_vector_entry(module, entries["vector"], body, kfn, options)
    else:
        width = 0
    target.finish_module(module)
    return KernelModule(
        _with_loop_ids(str(module)), entries, state.sites, state.uses_print, state.externals, width
    )


def _with_loop_ids(text: str) -> str:
    """Replace thread-loop marks by self-referential ``!llvm.loop`` IDs (llvmlite cannot build them)."""
    pattern = re.compile(r"!" + re.escape(THREAD_LOOP_MARK) + r" !(\d+)")
    extra: list[str] = []

    def loop_id(match: re.Match) -> str:
        n = 900000 + 2 * len(extra)
        extra.append(
            f'!{n} = distinct !{{!{n}, !{n + 1}}}\n!{n + 1} = !{{!"llvm.loop.vectorize.enable", i1 true}}'
        )
        return f"!llvm.loop !{n}"

    text = pattern.sub(loop_id, text)
    return text + ("\n" + "\n".join(extra) + "\n" if extra else "")
