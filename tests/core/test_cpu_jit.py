"""Tests of warp.targets.cpu.jit: IR -> object code -> callable kernel entries."""

from __future__ import annotations

import ctypes
import struct
import threading

import numpy as np
import pytest

from warp.errors import WarpCodegenError
from warp.targets.cpu import jit as cpu_jit

# void entry(const char* args, i64 start, i64 end): y[i] = a * x[i] + y[i]
# args layout: float* x at 0, float* y at 8, float a at 16.
SAXPY_IR = r"""
define void @entry(ptr noalias %args, i64 %start, i64 %end) {
entry:
  %x = load ptr, ptr %args
  %ypp = getelementptr i8, ptr %args, i64 8
  %y = load ptr, ptr %ypp
  %ap = getelementptr i8, ptr %args, i64 16
  %a = load float, ptr %ap
  %nonempty = icmp slt i64 %start, %end
  br i1 %nonempty, label %loop, label %exit
loop:
  %i = phi i64 [ %start, %entry ], [ %next, %loop ]
  %px = getelementptr float, ptr %x, i64 %i
  %py = getelementptr float, ptr %y, i64 %i
  %xv = load float, ptr %px
  %yv = load float, ptr %py
  %ax = fmul float %a, %xv
  %r = fadd float %ax, %yv
  store float %r, ptr %py
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %end
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
"""

SIN_IR = r"""
declare float @sinf(float)
define float @my_sin(float %x) {
  %r = call float @sinf(float %x)
  ret float %r
}
"""

PRINTF_IR = r"""
@fmt = private unnamed_addr constant [16 x i8] c"kernel says %d\0A\00"
declare i32 @printf(ptr, ...)
define void @say(i32 %v) {
  %r = call i32 (ptr, ...) @printf(ptr @fmt, i32 %v)
  ret void
}
"""


def _saxpy_args(x: np.ndarray, y: np.ndarray, a: float) -> bytes:
    return struct.pack("<QQf", x.ctypes.data, y.ctypes.data, a)


def _run_saxpy(module: cpu_jit.LoadedModule, n: int = 1003, a: float = 2.5) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    expected = np.float32(a) * x + y
    fn = cpu_jit.entry_function(module.address("entry"))
    fn(_saxpy_args(x, y, a), 0, n)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


@pytest.fixture(scope="module")
def saxpy_obj() -> bytes:
    return cpu_jit.compile_ir(SAXPY_IR, name="saxpy")


def test_saxpy_matches_numpy(saxpy_obj):
    assert isinstance(saxpy_obj, bytes) and len(saxpy_obj) > 0
    module = cpu_jit.load_object(saxpy_obj, ["entry"], name="saxpy")
    _run_saxpy(module)


def test_saxpy_partial_range():
    module = cpu_jit.load_object(cpu_jit.compile_ir(SAXPY_IR), ["entry"])
    x = np.arange(100, dtype=np.float32)
    y = np.zeros(100, dtype=np.float32)
    fn = cpu_jit.entry_function(module.address("entry"))
    fn(_saxpy_args(x, y, 1.0), 10, 20)
    expected = np.zeros(100, dtype=np.float32)
    expected[10:20] = x[10:20]
    np.testing.assert_array_equal(y, expected)


def test_object_reloads_in_a_second_engine(saxpy_obj):
    first = cpu_jit.load_object(saxpy_obj, ["entry"])
    second = cpu_jit.load_object(saxpy_obj, ["entry"])
    assert first.address("entry") != second.address("entry")
    _run_saxpy(second)
    del first  # freeing one copy must not affect the other
    _run_saxpy(second)


def test_loop_is_vectorized():
    text = cpu_jit.optimize_ir(SAXPY_IR)
    assert "x float>" in text  # e.g. <8 x float> or <16 x float>


