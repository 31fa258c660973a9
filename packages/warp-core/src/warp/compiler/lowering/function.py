"""Lowering of IR functions and their structured regions to LLVM IR.

Values carried across regions (if results, loop-carried variables) live in stack slots created
in the entry block; LLVM's mem2reg/SROA turn them into SSA phis. Composite locals indexed at
runtime indices live in one stack slot each and are updated in place
(:mod:`warp.compiler.lowering.local_memory`). Every lowered function takes two hidden leading
parameters: the launch header pointer and the thread's linear index.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import llvmlite.ir as ir
from warp.compiler import ir as wir
from warp.compiler.abi import SCRATCH_SIZE
from warp.compiler.composite import component_pointer
from warp.compiler.lowering import bfloat16 as bf
from warp.compiler.lowering import types as lt
from warp.compiler.lowering.context import LowerContext
from warp.compiler.lowering.local_memory import plan_local_memory
from warp.compiler.lowering.printing import lower_print, lower_printf
from warp.errors import WarpCodegenError

if TYPE_CHECKING:  # targets build on the compiler: the type only
    from warp.targets.base import Target


@dataclass
class ModuleState:
    """Per-LLVM-module lowering state shared by all functions in it."""

    target: Target
    debug: bool
    #: the ``fast_math`` module option (builtins may pick cheaper, less accurate code)
    fast_math: bool = False
    strings: dict[str, ir.GlobalVariable] = field(default_factory=dict)
    functions: dict[str, ir.Function] = field(default_factory=dict)
    #: debug-mode bounds-check sites: site id -> description
    sites: list[dict[str, Any]] = field(default_factory=list)
    uses_print: bool = False
    #: external C symbols the code calls -> "file:line" of the first use
    externals: dict[str, str] = field(default_factory=dict)
    _scratch: ir.GlobalVariable | None = None

    def global_string(self, module: ir.Module, text: str) -> ir.Value:
        gv = self.strings.get(text)
        if gv is None:
            data = bytearray(text.encode("utf-8")) + b"\0"
            ty = ir.ArrayType(lt.I8, len(data))
            gv = ir.GlobalVariable(module, ty, name=f".str.{len(self.strings)}")
            gv.global_constant = True
            gv.linkage = "private"
            gv.initializer = ir.Constant(ty, data)
            self.strings[text] = gv
        zero = ir.Constant(lt.I32, 0)
        return gv.gep([zero, zero])

    def scratch(self, module: ir.Module) -> ir.Value:
        if self._scratch is None:
            ty = ir.ArrayType(lt.I8, SCRATCH_SIZE)
            self._scratch = ir.GlobalVariable(module, ty, name=".wp_scratch")
            self._scratch.linkage = "internal"
            self._scratch.initializer = ir.Constant(ty, None)
            self._scratch.align = 64
        return self._scratch


class InSlot:
    """A composite value held in its web's stack slot (loaded where a use needs it whole)."""

    __slots__ = ("slot",)

    def __init__(self, slot: ir.Value):
        self.slot = slot


class ValueMap(dict):
    """LLVM values by ``id`` of IR value; values :class:`InSlot` are loaded at each access."""

    def __init__(self, builder: ir.IRBuilder):
        super().__init__()
        self.builder = builder

    def __getitem__(self, key: int) -> ir.Value:
        value = dict.__getitem__(self, key)
        if type(value) is InSlot:
            return self.builder.load(value.slot)
        return value


def function_signature(fn: wir.Function) -> tuple[ir.Type, list[ir.Type]]:
    """LLVM return type and parameter types (hidden header and index first)."""
    rets = [lt.llvm_type(t) for t in fn.return_types]
    ret = lt.VOID if not rets else rets[0] if len(rets) == 1 else ir.LiteralStructType(rets)
    return ret, [lt.PTR, lt.I64] + [lt.llvm_type(p.type) for p in fn.params]


def _makes_strided_views(fn: wir.Function) -> bool:
    """Whether ``fn`` calls a builtin returning views that need not be contiguous."""
    for op in wir.walk(fn.body):
        overload = op.attrs.get("overload") if op.kind == "call" else None
        if overload is not None and getattr(overload, "strided_result", False):
            return True
    return False


