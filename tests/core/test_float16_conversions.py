"""float16 conversions in kernels: bit-exact with NumPy, and no compiler-runtime helpers needed.

On x86 hosts without AVX512-FP16, LLVM turns ``double -> half`` into a call of libgcc's
``__truncdfhf2`` (and without F16C every half conversion into such calls), which a Python
process does not provide: the kernel failed to load there. Conversions are now computed inline.
"""

from __future__ import annotations

import re

import llvmlite.binding as llvm
import numpy as np
import pytest

import warp as wp
from warp.targets import target_for_kind

wp.config.quiet = True


@wp.kernel
def to_half(
    d: wp.array(dtype=wp.float64), f: wp.array(dtype=wp.float32), i: wp.array(dtype=wp.int32),
    l: wp.array(dtype=wp.int64), u: wp.array(dtype=wp.uint8),  # noqa: E741
    hd: wp.array(dtype=wp.float16), hf: wp.array(dtype=wp.float16), hi: wp.array(dtype=wp.float16),
    hl: wp.array(dtype=wp.float16), hu: wp.array(dtype=wp.float16),
):
    k = wp.tid()
    hd[k] = wp.float16(d[k])
    hf[k] = wp.float16(f[k])
    hi[k] = wp.float16(i[k])
    hl[k] = wp.float16(l[k])
    hu[k] = wp.float16(u[k])


@wp.kernel
def from_half(
    h: wp.array(dtype=wp.float16), f: wp.array(dtype=wp.float32), d: wp.array(dtype=wp.float64),
    i: wp.array(dtype=wp.int32),
):
    k = wp.tid()
    f[k] = wp.float32(h[k])
    d[k] = wp.float64(h[k])
    i[k] = wp.int32(h[k])


def _special_values() -> np.ndarray:
    """Ties, subnormals, the overflow boundary, signed zeros, infinities and NaN."""
    ulp_ties = [1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 2048.0 + 1.0, 2048.0 + 3.0]  # halfway cases
    sub = [2.0**-24, 2.0**-25, 3 * 2.0**-26, 2.0**-25 + 2.0**-40, 6.1e-5, 2.0**-14, 2.0**-14 - 2.0**-25]
    edge = [65504.0, 65519.99, 65520.0, 65536.0, 1e300, 1e-300, 0.0, -0.0, np.inf, -np.inf, np.nan]
    values = ulp_ties + sub + edge
    return np.array(values + [-v for v in values], dtype=np.float64)


