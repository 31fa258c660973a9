"""Which kernels may ask LLVM to vectorize their thread loop around inner loops.

A kernel whose body holds a dynamic loop leaves the thread loop outermost, so LLVM's ordinary
loop vectorizer only sees the inner loop. With ``-enable-vplan-native-path`` the thread loop can
be marked ``llvm.loop.vectorize.enable`` and vectorized as an *outer* loop (one SIMD lane per
thread). That path is experimental: it widens every instruction of the loop without the checks
the inner-loop path makes, and aborts the process on instructions it cannot widen. So the hint
is given only when every instruction the body can contribute to the thread loop is one the
native path widens (LLVM 22, ``VPlanTransforms::tryToConvertVPInstructionsToVPRecipes`` and
``VPWidenRecipe::execute``):

- arithmetic, comparisons, casts, ``select``, ``getelementptr``, ``phi``, branches, non-atomic
  scalar loads and stores, ``freeze``; calls of functions (LLVM declines calls it cannot widen)
  and of the intrinsics in :data:`VECTOR_INTRINSICS` (others, like ``llvm.assume``, abort it);
  ``extractvalue``/``insertvalue`` (folded away or hoisted before vectorization);
- never atomics (``atomicrmw``, ``cmpxchg``), fences, atomic or vector-typed accesses, switches,
  or ``phi``/``select``/``freeze`` of aggregate or vector type;
- aggregate loads and stores only where InstCombine/SROA split them into scalars before the
  vectorizer runs: on stack slots accessed only through constant indices, or arrays of scalars
  (at most 1024 per level) in array memory. Stack slots indexed dynamically (a dynamic component
  index ``v[j]``) are rejected: one slot shared by all SIMD lanes would also be wrong.

Control flow the native path cannot handle (divergent branches, loops whose trip count depends
on the thread) is rejected by LLVM's own legality checks, which leave the loop scalar.
"""

from __future__ import annotations

from typing import Iterator

import llvmlite.ir as ll

from warp.compiler import ir as wir

_ARITH = {
    "add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "shl", "lshr", "ashr", "and", "or", "xor",
    "fadd", "fsub", "fmul", "fdiv", "frem", "fneg", "freeze", "icmp", "fcmp", "select",
}
_CASTS = {
    "trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
    "ptrtoint", "inttoptr", "bitcast",
}
_OTHER = {
    "getelementptr", "phi", "br", "ret", "ret void", "alloca", "load", "store", "call", "extractvalue",
    "insertvalue",
}
#: opcodes (llvmlite ``opname``) the VPlan native path widens or declines without aborting
SAFE_OPCODES = frozenset(_ARITH | _CASTS | _OTHER)
#: LLVM intrinsics the native path widens (LLVM's "trivially vectorizable" ones we emit or may
#: emit); others (``llvm.assume``, ``llvm.lifetime.*``, ...) can abort it, so calls to them block
#: the hint. Matched against the name without ``llvm.`` and before the type suffixes.
VECTOR_INTRINSICS = frozenset({
    "abs", "smin", "smax", "umin", "umax", "sqrt", "sin", "cos", "tan", "exp", "exp2", "exp10", "log",
    "log2", "log10", "pow", "fabs", "minnum", "maxnum", "minimum", "maximum", "copysign", "floor", "ceil",
    "trunc", "rint", "nearbyint", "round", "roundeven", "fma", "fmuladd", "ctpop", "ctlz", "cttz", "bswap",
    "bitreverse", "fshl", "fshr", "fptosi.sat", "fptoui.sat", "sadd.sat", "uadd.sat", "ssub.sat", "usub.sat",
})
#: InstCombine splits aggregate loads/stores of arrays up to this many elements per level
MAX_ARRAY_SPLIT = 1024

_SCALARS = (ll.IntType, ll.FloatType, ll.DoubleType, ll.HalfType, ll.PointerType)


def dynamic_loops_vectorizable(fn: wir.Function) -> bool:
    """IR-level pre-check: the kernel has a dynamic loop and no loop is left by a jump.

    ``break``/``continue``/``return`` inside a loop give it several exits, which the native path
    does not support; the instruction-level check is :func:`outer_loop_blockers`.
    """
    loops = [op for op in wir.walk(fn.body) if op.kind in ("for", "while")]
    if not loops:
        return False
    jumps = {"break", "continue", "return"}
    return not any(inner.kind in jumps for op in loops for r in op.regions for inner in wir.walk(r))


def _is_scalar(t: ll.Type) -> bool:
    return isinstance(t, _SCALARS)


def _splittable_array(t: ll.Type) -> bool:
    """Arrays (nested) of scalars that InstCombine splits into scalar loads/stores."""
    if _is_scalar(t):
        return True
    if isinstance(t, ll.ArrayType):
        return t.count <= MAX_ARRAY_SPLIT and _splittable_array(t.element)
    return False