def lower_function(
    module: ir.Module, state: ModuleState, fn: wir.Function, *, contiguous: bool
) -> ir.Function:
    """Lower ``fn`` into ``module`` (once per layout variant) and return the LLVM function.

    A function making views that need not be contiguous (array slices) addresses elements
    through strides in both variants.
    """
    name = f"{fn.symbol}_{'c' if contiguous else 's'}"
    existing = state.functions.get(name)
    if existing is not None:
        return existing
    ret, params = function_signature(fn)
    llfn = ir.Function(module, ir.FunctionType(ret, params), name=name)
    llfn.linkage = "internal"
    # calls are inlined (vectorizable loops), except @wp.func(inline=False) functions
    llfn.attributes.add("noinline" if getattr(fn.origin, "inline", None) is False else "alwaysinline")
    llfn.attributes.add("nounwind")
    state.functions[name] = llfn
    llfn.append_basic_block("allocas")
    start = llfn.append_basic_block("entry")
    builder = ir.IRBuilder(start)
    ctx = LowerContext(
        module,
        builder,
        target=state.target,
        header=llfn.args[0],
        linear_index=llfn.args[1],
        contiguous=contiguous and not _makes_strided_views(fn),
        debug=state.debug,
        module_state=state,
    )
    ctx.function_name = fn.name
    lowerer = RegionLowerer(ctx, fn)
    values = ValueMap(builder)
    lowerer.bind(fn.params, llfn.args[2:], values)
    lowerer.region(fn.body, values, loops=[])
    if not builder.block.is_terminated:
        lowerer.emit_return([])
    ctx.finish_allocas(start)
    return llfn


@dataclass
class LoopTarget:
    slots: list[ir.Value]
    continue_block: ir.Block
    exit_block: ir.Block


#: builtins whose bfloat16 results are exact given bfloat16 operands -- copies, selections, sign
#: changes, integral parts -- so no rounding is needed after them
_VALUE_PRESERVING = frozenset({
    "array_load", "extract", "assign_copy", "atomic_add", "atomic_sub", "atomic_min", "atomic_max",
    "atomic_exch", "atomic_cas", "neg", "pos", "abs", "min", "max", "clamp", "select", "where", "copysign",
    "floor", "ceil", "trunc", "round", "rint", "sign", "step", "nonzero",
})


