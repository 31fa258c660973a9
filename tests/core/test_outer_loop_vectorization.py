"""Outer-loop vectorization of kernels with dynamic loops must never abort the process.

LLVM's VPlan native path (used when the thread loop around an inner loop is marked for
vectorization) aborts on instructions it cannot widen, such as atomics anywhere in the kernel.
These tests generate kernels combining dynamic loops, branches and every atomic operation at
every position, and compile and launch them in child processes, so that an abort shows up as a
failing test naming the kernel instead of killing pytest. Kernels whose results the
vectorization could change are also checked against NumPy.
"""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
import textwrap

import llvmlite.ir as ll
import pytest

from warp.compiler.lowering.outer_loops import outer_loop_blockers

PARAMS = ("x: wp.array(dtype=float), f: wp.array(dtype=float), iv: wp.array(dtype=wp.int32), "
          "v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat33), n: int")

#: (name, statement) of one atomic update; ``{use}`` marks where its old value is consumed
ATOMICS = {
    "f_add": "wp.atomic_add(f, i % 4, x[i] + s)",
    "f_sub": "wp.atomic_sub(f, i % 4, x[i] + s)",
    "f_min": "wp.atomic_min(f, i % 4, x[i] + s)",
    "f_max": "wp.atomic_max(f, i % 4, x[i] + s)",
    "f_exch": "wp.atomic_exch(f, i % 4, x[i] + s)",
    "f_cas": "wp.atomic_cas(f, i % 4, s, x[i])",
    "i_add": "wp.atomic_add(iv, i % 4, t + i)",
    "i_sub": "wp.atomic_sub(iv, i % 4, t + i)",
    "i_min": "wp.atomic_min(iv, i % 4, t + i)",
    "i_max": "wp.atomic_max(iv, i % 4, t + i)",
    "i_and": "wp.atomic_and(iv, i % 4, t + i)",
    "i_or": "wp.atomic_or(iv, i % 4, t + i)",
    "i_xor": "wp.atomic_xor(iv, i % 4, t + i)",
    "i_exch": "wp.atomic_exch(iv, i % 4, t + i)",
    "i_cas": "wp.atomic_cas(iv, i % 4, t, i)",
}
SCALAR_OF = {"f": "s", "i": "t", "v": "w"}

#: loop forms: (header lines, footer lines inside the body, nested?)
LOOPS = {
    "for": (["for j in range(n):"], []),
    "while": (["j = int(0)", "while j < n:"], ["j = j + 1"]),
    "divergent_trip": (["for j in range(i % 3 + 1):"], []),
    "nested": (["for j in range(n):", "    for k in range(2):"], []),
    "uniform_branch": (["for j in range(n):", "    if n > 1:"], []),
}
POSITIONS = ("before", "inside", "branch", "after", "nested")


def atomic_statement(op: str, use: bool) -> str:
    call = ATOMICS[op]
    target = SCALAR_OF[op[0]]
    return f"{target} = {target} + {call}" if use else call


def kernel_source(name: str, loop: str, placements: list[tuple[str, str, bool]]) -> str:
    """A kernel with one dynamic loop of form ``loop`` and atomics at the given positions."""
    header, footer = LOOPS[loop]
    depth = len(header) - (1 if loop == "while" else 0)
    pad = "    " * depth
    at = {p: [atomic_statement(op, use) for op, pos, use in placements if pos == p] for p in POSITIONS}
    lines = ["i = wp.tid()", "s = float(0.0)", "t = int(0)", "w = wp.vec3(0.0, 0.0, 0.0)"]
    lines += at["before"]
    lines += header
    lines += [pad + "s = s + x[i] * float(j)", pad + "t = t + j", pad + "w = w + v[i] * float(j)"]
    lines += [pad + stmt for stmt in at["inside"]]
    if at["branch"]:
        lines += [pad + "if x[i] > 0.5:"] + [pad + "    " + stmt for stmt in at["branch"]]
    if at["nested"]:
        lines += [pad + "for q in range(n):"] + [pad + "    " + stmt for stmt in at["nested"]]
    lines += ["    " + stmt for stmt in footer]
    lines += at["after"]
    lines += ["f[i] = s + w[0] + w[1] + float(t)"]
    body = textwrap.indent("\n".join(lines), "    ")
    return f"@wp.kernel\ndef {name}({PARAMS}):\n{body}\n"