def _first_class_ok(t: ll.Type) -> bool:
    """SSA types that may flow through phi/select/freeze in the thread loop."""
    return _is_scalar(t) or isinstance(t, ll.VoidType)


def _functions(root: ll.Function) -> Iterator[ll.Function]:
    """``root`` and every function with a body it calls, transitively."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        fn = stack.pop()
        if id(fn) in seen or not fn.blocks:
            continue
        seen.add(id(fn))
        yield fn
        for block in fn.blocks:
            for instr in block.instructions:
                if isinstance(instr, ll.CallInstr) and isinstance(instr.callee, ll.Function):
                    stack.append(instr.callee)


def _users(fn: ll.Function) -> dict[int, list[ll.Instruction]]:
    users: dict[int, list[ll.Instruction]] = {}
    for block in fn.blocks:
        for instr in block.instructions:
            for operand in instr.operands:
                users.setdefault(id(operand), []).append(instr)
    return users


def _promotable(slot: ll.Value, users: dict[int, list[ll.Instruction]]) -> bool:
    """Whether SROA turns the stack slot into SSA values: only loads, stores *to* it and
    constant-index GEPs (whose uses are likewise) touch it."""
    for user in users.get(id(slot), []):
        if isinstance(user, ll.LoadInstr):
            continue
        if isinstance(user, ll.StoreInstr) and user.operands[1] is slot and user.operands[0] is not slot:
            continue
        if isinstance(user, ll.GEPInstr) and user.pointer is slot:
            if all(isinstance(i, ll.Constant) for i in user.indices) and _promotable(user, users):
                continue
        return False
    return True


def _slot_pointers(fn: ll.Function, users: dict[int, list[ll.Instruction]]) -> tuple[set[int], list[str]]:
    """Ids of pointers into promotable stack slots, and reasons for slots that are not."""
    inside: set[int] = set()
    problems: list[str] = []

    def mark(ptr: ll.Value) -> None:
        inside.add(id(ptr))
        for user in users.get(id(ptr), []):
            if isinstance(user, ll.GEPInstr) and user.pointer is ptr:
                mark(user)

    for block in fn.blocks:
        for instr in block.instructions:
            if isinstance(instr, ll.AllocaInstr):
                if _promotable(instr, users):
                    mark(instr)
                else:
                    problems.append(f"{fn.name}: stack slot {instr.name or '?'} is indexed dynamically")
    return inside, problems


def outer_loop_blockers(root: ll.Function) -> list[str]:
    """Reasons the kernel body ``root`` (and its callees) must not be outer-loop vectorized.

    Empty when every instruction is one the VPlan native path handles (see the module docstring).
    """
    problems: list[str] = []
    for fn in _functions(root):
        users = _users(fn)
        slots, bad_slots = _slot_pointers(fn, users)
        problems += bad_slots
        for block in fn.blocks:
            for instr in block.instructions:
                problem = _instruction_problem(instr, slots)
                if problem is not None:
                    problems.append(f"{fn.name}: {problem}")
    return problems


def _intrinsic_ok(name: str) -> bool:
    base = name[len("llvm."):]
    return any(base == k or base.startswith(k + ".") for k in VECTOR_INTRINSICS)


def _instruction_problem(instr: ll.Instruction, slots: set[int]) -> str | None:
    if isinstance(instr, ll.Comment):
        return None
    op = instr.opname
    if op not in SAFE_OPCODES:
        return f"'{op}' cannot be widened"
    if isinstance(instr, ll.CallInstr):
        name = getattr(instr.callee, "name", "")
        if name.startswith("llvm.") and not _intrinsic_ok(name):
            return f"call of intrinsic '{name}'"
    if any(isinstance(getattr(v, "type", None), ll.VectorType) for v in [instr, *instr.operands]):
        return f"'{op}' on an LLVM vector type"
    if op in ("phi", "select", "freeze") and not _first_class_ok(instr.type):
        return f"'{op}' of aggregate type {instr.type}"
    if isinstance(instr, (ll.LoadInstr, ll.StoreInstr)):
        value_type = instr.type if isinstance(instr, ll.LoadInstr) else instr.operands[0].type
        ptr = instr.operands[0] if isinstance(instr, ll.LoadInstr) else instr.operands[1]
        if id(ptr) in slots or _is_scalar(value_type):
            return None
        if not _splittable_array(value_type):
            return f"'{op}' of aggregate type {value_type} from array memory"
    return None


__all__ = [
    "MAX_ARRAY_SPLIT",
    "SAFE_OPCODES",
    "VECTOR_INTRINSICS",
    "dynamic_loops_vectorizable",
    "outer_loop_blockers",
]