class RegionLowerer:
    """Lowers the ops of one function, region by region."""

    def __init__(self, ctx: LowerContext, fn: wir.Function):
        self.ctx = ctx
        self.fn = fn
        self.b = ctx.builder
        self.memory = plan_local_memory(fn)
        self.web_slots: dict[int, ir.Value] = {}

    def fail(self, op: wir.Op, message: str) -> WarpCodegenError:
        return WarpCodegenError(message, function=self.fn.name, loc=op.loc)

    # -- regions --------------------------------------------------------------------------
    def region(
        self, region: wir.Region, values: ValueMap, loops: list[LoopTarget],
        yield_slots: list[ir.Value] | None = None, after: ir.Block | None = None,
    ) -> None:
        """Lower ``region``; a trailing ``yield`` stores into ``yield_slots`` and branches to ``after``."""
        for op in region.ops:
            self.ctx.current_op = op
            kind = op.kind
            if kind == "yield":
                self.store_all(yield_slots or [], op.args, values)
                self.b.branch(after)
                return
            if kind in ("break", "continue"):
                target = loops[-1]
                self.store_all(target.slots, op.args, values)
                self.b.branch(target.exit_block if kind == "break" else target.continue_block)
                return
            if kind == "return":
                self.emit_return([values[id(a)] for a in op.args])
                return
            self.lower_op(op, values, loops)
        if after is not None and not self.b.block.is_terminated:
            self.b.branch(after)

    def lower_op(self, op: wir.Op, values: ValueMap, loops: list[LoopTarget]) -> None:
        """Lower one (non-terminator) op and record its results in ``values``."""
        kind = op.kind
        try:
            if self.memory.in_place(op):
                results = self.component_in_place(op, values)
            else:
                method = getattr(self, f"op_{kind}", None)
                if method is None:
                    raise self.fail(op, f"internal compiler error: no lowering for op '{kind}'")
                results = method(op, values, loops)
        except WarpCodegenError:
            raise
        except Exception as exc:  # a lowering bug must surface as a located Python error
            name = op.attrs["overload"].name if kind == "call" else kind
            message = f"internal compiler error while lowering '{name}': {type(exc).__name__}: {exc}"
            raise self.fail(op, message) from exc
        if results is not None:
            self.bind(op.results, results, values)

    def bind(self, targets: list[wir.Value], results: Any, values: ValueMap) -> None:
        """Record ``results`` as the values of ``targets``; members of in-place webs go to their slot."""
        for r, v in zip(targets, results):
            slot = self.web_slot(r)
            if slot is not None and type(v) is not InSlot:
                self.b.store(v, slot)
                v = InSlot(slot)
            values[id(r)] = v

    def web_slot(self, value: wir.Value) -> ir.Value | None:
        """The stack slot of ``value``'s web if it is kept in memory, else None."""
        web = self.memory.web(value)
        if web is None:
            return None
        slot = self.web_slots.get(web)
        if slot is None:
            slot = self.web_slots[web] = self.ctx.alloca(lt.llvm_type(self.memory.types[web]), "local")
        return slot

    def component_in_place(self, op: wir.Op, values: ValueMap) -> list[Any]:
        """``extract``/``assign_copy`` on a value in its web's slot: one component load or store."""
        slot = self.web_slot(op.args[0])
        is_store = op.attrs["overload"].name == "assign_copy"
        index_args = op.args[1:-1] if is_store else op.args[1:]
        indices = [values[id(a)] for a in index_args]
        dims = list(op.args[0].type._shape_)[: len(indices)]
        ptr = component_pointer(self.b, slot, indices, dims)
        if is_store:
            self.b.store(values[id(op.args[-1])], ptr)
            return [InSlot(slot)]
        return [self.b.load(ptr)]

    def store_all(self, slots: list[ir.Value], args: list[wir.Value], values: ValueMap) -> None:
        """Store the values of ``args`` into ``slots`` (web members already are in their slot)."""
        for slot, a in zip(slots, args):
            v = dict.__getitem__(values, id(a))
            if type(v) is InSlot and v.slot is slot:
                continue
            self.b.store(values[id(a)], slot)

    def result_slots(self, results: list[wir.Value]) -> list[ir.Value]:
        """Slots receiving the values merged into ``results`` (a web's own slot for its members)."""
        return [self.web_slot(r) or self.ctx.alloca(lt.llvm_type(r.type)) for r in results]

    def load_slots(self, targets: list[wir.Value], slots: list[ir.Value], values: ValueMap) -> None:
        """Bind ``targets`` (block parameters, results) to the contents of ``slots``."""
        for p, slot in zip(targets, slots):
            values[id(p)] = InSlot(slot) if self.web_slot(p) is slot else self.b.load(slot)

    def emit_return(self, vals: list[ir.Value]) -> None:
        ret_type = self.b.function.function_type.return_type
        if isinstance(ret_type, ir.VoidType):
            self.b.ret_void()
        elif len(vals) == 1:
            self.b.ret(vals[0])
        else:
            agg = ir.Constant(ret_type, ir.Undefined)
            for i, v in enumerate(vals):
                agg = self.b.insert_value(agg, v, i)
            self.b.ret(agg)

    # -- simple ops -----------------------------------------------------------------------
    def op_const(self, op: wir.Op, values: ValueMap, loops: list) -> list[ir.Value] | None:
        return [lt.constant(op.result.type, op.attrs["value"])]

    def op_call(self, op: wir.Op, values: ValueMap, loops: list) -> list[ir.Value] | None:
        overload = op.attrs["overload"]
        args = [values[id(a)] for a in op.args]
        arg_types = [a.type for a in op.args]
        if overload.func is not None:
            raise self.fail(
                op, f"internal compiler error: builtin '{overload.name}' implemented in the kernel language "
                "was not inlined"
            )
        result = overload.lowering_for(self.ctx.target.name)(self.ctx, args, arg_types)
        if not op.results:
            return []
        results = [result] if len(op.results) == 1 else list(result)
        if overload.name not in _VALUE_PRESERVING:
            results = [
                bf.map_components(self.b, v, bf.round_value) if bf.contains_bfloat16(r.type) else v
                for r, v in zip(op.results, results)
            ]
        return results

    def op_call_func(self, op: wir.Op, values: ValueMap, loops: list) -> list[ir.Value] | None:
        spec: wir.Function = op.attrs["func"]
        callee = lower_function(self.ctx.module, self.ctx.state, spec, contiguous=self.ctx.contiguous)
        args = [self.ctx.header, self.ctx.linear_index] + [values[id(a)] for a in op.args]
        # lowering the callee moved nothing: our builder is untouched, keep emitting here
        result = self.b.call(callee, args)
        if not op.results:
            return []
        if len(op.results) == 1:
            return [result]
        return [self.b.extract_value(result, i) for i in range(len(op.results))]

    def op_print(self, op: wir.Op, values: ValueMap, loops: list) -> list[ir.Value] | None:
        self.ctx.state.uses_print = True
        args = [(values[id(a)], a.type) for a in op.args]
        if "format" in op.attrs:
            lower_printf(self.ctx, op.attrs["format"], args)
        else:
            lower_print(self.ctx, op.attrs["pieces"], args)
        return []

    # -- structured control flow ----------------------------------------------------------
    def op_if(self, op: wir.Op, values: ValueMap, loops: list) -> list[ir.Value] | None:
        slots = self.result_slots(op.results)
        cond = values[id(op.args[0])]
        fn = self.b.function
        then_bb, else_bb, merge_bb = (fn.append_basic_block(n) for n in ("then", "else", "endif"))
        self.b.cbranch(cond, then_bb, else_bb)
        for block, region in ((then_bb, op.regions[0]), (else_bb, op.regions[1])):
            self.b.position_at_end(block)
            self.region(region, values, loops, slots, merge_bb)
        self.b.position_at_end(merge_bb)
        self.load_slots(op.results, slots, values)
        return None

    def op_for(self, op: wir.Op, values: ValueMap, loops: list) -> list[ir.Value] | None:
        start, stop, step = (values[id(a)] for a in op.args[:3])
        ivtype = start.type
        body_region = op.regions[0]
        slots = self.result_slots(op.results)
        iv_slot = self.ctx.alloca(ivtype, "i")
        self.store_all(slots, op.args[3:], values)
        self.b.store(start, iv_slot)
        fn = self.b.function
        names = ("for.head", "for.body", "for.latch", "for.end")
        head, body, latch, exit_bb = (fn.append_basic_block(n) for n in names)
        self.b.branch(head)
        self.b.position_at_end(head)
        i = self.b.load(iv_slot)
        signed = op.args[0].type._kind_ == "int"
        cmp_lt = self.b.icmp_signed if signed else self.b.icmp_unsigned
        step_arg = op.args[2]
        if step_arg.is_const:
            cond = cmp_lt("<", i, stop) if step_arg.const > 0 else cmp_lt(">", i, stop)
        else:
            positive = self.b.icmp_signed(">", step, ir.Constant(ivtype, 0))
            cond = self.b.select(positive, cmp_lt("<", i, stop), cmp_lt(">", i, stop))
        self.b.cbranch(cond, body, exit_bb)
        self.b.position_at_end(body)
        values[id(body_region.params[0])] = i
        self.load_slots(body_region.params[1:], slots, values)
        self.region(body_region, values, loops + [LoopTarget(slots, latch, exit_bb)], slots, latch)
        self.b.position_at_end(latch)
        self.b.store(self.b.add(self.b.load(iv_slot), step), iv_slot)
        self.b.branch(head)
        self.b.position_at_end(exit_bb)
        self.load_slots(op.results, slots, values)
        return None

    def op_while(self, op: wir.Op, values: ValueMap, loops: list) -> list[ir.Value] | None:
        cond_region, body_region = op.regions
        slots = self.result_slots(op.results)
        self.store_all(slots, op.args, values)
        fn = self.b.function
        head, body, exit_bb = (fn.append_basic_block(n) for n in ("while.head", "while.body", "while.end"))
        self.b.branch(head)
        self.b.position_at_end(head)
        self.load_slots(cond_region.params, slots, values)
        for cop in cond_region.ops:
            self.ctx.current_op = cop
            if cop.kind == "condition":
                # the condition may have updated carried values (out-parameters of its calls)
                self.store_all(slots, cop.args[1:], values)
                self.b.cbranch(values[id(cop.args[0])], body, exit_bb)
                break
            self.lower_op(cop, values, loops)
        self.b.position_at_end(body)
        self.load_slots(body_region.params, slots, values)
        self.region(body_region, values, loops + [LoopTarget(slots, head, exit_bb)], slots, head)
        self.b.position_at_end(exit_bb)
        self.load_slots(op.results, slots, values)
        return None