def generated_kernels() -> dict[str, str]:
    """Every atomic at every position (loop forms rotating), plus random multi-atomic mixes."""
    out: dict[str, str] = {}
    loops = itertools.cycle(LOOPS)
    for k, (op, pos) in enumerate(itertools.product(ATOMICS, POSITIONS)):
        name = f"k_{op}_{pos}"
        out[name] = kernel_source(name, next(loops), [(op, pos, k % 2 == 0)])
    rng = random.Random(1234)
    for k in range(30):
        count = rng.randint(2, 4)
        picks = [(rng.choice(list(ATOMICS)), rng.choice(POSITIONS), rng.random() < 0.5) for _ in range(count)]
        name = f"k_mix_{k}"
        out[name] = kernel_source(name, rng.choice(list(LOOPS)), picks)
    return out


CHILD = r"""
import sys, importlib.util
import numpy as np
import warp as wp
wp.config.quiet = True
wp.set_device("cpu")  # the CPU's vectorized loops (cuda:0 is the default on a GPU host)
spec = importlib.util.spec_from_file_location("outer_loop_kernels", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
N = 32
x = wp.array(np.linspace(0.0, 1.0, N, dtype=np.float32))
f = wp.zeros(N)
iv = wp.zeros(N, dtype=wp.int32)
v = wp.array(np.ones((N, 3), dtype=np.float32), dtype=wp.vec3)
m = wp.zeros(N, dtype=wp.mat33)
for name in sys.argv[2:]:
    print("BEGIN", name, flush=True)
    f.zero_()
    iv.zero_()
    wp.launch(getattr(mod, name), dim=N, inputs=[x, f, iv, v, m, 3])
    wp.synchronize()
    print("OK", name, flush=True)
"""


def run_kernels(tmp_path, sources: dict[str, str], chunk: int = 40) -> None:
    """Compile and launch every kernel in child processes; fail naming the kernel that killed one."""
    module = tmp_path / "outer_loop_kernels.py"
    module.write_text("import warp as wp\n\n\n" + "\n\n".join(sources.values()))
    child = tmp_path / "child.py"
    child.write_text(CHILD)
    env = dict(os.environ, WARP_CACHE_PATH=str(tmp_path / "cache"))
    names = list(sources)
    for start in range(0, len(names), chunk):
        batch = names[start:start + chunk]
        proc = subprocess.run([sys.executable, str(child), str(module), *batch], capture_output=True,
                              text=True, env=env, timeout=600)
        if proc.returncode != 0:
            begun = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("BEGIN")]
            culprit = begun[-1] if begun else "?"
            how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit status {proc.returncode}"
            pytest.fail(f"kernel '{culprit}' ended the process with {how}:\n{sources.get(culprit, '')}\n"
                        f"stderr:\n{proc.stderr[-3000:]}")


@pytest.mark.needs_plugin("builtins")
@pytest.mark.slow
def test_generated_kernels_with_loops_and_atomics_never_abort(tmp_path):
    run_kernels(tmp_path, generated_kernels())


# -- other shapes the native path cannot widen ---------------------------------------------------

def _shape(name: str, body: str) -> str:
    return f"@wp.kernel\ndef {name}({PARAMS}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


