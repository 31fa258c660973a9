"""Tests of warp.targets.cpu.late_intrinsics: intrinsics LLVM vectorizes, defined after optimization.

A toy provider defines ``llvm.sin.*`` as ``x * lanes + 1`` (the lane count of the type it is
given), so the results show which definition ran: the vector one inside the vectorized loop,
the scalar one in its remainder. No plugin is involved.
"""

from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir

from warp.targets.cpu import jit as cpu_jit
from warp.targets.cpu.late_intrinsics import rename_late_intrinsics

# void entry(float* x, float* y, i64 n): y[i] = llvm.sin(x[i])
LOOP_IR = r"""
declare float @llvm.sin.f32(float)
define void @entry(ptr noalias %x, ptr noalias %y, i64 %n) {
entry:
  %nonempty = icmp sgt i64 %n, 0
  br i1 %nonempty, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %px = getelementptr float, ptr %x, i64 %i
  %py = getelementptr float, ptr %y, i64 %i
  %xv = load float, ptr %px
  %r = call float @llvm.sin.f32(float %xv)
  store float %r, ptr %py
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
"""


def _define_scaled(module: ir.Module, symbol: str, ty: ir.Type) -> None:
    """``symbol(x) = x * lanes + 1`` (lanes = 1 for a scalar)."""
    fn = ir.Function(module, ir.FunctionType(ty, [ty]), symbol)
    fn.linkage = "linkonce_odr"
    fn.attributes.add("alwaysinline")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    lanes = ty.count if isinstance(ty, ir.VectorType) else 1
    scalar = ty.element if isinstance(ty, ir.VectorType) else ty

    def splat(v: float) -> ir.Constant:
        return ir.Constant(ty, [v] * lanes) if lanes > 1 else ir.Constant(scalar, v)

    b.ret(b.fadd(b.fmul(fn.args[0], splat(float(lanes))), splat(1.0)))


def _run(obj: bytes, x: np.ndarray) -> np.ndarray:
    module = cpu_jit.load_object(obj, ["entry"], name="late_test")
    entry = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(module.address("entry"))
    y = np.zeros_like(x)
    entry(x.ctypes.data, y.ctypes.data, x.shape[0])
    return y


def test_vector_and_scalar_definitions_replace_the_intrinsic() -> None:
    late = {"sin": _define_scaled}
    text = cpu_jit.optimize_ir(LOOP_IR, late=late)
    assert "llvm.sin" not in text and "__wp_late_sin" not in text  # renamed, defined, inlined
    x = np.arange(1003, dtype=np.float32)
    y = _run(cpu_jit.compile_ir(LOOP_IR, late=late), x)
    lanes = np.round((y - 1.0)[1:] / x[1:]).astype(int)
    assert set(lanes[:900]) == {lanes[0]} and lanes[0] >= 4  # the vector body: one width
    assert lanes[-1] in (1, 2, 4, 8)  # the remainder: scalar, or a narrower vector epilogue
    np.testing.assert_array_equal(y[1:], x[1:] * np.concatenate([[lanes[0]], lanes[1:]]) + 1.0)


def test_without_a_provider_the_intrinsic_stays_llvms() -> None:
    x = np.linspace(-3.0, 3.0, 101, dtype=np.float32)
    y = _run(cpu_jit.compile_ir(LOOP_IR, late={}), x)
    np.testing.assert_allclose(y, np.sin(x), rtol=0, atol=1e-6)  # the C library's sinf


def test_rename_only_touches_provided_declarations() -> None:
    import llvmlite.binding as llvm

    cpu_jit.warm_up()
    text = LOOP_IR + "declare float @llvm.cos.f32(float)\n"
    text += "declare <8 x double> @llvm.sin.v8f64(<8 x double>)\n"
    module = llvm.parse_assembly(text)
    found = rename_late_intrinsics(module, {"sin": _define_scaled})
    assert sorted((name, symbol) for name, symbol, _ in found) == [
        ("sin", "__wp_late_sin_f32"),
        ("sin", "__wp_late_sin_v8f64"),
    ]
    names = {f.name for f in module.functions}
    assert "llvm.cos.f32" in names and "llvm.sin.f32" not in names
    assert [str(ty) for _, _, ty in sorted(found, key=lambda f: f[1])] == ["float", "<8 x double>"]