def test_llvm_options_extend_from_the_environment_and_key_the_cache(monkeypatch):
    base = cpu_jit.target_fingerprint.__wrapped__()
    assert cpu_jit.llvm_options() == list(cpu_jit.LLVM_OPTIONS)
    assert "-misched=ilpmax" in cpu_jit.LLVM_OPTIONS and f"options={' '.join(cpu_jit.LLVM_OPTIONS)}" in base
    monkeypatch.setenv("WARP_LLVM_OPTIONS", " -misched=default  -x86-use-vzeroupper ")
    assert cpu_jit.llvm_options() == [*cpu_jit.LLVM_OPTIONS, "-misched=default", "-x86-use-vzeroupper"]
    assert cpu_jit.target_fingerprint.__wrapped__() != base  # other options: other cache entries


def test_emit_assembly():
    asm = cpu_jit.emit_assembly(SAXPY_IR)
    assert "entry" in asm


def test_opt_level_zero_still_works():
    module = cpu_jit.load_object(cpu_jit.compile_ir(SAXPY_IR, opt_level=0), ["entry"])
    _run_saxpy(module)


def test_sinf_from_libm_resolves():
    module = cpu_jit.load_object(cpu_jit.compile_ir(SIN_IR), ["my_sin"])
    my_sin = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)(module.address("my_sin"))
    for v in (0.0, 0.5, 1.0, -2.0, 3.0):
        assert my_sin(v) == pytest.approx(np.sin(np.float32(v)), rel=1e-6, abs=1e-7)


def test_printf_output_is_flushed_in_order(capfd):
    module = cpu_jit.load_object(cpu_jit.compile_ir(PRINTF_IR), ["say"])
    say = ctypes.CFUNCTYPE(None, ctypes.c_int32)(module.address("say"))
    print("before")
    cpu_jit.flush_c_stdout()
    say(42)
    cpu_jit.flush_c_stdout()
    print("after")
    cpu_jit.flush_c_stdout()
    out = capfd.readouterr().out
    assert out.index("before") < out.index("kernel says 42") < out.index("after")


def test_verifier_error_raises_codegen_error():
    bad = "define i32 @f() {\n  %a = add i32 %b, 1\n  %b = add i32 %a, 1\n  ret i32 %a\n}\n"
    with pytest.raises(WarpCodegenError, match="dominate"):
        cpu_jit.compile_ir(bad, name="bad")


def test_parse_error_raises_codegen_error():
    with pytest.raises(WarpCodegenError, match="parse error"):
        cpu_jit.compile_ir("define i32 @f() {\n  ret i64 0\n}\n")


def test_undefined_symbol_raises_codegen_error():
    ir = (
        "declare void @no_such_function_xyz()\n"
        "define void @f() {\n  call void @no_such_function_xyz()\n  ret void\n}\n"
    )
    obj = cpu_jit.compile_ir(ir)
    with pytest.raises(WarpCodegenError, match="no_such_function_xyz"):
        cpu_jit.load_object(obj, ["f"])
    # The JIT keeps working after a failed link.
    _run_saxpy(cpu_jit.load_object(cpu_jit.compile_ir(SAXPY_IR), ["entry"]))


def test_imported_symbol_resolves():
    ir = (
        "declare i32 @provided_by_host(i32)\n"
        "define i32 @f(i32 %x) {\n  %r = call i32 @provided_by_host(i32 %x)\n  ret i32 %r\n}\n"
    )
    callback_type = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)
    callback = callback_type(lambda v: v * 3)
    address = ctypes.cast(callback, ctypes.c_void_p).value
    module = cpu_jit.load_object(cpu_jit.compile_ir(ir), ["f"], imports={"provided_by_host": address})
    f = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)(module.address("f"))
    assert f(7) == 21


def test_missing_export_raises(saxpy_obj):
    with pytest.raises(WarpCodegenError):
        cpu_jit.load_object(saxpy_obj, ["not_there"])
    module = cpu_jit.load_object(saxpy_obj, ["entry"])
    with pytest.raises(KeyError):
        module.address("other")


def test_target_fingerprint_is_stable():
    fp = cpu_jit.target_fingerprint()
    assert fp == cpu_jit.target_fingerprint()
    assert cpu_jit.host_triple() in fp and cpu_jit.host_cpu_name() in fp
    assert "llvmlite=" in fp and "llvm=" in fp


def test_concurrent_compile_and_load():
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(3):
                _run_saxpy(cpu_jit.load_object(cpu_jit.compile_ir(SAXPY_IR), ["entry"]))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