OTHER_SHAPES = {
    "dynamic_component_index": _shape("dynamic_component_index", """
        i = wp.tid()
        a = wp.vec3(x[i], 2.0 * x[i], 3.0 * x[i])
        s = float(0.0)
        for j in range(n):
            s = s + a[j % 3]
        f[i] = s
    """),
    "matrix_rows_in_loop": _shape("matrix_rows_in_loop", """
        i = wp.tid()
        s = float(0.0)
        for j in range(n):
            a = m[(i + j) % 4]
            s = s + a[0, 0] + a[1, 1] + wp.determinant(a)
        f[i] = s
    """),
    "vector_select_in_loop": _shape("vector_select_in_loop", """
        i = wp.tid()
        w = wp.vec3(0.0, 0.0, 0.0)
        for j in range(n):
            w = wp.where(x[i] > 0.5, w + wp.vec3(1.0, 2.0, 3.0), w - wp.vec3(1.0, 0.0, 0.0))
        f[i] = w[0] + w[1] + w[2]
    """),
    "vector_store_in_loop": _shape("vector_store_in_loop", """
        i = wp.tid()
        for j in range(n):
            v[i] = v[i] * 0.5 + wp.vec3(x[i], float(j), 1.0)
    """),
}


@pytest.mark.needs_plugin("builtins")
def test_other_kernel_shapes_never_abort(tmp_path):
    run_kernels(tmp_path, OTHER_SHAPES)


# -- the instruction-level decision --------------------------------------------------------------

def _function(build) -> ll.Function:
    module = ll.Module()
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [ll.PointerType()]), name="body")
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    build(b, fn.args[0])
    b.ret_void()
    return fn


def test_blockers_name_atomics_and_dynamic_slots():
    f32 = ll.FloatType()

    def atomic(b, p):
        b.atomic_rmw("fadd", p, ll.Constant(f32, 1.0), "monotonic")

    def scalar(b, p):
        b.store(b.fadd(b.load(p, typ=f32), ll.Constant(f32, 1.0)), p)

    def dynamic_slot(b, p):
        slot = b.alloca(ll.ArrayType(f32, 3))
        idx = b.load(p, typ=ll.IntType(64))
        b.load(b.gep(slot, [ll.Constant(ll.IntType(64), 0), idx], source_etype=ll.ArrayType(f32, 3)), typ=f32)

    def struct_load(b, p):
        b.load(p, typ=ll.LiteralStructType([f32, ll.IntType(8)]))

    def array_load(b, p):
        b.load(p, typ=ll.ArrayType(ll.ArrayType(f32, 3), 3))

    def assume(b, p):
        fn = b.module.declare_intrinsic("llvm.assume", fnty=ll.FunctionType(ll.VoidType(), [ll.IntType(1)]))
        b.call(fn, [ll.Constant(ll.IntType(1), 1)])

    def fma(b, p):
        x = b.load(p, typ=f32)
        b.call(b.module.declare_intrinsic("llvm.fma", [f32]), [x, x, x])

    assert any("atomicrmw" in r for r in outer_loop_blockers(_function(atomic)))
    assert outer_loop_blockers(_function(scalar)) == []
    assert any("indexed dynamically" in r for r in outer_loop_blockers(_function(dynamic_slot)))
    assert any("aggregate type" in r for r in outer_loop_blockers(_function(struct_load)))
    assert outer_loop_blockers(_function(array_load)) == []
    assert any("llvm.assume" in r for r in outer_loop_blockers(_function(assume)))
    assert outer_loop_blockers(_function(fma)) == []