def test_conversions_to_half_match_numpy_bit_for_bit():
    rng = np.random.default_rng(3)
    d = np.concatenate([
        _special_values(),
        rng.uniform(-70000, 70000, 4000),
        rng.uniform(-1e-4, 1e-4, 4000),
        rng.integers(0, 2**64, 4000, dtype=np.uint64).view(np.float64),
    ])
    random_bits = rng.integers(0, 2**32, len(d) - len(d) // 2, dtype=np.uint64).astype(np.uint32)
    with np.errstate(over="ignore", invalid="ignore"):
        f = np.concatenate([d.astype(np.float32)[: len(d) // 2], random_bits.view(np.float32)])
    i = rng.integers(-80000, 80000, len(d)).astype(np.int32)
    l = np.concatenate([rng.integers(-2**62, 2**62, 10), rng.integers(-70000, 70000, len(d) - 10)])  # noqa: E741
    u = rng.integers(0, 256, len(d)).astype(np.uint8)
    outs = [wp.zeros(len(d), dtype=wp.float16) for _ in range(5)]
    inputs = [wp.array(x) for x in (d, f, i, l, u)]
    wp.launch(to_half, dim=len(d), inputs=inputs + outs)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = [x.astype(np.float16) for x in (d, f, i, l, u)]
    for got, want, src in zip(outs, expected, "dfilu"):
        got = got.numpy()
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan), src
        bad = np.flatnonzero(got.view(np.uint16)[~nan] != want.view(np.uint16)[~nan])
        assert bad.size == 0, f"{src}: {got[~nan][bad[:5]]} != {want[~nan][bad[:5]]}"


def test_conversions_from_half_are_exact():
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    f, d, i = (wp.zeros(65536, dtype=t) for t in (wp.float32, wp.float64, wp.int32))
    wp.launch(from_half, dim=65536, inputs=[wp.array(h), f, d, i])
    finite = np.isfinite(h)
    assert np.array_equal(f.numpy(), h.astype(np.float32), equal_nan=True)
    assert np.array_equal(d.numpy(), h.astype(np.float64), equal_nan=True)
    assert np.array_equal(i.numpy()[finite], np.trunc(h[finite].astype(np.float64)).astype(np.int32))


def _assembly_for(kernel, cpu: str, features: str) -> str:
    from warp.compiler.frontend.translator import build_kernel
    from warp.compiler.lowering.kernel import lower_kernel
    from warp.compiler.options import compiling, resolve_options
    from warp.targets import get_target
    from warp.targets.cpu.jit import host_triple, optimize_ir

    options = resolve_options(kernel, target=target_for_kind("cpu"))
    with compiling(options):
        lowered = lower_kernel(build_kernel(kernel), options, get_target(wp.get_device("cpu")).define_entry)
    ir_text = optimize_ir(lowered.llvm_ir, name=kernel.key)
    tm = llvm.Target.from_triple(host_triple()).create_target_machine(cpu=cpu, features=features, opt=2)
    module = llvm.parse_assembly(ir_text)
    return tm.emit_assembly(module)


@pytest.mark.skipif(not llvm.get_process_triple().startswith("x86_64"), reason="x86 code generation check")
@pytest.mark.parametrize("cpu", ["x86-64", "haswell"])  # no F16C; F16C but no AVX512-FP16
def test_plain_x86_hosts_need_no_half_helpers(cpu):
    for kernel in (to_half, from_half):
        asm = _assembly_for(kernel, cpu, "")
        helpers = sorted(set(re.findall(r"__\w*hf\w*2\b", asm)))
        assert helpers == [], f"kernel '{kernel.key}' for {cpu} calls {helpers}"


def test_unused_conversions_do_not_confuse_the_rewrite():
    """Unused half conversions (dead code the optimizer removes later) are replaced too, and the
    module stays valid. The pass keys replaced instructions by id: one freed during the pass could
    lend its id to a helper defined after it, whose calls were then rewired to an unrelated value
    ('Not a function: float' printing the module). Whether that happens depends on the allocator,
    so this checks the outcome over many modules mixing dead and live conversions of every kind."""
    import llvmlite.ir as ir

    from warp.compiler.lowering.half import legalize_half_conversions

    f32, f64, half = ir.FloatType(), ir.DoubleType(), ir.HalfType()
    kinds = [
        lambda b, h, v: b.fpext(h, f64),
        lambda b, h, v: b.fptosi(h, ir.IntType(32)),
        lambda b, h, v: b.fptoui(h, ir.IntType(64)),
        lambda b, h, v: b.fptrunc(v, half),
        lambda b, h, v: b.sitofp(b.fptosi(v, ir.IntType(32)), half),
        lambda b, h, v: b.uitofp(b.fptoui(v, ir.IntType(16)), half),
        lambda b, h, v: b.fptrunc(b.fpext(v, f64), half),
        lambda b, h, v: b.fpext(h, f32),
    ]
    for _ in range(20):
        module = ir.Module(name="dead_halves")
        fn = ir.Function(module, ir.FunctionType(f32, [half, f32]), name="f")
        b = ir.IRBuilder(fn.append_basic_block())
        h, v = fn.args
        total = ir.Constant(f32, 0.0)
        for make in kinds:  # an unused conversion, then a used one, of each kind in turn
            make(b, h, v)
            used = make(b, h, v)
            total = b.fadd(total, b.fpext(used, f32) if used.type == half else
                           used if used.type == f32 else b.fptrunc(used, f32) if used.type == f64 else
                           b.uitofp(used, f32))
        b.ret(total)
        legalize_half_conversions(module)
        parsed = llvm.parse_assembly(str(module))
        parsed.verify()
        assert re.search(r"\b(fpext|fptrunc|sitofp|uitofp|fptosi|fptoui)\b[^\n]*\bhalf\b",
                         str(parsed.get_function("f"))) is None
