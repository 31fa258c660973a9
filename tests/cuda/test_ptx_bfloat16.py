"""bfloat16 kernels for the CUDA target: the PTX assembles with ptxas (no GPU needed).

bfloat16 values are float32 registers and 16-bit memory; conversions are integer arithmetic and
atomics are 16-bit compare-and-swap loops, so no bf16 instruction (sm_80+) is required.
"""

from __future__ import annotations

import re

import pytest
import warp as wp
from ptxas_util import cuda_compile, needs_ptxas, ptxas_check

vec3bf = wp.types.vector(length=3, dtype=wp.bfloat16)
mat22bf = wp.types.matrix(shape=(2, 2), dtype=wp.bfloat16)


@wp.kernel(module="ptx_bfloat16")
def bf16_kernel(
    a: wp.array(dtype=wp.bfloat16),
    v: wp.array(dtype=vec3bf),
    m: wp.array(dtype=mat22bf),
    d: wp.array(dtype=wp.float64),
    s: wp.bfloat16,
):
    i = wp.tid()
    x = a[i] * s + wp.sin(a[i]) / wp.sqrt(s)
    a[i] = x
    if x < s:
        a[i] = wp.bfloat16(d[i]) + wp.bfloat16(i)
    d[i] = wp.float64(x) + wp.float64(wp.int32(x))
    v[i] = v[i] * x + vec3bf(s, s, s)
    m[i] = m[i] * m[i]
    wp.atomic_add(a, 0, x)
    wp.atomic_sub(a, 1, x)
    wp.atomic_min(a, 2, x)
    wp.atomic_max(a, 3, x)
    wp.atomic_exch(a, 4, x)
    wp.atomic_cas(a, 5, x, s)
    wp.atomic_add(v, 0, vec3bf(x, x, x))


@needs_ptxas
@pytest.mark.parametrize("target", [None, (75, 78), (90, 78)], ids=["default", "sm75", "sm90"])
def test_bfloat16_kernel_ptx_assembles(target) -> None:
    text, _ = cuda_compile(bf16_kernel, target=target)
    assert re.search(r"atom\.[\w.]*cas\.b(16|32)", text), "bfloat16 atomics are compare-and-swap loops"
    assert ".bf16" not in text  # no bf16 instructions: conversions are integer arithmetic
    ptxas_check(text, arch=target[0] if target else 90)


@needs_ptxas
def test_bfloat16_adjoint_ptx_assembles() -> None:
    text, _ = cuda_compile(bf16_kernel, part="adjoint")
    ptxas_check(text)