@pytest.mark.needs_plugin("builtins")
def test_benchmark_kernels_keep_the_hint():
    """bench_sincos / bench_nbody kernels are the reason the hint exists: they must keep it."""
    import warp as wp
    from warp.compiler.frontend.translator import build_kernel
    from warp.compiler.lowering.kernel import lower_kernel
    from warp.compiler.options import CompileOptions
    from warp.targets import target_for_kind

    def llvm_ir(kernel) -> str:
        cpu = target_for_kind("cpu")
        return lower_kernel(build_kernel(kernel), CompileOptions(target=cpu), cpu.define_entry).llvm_ir

    @wp.kernel
    def sincos_like(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        x = a[i]
        s = 0.0
        for k in range(200):
            s += wp.sin(x + float(k) * 0.001) + wp.cos(x - float(k) * 0.002)
        out[i] = s

    @wp.kernel
    def nbody_like(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        p = pos[i]
        a = wp.vec3(0.0, 0.0, 0.0)
        for j in range(pos.shape[0]):
            d = pos[j] - p
            inv_r = 1.0 / wp.sqrt(wp.dot(d, d) + 0.0001)
            a += d * (mass[j] * inv_r * inv_r * inv_r)
        acc[i] = a

    @wp.kernel
    def reduce_after_loop(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
        i = wp.tid()
        s = 0.0
        for _j in range(n):
            s = s + x[i]
        wp.atomic_add(out, 0, s)

    assert "llvm.loop.vectorize.enable" in llvm_ir(sincos_like)
    assert "llvm.loop.vectorize.enable" in llvm_ir(nbody_like)
    assert "llvm.loop.vectorize.enable" not in llvm_ir(reduce_after_loop)


VALUES_CHILD = r'''
import sys, importlib.util
import numpy as np
import warp as wp
wp.config.quiet = True
wp.set_device("cpu")  # the CPU's vectorized loops (cuda:0 is the default on a GPU host)
spec = importlib.util.spec_from_file_location("outer_loop_kernels", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
N, n = 37, 5
xs = np.linspace(0.0, 1.0, N).astype(np.float32)
ms = np.arange(N * 9, dtype=np.float32).reshape(N, 3, 3) % 7.0
vs = np.arange(N * 3, dtype=np.float32).reshape(N, 3)


def run(name):
    x, f = wp.array(xs), wp.zeros(N)
    iv, v, m = wp.zeros(N, dtype=wp.int32), wp.array(vs, dtype=wp.vec3), wp.array(ms, dtype=wp.mat33)
    wp.launch(getattr(mod, name), dim=N, inputs=[x, f, iv, v, m, n])
    return f.numpy(), v.numpy()


f, _ = run("dynamic_component_index")
np.testing.assert_allclose(f, sum(xs * (j % 3 + 1) for j in range(n)), rtol=1e-6)
f, _ = run("matrix_rows_in_loop")
ref = [sum(ms[(i + j) % 4][0, 0] + ms[(i + j) % 4][1, 1] + np.linalg.det(ms[(i + j) % 4].astype(np.float64))
           for j in range(n)) for i in range(N)]
np.testing.assert_allclose(f, ref, rtol=1e-5, atol=1e-3)
f, _ = run("vector_select_in_loop")
np.testing.assert_allclose(f, np.where(xs > 0.5, 6.0 * n, -1.0 * n), rtol=1e-6)
_, v = run("vector_store_in_loop")
ref = vs.astype(np.float64).copy()
for j in range(n):
    ref = ref * 0.5 + np.stack([xs, np.full(N, float(j)), np.ones(N)], axis=1)
np.testing.assert_allclose(v, ref, rtol=1e-6)
print("VALUES OK")
'''


@pytest.mark.needs_plugin("builtins")
def test_outer_vectorized_shapes_compute_numpy_results(tmp_path):
    """The kernel shapes above (some vectorized as outer loops) give NumPy's results (in a child
    process: a regression must not abort pytest)."""
    module = tmp_path / "outer_loop_kernels.py"
    module.write_text("import warp as wp\n\n\n" + "\n\n".join(OTHER_SHAPES.values()))
    child = tmp_path / "values.py"
    child.write_text(VALUES_CHILD)
    env = dict(os.environ, WARP_CACHE_PATH=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, str(child), str(module)], capture_output=True, text=True, env=env,
                          timeout=600)
    assert proc.returncode == 0 and "VALUES OK" in proc.stdout, proc.stderr[-3000:]
