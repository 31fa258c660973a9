"""Timings of the IR math library (development tool; prints figures, asserts nothing).

Run from the repository root::

    .venv/bin/python packages/warp-builtins/tools/bench_mathlib.py [--functions] [--sincos]

``--functions``: each function over 1M elements, float32 and float64, single thread, compared
with NumPy. ``--sincos``: 200 sin + 200 cos per element over 1M float32 elements, single
thread, as straight-line code (the element loop vectorized by LLVM's loop vectorizer) and as an
inner ``for j in range(200)`` loop (the element loop vectorized by the VPlan native path, the
outer-loop vectorizer enabled with ``-enable-vplan-native-path`` plus
``llvm.loop.vectorize.enable`` metadata). Uses the test harness in ``tests/builtins``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "builtins"))

import llvm_harness as H
import warp.types.scalars as wps
from warp_builtins.mathlib import arity, call_math, math_function_names

N = 1_000_000
REFERENCE = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "exp": np.exp, "exp2": np.exp2, "log": np.log,
             "log2": np.log2, "log10": np.log10, "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos,
             "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "cbrt": np.cbrt, "pow": np.power,
             "atan2": np.arctan2}  # fmt: skip


def _with_width(text: str, fn: str, width: int) -> str:
    text = re.sub(rf'(define void @"{fn}"\([^)]*\))', r"\1 #7", text)
    return text + f'\nattributes #7 = {{ "prefer-vector-width"="{width}" }}\n'


def bench_functions() -> None:
    print(f"{'function':10s} {'type':8s} {'256-bit ms':>11s} {'512-bit ms':>11s} {'numpy ms':>9s}")
    rng = np.random.default_rng(0)
    for name in math_function_names():
        for wt, dtype in ((wps.float32, np.float32), (wps.float64, np.float64)):
            n = arity(name)
            module = ir.Module(name)
            H.add_elementwise(module, "f", [wt] * n, wt, lambda b, v, name=name: call_math(b, name, *v))
            args = [rng.uniform(0.1, 2.0, N).astype(dtype) for _ in range(n)]
            out = np.empty(N, dtype)
            times = []
            for width in (256, 512):
                f = H.JitModule(_with_width(str(module), "f", width)).elementwise("f", [wt] * n, wt)
                times.append(H.timed(lambda f=f, args=args, out=out: f(*args, out=out), 5))
            ref = REFERENCE.get(name)
            t_np = H.timed(lambda ref=ref, args=args: ref(*args), 5) if ref else float("nan")
            print(
                f"{name:10s} {dtype.__name__:8s} {times[0] * 1e3:11.2f} {times[1] * 1e3:11.2f} "
                f"{t_np * 1e3:9.2f}"
            )


def _straight_line_module() -> str:
    module = ir.Module("sincos_straight")
    f32 = ir.FloatType()

    def emit(b: ir.IRBuilder, vals: list) -> ir.Value:
        s = ir.Constant(f32, 0.0)
        for j in range(200):
            a = b.fadd(vals[0], ir.Constant(f32, float(j)))
            s = b.fadd(s, b.fadd(call_math(b, "sin", a), call_math(b, "cos", a)))
        return s

    H.add_elementwise(module, "f", [wps.float32], wps.float32, emit)
    return _with_width(str(module), "f", 512)


def _inner_loop_module() -> str:
    """``out[i] = sum_j sin(x[i] + j) + cos(x[i] + j)`` with the j loop kept as a loop."""
    module = ir.Module("sincos_loop")
    f32, i32, i64 = ir.FloatType(), ir.IntType(32), ir.IntType(64)
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.PointerType()] * 2 + [i64]), "f")
    for a in fn.args[:2]:
        a.add_attribute("noalias")
    out, inp, n = fn.args
    entry, outer, inner, latch, done = (
        fn.append_basic_block(s) for s in ("entry", "outer", "inner", "latch", "done")
    )
    b = ir.IRBuilder(entry)
    b.cbranch(b.icmp_signed(">", n, ir.Constant(i64, 0)), outer, done)
    b.position_at_end(outer)
    i = b.phi(i64)
    i.add_incoming(ir.Constant(i64, 0), entry)
    x = b.load(b.gep(inp, [i], source_etype=f32), typ=f32)
    b.branch(inner)
    b.position_at_end(inner)
    j = b.phi(i32)
    j.add_incoming(ir.Constant(i32, 0), outer)
    s = b.phi(f32)
    s.add_incoming(ir.Constant(f32, 0.0), outer)
    a = b.fadd(x, b.sitofp(j, f32))
    s_next = b.fadd(s, b.fadd(call_math(b, "sin", a), call_math(b, "cos", a)))
    j_next = b.add(j, ir.Constant(i32, 1))
    j.add_incoming(j_next, inner)
    s.add_incoming(s_next, inner)
    b.cbranch(b.icmp_signed("<", j_next, ir.Constant(i32, 200)), inner, latch)
    b.position_at_end(latch)
    b.store(s_next, b.gep(out, [i], source_etype=f32))
    i_next = b.add(i, ir.Constant(i64, 1))
    i.add_incoming(i_next, latch)
    b.cbranch(b.icmp_signed("<", i_next, n), outer, done)
    b.position_at_end(done)
    b.ret_void()
    text = str(module)
    latch_branch = 'label %"outer", label %"done"'
    k = text.rfind(latch_branch)
    text = text[: k + len(latch_branch)] + ", !llvm.loop !90" + text[k + len(latch_branch) :]
    text += (
        '\n!90 = distinct !{!90, !91, !92}\n!91 = !{!"llvm.loop.vectorize.enable", i1 true}\n'
        '!92 = !{!"llvm.loop.vectorize.width", i32 16}\n'
    )
    return text


def bench_sincos() -> None:
    x = np.random.default_rng(0).uniform(-10, 10, N).astype(np.float32)
    ref = sum(np.sin(x.astype(np.float64) + j) + np.cos(x.astype(np.float64) + j) for j in range(200))
    H._init()
    llvm.set_option("", "-enable-vplan-native-path")
    for label, text in (("straight-line", _straight_line_module()), ("inner loop", _inner_loop_module())):
        jm = H.JitModule(text)
        widths = sorted({int(w) for w in re.findall(r"<(\d+) x float>", jm.ir)})
        f = jm.elementwise("f", [wps.float32], wps.float32)
        out = np.empty_like(x)
        t = H.timed(lambda f=f, out=out: f(x, out=out), 3)
        err = np.abs(out - ref).max()
        print(f"200 sin+cos x 1M float32, {label:13s}: {t:.3f} s single thread, vector widths {widths}, "
              f"max abs error of the sum {err:.1e}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", action="store_true")
    parser.add_argument("--sincos", action="store_true")
    args = parser.parse_args()
    if args.functions or not args.sincos:
        bench_functions()
    if args.sincos or not args.functions:
        bench_sincos()


if __name__ == "__main__":
    main()
