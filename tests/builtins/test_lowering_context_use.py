"""warp-builtins' helpers that read the op being lowered go through ``LowerContext.op``.

Outside an op they raise the context's RuntimeError (not an AttributeError on ``None``); inside
one they return the op's result types.
"""

from __future__ import annotations

import llvmlite.ir as ir
import pytest
from warp.compiler.lowering.function import ModuleState
from warp.extending import LowerContext, float32, ir as wir, vector
from warp.targets import target_for_kind

from warp_builtins.composite_ir import result_type


def _context() -> LowerContext:
    module = ir.Module(name="t")
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), name="f")
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    target = target_for_kind("cpu")
    null = ir.Constant(ir.PointerType(), None)
    return LowerContext(
        module, builder, target=target, header=null, linear_index=ir.Constant(ir.IntType(64), 0),
        contiguous=True, debug=False, module_state=ModuleState(target=target, debug=False),
    )


def test_result_type_outside_an_op_is_a_clear_error() -> None:
    ctx = _context()
    with pytest.raises(RuntimeError, match="no IR op is being lowered"):
        result_type(ctx)


def test_result_type_reads_the_current_op() -> None:
    ctx = _context()
    vec3 = vector(3, float32)
    ctx.current_op = wir.Op("call", results=[wir.Value(float32), wir.Value(vec3)])
    assert result_type(ctx) is float32
    assert result_type(ctx, 1) is vec3
