"""Test harness: compile small llvmlite modules with MCJIT at O3 and run them on NumPy arrays.

Lets builtin lowerings and the IR math library be tested without the kernel compiler: a module
gets one *elementwise* function per tested operation::

    void f(out* noalias, in0* noalias, in1* noalias, ..., i64 n)   // out[i] = op(in0[i], ...)

whose loop body calls a lowering (``lower(ctx, args, arg_types)``) with a minimal context
(``builder``, ``module``, ``target``, ``llvm_type``). Bool values are ``i1`` in registers and one
byte in memory.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import time
from collections.abc import Callable, Sequence
from typing import Any

import llvmlite.binding as llvm
import numpy as np
import warp.types.scalars as wps
from warp.targets import target_for_kind
from llvmlite import ir

_initialized = False


def _init() -> None:
    global _initialized
    if _initialized:
        return
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()
    path = ctypes.util.find_library("m")
    if path:
        llvm.load_library_permanently(path)
    _initialized = True


# ---------------------------------------------------------------------------------- types


def llvm_type(t: Any) -> ir.Type:
    """The SSA (register) type of a warp scalar type."""
    t = wps.canonical_type(t)
    if t is wps.bool:
        return ir.IntType(1)
    if t is wps.float16:
        return ir.HalfType()
    if t is wps.float32 or t is wps.bfloat16:  # bfloat16 values are float32 registers
        return ir.FloatType()
    if t is wps.float64:
        return ir.DoubleType()
    if wps.is_int(t):
        return ir.IntType(t._bits_)
    raise TypeError(f"no LLVM type for {t!r}")


def _storage_type(t: Any) -> ir.Type:
    return ir.IntType(8) if wps.canonical_type(t) is wps.bool else llvm_type(t)


class MiniContext:
    """The part of the compiler's lowering context that builtin lowerings use."""

    def __init__(self, builder: ir.IRBuilder, target: str = "cpu"):
        """``target``: the name of the target to lower for."""
        self.builder = builder
        self.module = builder.module
        self.target = target_for_kind(target)

    @staticmethod
    def llvm_type(t: Any) -> ir.Type:
        return llvm_type(t)


# ---------------------------------------------------------------------------------- building


Emit = Callable[[ir.IRBuilder, list], ir.Value]


def add_elementwise(
    module: ir.Module, name: str, arg_types: Sequence[Any], result_type: Any, emit: Emit
) -> None:
    """Define ``void name(out*, in0*, ..., i64 n)`` computing ``out[i] = emit(builder, [in0[i], ...])``.

    ``arg_types``/``result_type`` are warp scalar types; ``emit`` receives register values.
    """
    ptr = ir.PointerType()
    i64 = ir.IntType(64)
    fnty = ir.FunctionType(ir.VoidType(), [ptr] * (1 + len(arg_types)) + [i64])
    fn = ir.Function(module, fnty, name)
    for a in fn.args[:-1]:
        a.add_attribute("noalias")
    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    n = fn.args[-1]
    b.cbranch(b.icmp_signed(">", n, ir.Constant(i64, 0)), loop, done)
    b.position_at_end(loop)
    i = b.phi(i64, "i")
    i.add_incoming(ir.Constant(i64, 0), entry)
    values = []
    for t, p in zip(arg_types, fn.args[1:-1]):
        v = b.load(b.gep(p, [i], source_etype=_storage_type(t)), typ=_storage_type(t))
        if wps.canonical_type(t) is wps.bool:
            v = b.icmp_unsigned("!=", v, ir.Constant(ir.IntType(8), 0))
        values.append(v)
    result = emit(b, values)
    if wps.canonical_type(result_type) is wps.bool:
        result = b.zext(result, ir.IntType(8))
    b.store(result, b.gep(fn.args[0], [i], source_etype=_storage_type(result_type)))
    nxt = b.add(i, ir.Constant(i64, 1))
    i.add_incoming(nxt, b.block)
    b.cbranch(b.icmp_signed("<", nxt, n), loop, done)
    b.position_at_end(done)
    b.ret_void()


# ---------------------------------------------------------------------------------- compiling


def _target_machine() -> llvm.TargetMachine:
    _init()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=3, jit=True
    )


def optimize(module: ir.Module | str, *, opt_level: int = 3) -> tuple[llvm.ModuleRef, llvm.TargetMachine]:
    """Parse, verify and optimize (new pass manager, loop + SLP vectorization) for the host."""
    tm = _target_machine()
    mod = llvm.parse_assembly(str(module))
    mod.verify()
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    return mod, tm


def optimized_ir(module: ir.Module | str) -> str:
    """Optimized IR text, to inspect vectorization."""
    return str(optimize(module)[0])


class JitModule:
    """A module compiled with MCJIT; ``elementwise(name)`` returns a NumPy-level callable."""

    def __init__(self, module: ir.Module | str):
        mod, tm = optimize(module)
        self.engine = llvm.create_mcjit_compiler(mod, tm)
        self.engine.finalize_object()
        self.engine.run_static_constructors()
        self.ir = str(mod)

    def address(self, name: str) -> int:
        return self.engine.get_function_address(name)

    def elementwise(self, name: str, arg_types: Sequence[Any], result_type: Any) -> Callable[..., np.ndarray]:
        n_in = len(arg_types)
        cfunc = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * (1 + n_in)), ctypes.c_int64)(self.address(name))
        out_dtype = wps.dtype_to_numpy(wps.canonical_type(result_type))
        in_dtypes = [wps.dtype_to_numpy(wps.canonical_type(t)) for t in arg_types]

        def run(*arrays: Any, out: np.ndarray | None = None) -> np.ndarray:
            arrs = [
                np.ascontiguousarray(np.broadcast_arrays(*arrays)[k], dtype=d)
                for k, d in enumerate(in_dtypes)
            ]
            shape = arrs[0].shape if arrs else ()
            res = np.empty(shape, dtype=out_dtype) if out is None else out
            cfunc(res.ctypes.data, *[a.ctypes.data for a in arrs], res.size)
            return res

        run.keepalive = (self, cfunc)  # type: ignore[attr-defined]
        return run


# ---------------------------------------------------------------------------------- conveniences


def compile_lowering(
    lower: Callable[..., ir.Value], arg_types: Sequence[Any], result_type: Any, *, target: str = "cpu"
) -> Callable[..., np.ndarray]:
    """Compile ``out[i] = lower(ctx, [a[i], ...], arg_types)`` and return it as a NumPy function."""
    module = ir.Module("harness")

    def emit(builder: ir.IRBuilder, values: list) -> ir.Value:
        return lower(MiniContext(builder, target), values, list(arg_types))

    add_elementwise(module, "f", arg_types, result_type, emit)
    return JitModule(module).elementwise("f", arg_types, result_type)


def run_lowering(
    lower: Callable[..., ir.Value], arg_types: Sequence[Any], result_type: Any, *arrays: Any
) -> np.ndarray:
    """Compile and run a lowering elementwise on ``arrays``."""
    return compile_lowering(lower, arg_types, result_type)(*arrays)


def timed(fn: Callable[[], Any], repeat: int = 3) -> float:
    """Best wall time of ``repeat`` calls, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best
