"""sin(x) and cos(x) of one value become one libdevice sincos call on CUDA
(warp.targets.cuda.sincos_fusion): the IR rewrite, the PTX it gives, and (on a GPU) the values."""

from __future__ import annotations

import re

import llvmlite.binding as llvm
import numpy as np
import pytest

import warp as wp
from warp.compiler.frontend.translator import build_kernel
from warp.compiler.lowering.kernel import lower_kernel
from warp.compiler.options import compiling, resolve_options
from warp.targets.cuda import ptx as ptx_module
from warp.targets.cuda.sincos_fusion import fuse_sincos
from warp.targets.cuda.target import CudaTarget

from ptxas_util import cuda_compile, needs_ptxas, ptxas_check

pytestmark = pytest.mark.needs_plugin("builtins")

_MODULE = """
declare float @"__nv_sinf"(float %".1")
declare float @"__nv_cosf"(float %".1")
declare double @"__nv_sin"(double %".1")
declare double @"__nv_cos"(double %".1")

define float @"f"(float %"x", float %"y", double %"d", i1 %"c") {
entry:
  %"a" = call float @"__nv_sinf"(float %"x")
  %"b" = call float @"__nv_cosf"(float %"y")
  %"e" = call float @"__nv_cosf"(float %"x")
  %"s" = fadd float %"a", %"b"
  %"t" = fadd float %"s", %"e"
  %"dc" = call double @"__nv_cos"(double %"d")
  %"ds" = call double @"__nv_sin"(double %"d")
  %"dt" = fadd double %"dc", %"ds"
  %"df" = fptrunc double %"dt" to float
  %"u" = fadd float %"t", %"df"
  br i1 %"c", label %"other", label %"done"
other:
  %"g" = call float @"__nv_siny"(float %"y")
  %"h" = call float @"__nv_sinf"(float %"y")
  br label %"done"
done:
  %"r" = phi float [%"u", %"entry"], [%"h", %"other"]
  ret float %"r"
}
declare float @"__nv_siny"(float)
"""


def _calls(text: str, name: str) -> int:
    return sum(1 for line in text.splitlines() if f'@"{name}"(' in line and "call" in line)


def test_pairs_in_one_block_become_one_call() -> None:
    out = fuse_sincos(_MODULE)
    module = llvm.parse_assembly(out)
    module.verify()
    # x: sin and cos fused; y: cos in entry and sin in another block stay separate; d: fused
    assert _calls(out, "__wp_sincosf") == 1 and _calls(out, "__wp_sincos") == 1
    assert _calls(out, "__nv_cosf") == 1 and _calls(out, "__nv_sinf") == 1
    assert _calls(out, "__nv_cos") == 0 and _calls(out, "__nv_sin") == 0
    assert '%"a" = extractvalue {float, float} %"wp.sincos.0", 0' in out
    assert '%"e" = extractvalue {float, float} %"wp.sincos.0", 1' in out
    assert '%"dc" = extractvalue {double, double} %"wp.sincos.1", 1' in out
    assert '%"ds" = extractvalue {double, double} %"wp.sincos.1", 0' in out


def test_nothing_to_fuse_leaves_the_text_unchanged() -> None:
    only_sin = _MODULE.replace("__nv_cos", "__nv_tan")
    assert fuse_sincos(only_sin) == only_sin


def test_an_existing_sincos_declaration_is_not_repeated() -> None:
    text = _MODULE + 'declare void @"__nv_sincosf"(float, ptr, ptr)\n'
    out = fuse_sincos(text)
    llvm.parse_assembly(out).verify()
    assert out.count('declare void @"__nv_sincosf"') == 1


@wp.kernel
def sin_plus_cos(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    s = float(0.0)
    for _k in range(8):
        s = s + wp.sin(v) * 2.0 + wp.cos(v)
        v = v + 0.25
    out[i] = s


@needs_ptxas
def test_kernel_ptx_calls_the_reduction_once() -> None:
    ptx, _ = cuda_compile(sin_plus_cos)
    ptxas_check(ptx)
    saved = ptx_module.fuse_sincos
    ptx_module.fuse_sincos = lambda text: text
    try:
        separate = ptx_module.compile_ptx(
            _kernel_ir(sin_plus_cos), kernels=_entries(_kernel_ir(sin_plus_cos)), name="separate"
        )
    finally:
        ptx_module.fuse_sincos = saved
    # libdevice's Payne-Hanek reduction (multiply-add chains over the 2/pi table) comes once per
    # sin/cos pair instead of once per call: half as many in the 8 unrolled iterations
    assert 0 < 2 * ptx.count("madc.hi.u32") <= separate.count("madc.hi.u32")
    assert len(ptx.splitlines()) < len(separate.splitlines())


def _kernel_ir(kernel) -> str:
    target = CudaTarget()
    options = resolve_options(kernel, target=target)
    with compiling(options):
        lowered = lower_kernel(
            build_kernel(kernel), options, target.define_entry, contiguous_entry=target.contiguous_entry
        )
    return lowered.llvm_ir


def _entries(text: str) -> list[str]:
    return re.findall(r'define ptx_kernel void @"([^"]+)"', text)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_on_the_gpu(real_device, dtype) -> None:
    if not real_device.is_cuda:
        pytest.skip("needs a CUDA device (libdevice runs on the GPU only)")
    wtype = wp.float32 if dtype == np.float32 else wp.float64

    @wp.kernel(module="unique")
    def both(x: wp.array(dtype=wtype), s: wp.array(dtype=wtype), c: wp.array(dtype=wtype)):
        i = wp.tid()
        v = x[i]
        s[i] = wp.sin(v)
        c[i] = wp.cos(v)

    xs = np.concatenate([np.linspace(-10, 10, 1000), [1e4, -3e5, 1e7, 0.0, np.pi / 2]]).astype(dtype)
    x = wp.array(xs, dtype=wtype, device=real_device)
    s = wp.empty_like(x)
    c = wp.empty_like(x)
    wp.launch(both, len(xs), inputs=[x, s, c], device=real_device)
    tol = 4e-7 if dtype == np.float32 else 1e-15
    np.testing.assert_allclose(s.numpy(), np.sin(xs.astype(np.float64)), atol=tol * 4, rtol=tol)
    np.testing.assert_allclose(c.numpy(), np.cos(xs.astype(np.float64)), atol=tol * 4, rtol=tol)
