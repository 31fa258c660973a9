"""Which kernels get a vector entry, and the alias scopes that let its thread copies interleave.

A target with :attr:`~warp.targets.base.Target.vector_width` ``w > 1`` (CUDA) may give a kernel a
third entry, ``<symbol>_entry_v``, besides the strided one: each GPU thread runs the kernel body
for ``w`` consecutive linear thread indices, on the contiguous body (element addresses from the
shape), assuming every array argument's data is :data:`~warp.compiler.abi.VECTOR_ALIGNMENT`-byte
aligned and the launch is one-dimensional. The launcher picks it only for launches where that
holds (:mod:`warp.runtime.launcher`).

The ``w`` copies of the body are different threads of the kernel, which have no order between
them on a GPU; the entry says so to LLVM by putting each copy's memory accesses in an alias scope
of its own, declared ``noalias`` with the other copies' scopes (:func:`lane_scopes`). LLVM may
then interleave the copies, and the load/store vectorizer merges ``x[i] .. x[i + w - 1]`` into
one 128-bit access when it can prove the alignment.

Only kernels where that can help get the entry (:func:`wants_vector_entry`, then
:func:`small_enough`): a kernel reading or writing a one-dimensional array at the index
``wp.tid()`` returns, with straight-line code (the load/store vectorizer merges accesses within a
basic block: after an ``if`` of one lane the next lane's loads are in another block), no calls to
functions outside the module (math library calls: such kernels are bound by arithmetic, and
each is large once inlined) and a small body: the entry holds the body ``w + 1`` times, so its
compile time grows with the body while the kernels that gain (bandwidth-bound ones) are short.
Kernels that cooperate between threads are left out: ``wp.block_dim()`` (the block is no longer
one thread per index), and ``atomic_cas`` / ``atomic_exch`` (spin locks, whose threads the scopes
would let LLVM reorder).
"""

from __future__ import annotations

import llvmlite.ir as ir

from warp.compiler import ir as wir
from warp.types.array_type import ArrayType

#: builtins whose kernels keep to the plain entry (see the module docstring)
_COOPERATIVE = frozenset({"block_dim", "atomic_cas", "atomic_exch"})
#: builtins reading or writing one array element at the given indices
_ELEMENT_ACCESS = frozenset({"array_load", "array_store"})
#: IR ops with regions (control flow)
_CONTROL_FLOW = frozenset({"if", "for", "while"})
#: most LLVM instructions of the lowered kernel (body and functions, before optimization) for
#: which the entry is made (saxpy: 46; a quaternion rotation of vec3 arrays: 130)
MAX_INSTRUCTIONS = 100


def _straight_line(fn: wir.Function, seen: set[int]) -> bool:
    """Whether ``fn`` and the functions it calls have no control flow and no cooperative builtin."""
    if id(fn) in seen:
        return True
    seen.add(id(fn))
    for op in wir.walk(fn.body):
        if op.kind in _CONTROL_FLOW or (op.kind == "call" and op.attrs["overload"].name in _COOPERATIVE):
            return False
        if op.kind == "call_func" and not _straight_line(op.attrs["func"], seen):
            return False
    return True


def accesses_at_thread_index(fn: wir.Function) -> bool:
    """Whether ``fn`` loads or stores a 1-D array element at the index ``i = wp.tid()`` returns."""
    tids = {
        id(op.results[0])
        for op in wir.walk(fn.body)
        if op.kind == "call" and op.attrs["overload"].name == "tid" and len(op.results) == 1
    }
    if not tids:
        return False
    for op in wir.walk(fn.body):
        if op.kind != "call" or op.attrs["overload"].name not in _ELEMENT_ACCESS or len(op.args) < 2:
            continue
        array, index = op.args[0], op.args[1]
        if isinstance(array.type, ArrayType) and array.type.ndim == 1 and id(index) in tids:
            return True
    return False


def wants_vector_entry(fn: wir.Function) -> bool:
    """Whether kernel ``fn`` may gain from a vector entry: it accesses a 1-D array at
    ``wp.tid()`` and it (with the functions it calls) is straight-line code calling no
    thread-cooperative builtin."""
    return accesses_at_thread_index(fn) and _straight_line(fn, set())


def small_enough(module: ir.Module, entries: set[str]) -> bool:
    """Whether the kernel lowered into ``module`` (all functions but the ``entries``) has at most
    :data:`MAX_INSTRUCTIONS` instructions and calls no function defined outside the module
    (LLVM intrinsics aside)."""
    size = 0
    for fn in module.functions:
        if fn.is_declaration:
            if not fn.name.startswith("llvm."):
                return False
        elif fn.name not in entries:
            size += sum(len(block.instructions) for block in fn.blocks)
    return size <= MAX_INSTRUCTIONS


def lane_scopes(module: ir.Module, width: int) -> list[tuple[ir.NamedValue, ir.NamedValue]]:
    """``(alias.scope, noalias)`` metadata for each of ``width`` lanes: the lane's own scope, and
    the scopes of all other lanes (one domain; set on the lane's body call, which the inliner
    passes on to every memory access of the inlined body)."""
    domain = module.add_metadata([ir.MetaDataString(module, "wp.vector_entry")])
    scopes = [module.add_metadata([ir.MetaDataString(module, f"wp.lane.{k}"), domain]) for k in range(width)]
    return [
        (module.add_metadata([scopes[k]]), module.add_metadata([s for j, s in enumerate(scopes) if j != k]))
        for k in range(width)
    ]
