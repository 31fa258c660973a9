"""Array slices in kernels on the CUDA target: the PTX of the forward and adjoint kernels must
assemble (checked offline with ptxas; no GPU needed)."""

from __future__ import annotations

from ptxas_util import cuda_compile, needs_ptxas, ptxas_check

import warp as wp


@wp.kernel
def slices(a: wp.array2d(dtype=float), start: int, stop: int, step: int, out: wp.array(dtype=float)):
    i = wp.tid()
    col = a[start:stop:step, 1]
    row = a[-1, ::-2]
    block = a[1:, :2]
    out[i] = col[i % col.shape[0]] + row[0] + block[0, 1] + float(block.ndim)


@needs_ptxas
def test_slice_kernels_assemble():
    for part in ("forward", "adjoint"):
        text, _ = cuda_compile(slices, part=part)
        ptxas_check(text)


@needs_ptxas
def test_slice_kernel_assembles_in_debug_mode():
    text, _ = cuda_compile(slices, debug=True)
    ptxas_check(text)
