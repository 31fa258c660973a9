"""Kernel-local arrays, views over addresses and ``wp.cast`` on the CUDA target: the PTX they
produce must assemble (checked offline with ptxas; no GPU needed)."""

from __future__ import annotations

import re

from ptxas_util import cuda_compile, needs_ptxas, ptxas_check

import warp as wp


@wp.kernel
def local_and_views(src: wp.array(dtype=float), n: int, out: wp.array(dtype=wp.uint32)):
    t = wp.tid()
    h = wp.zeros(16, dtype=int)
    for i in range(n):
        h[(t + i) % 16] += 1
    view = wp.array(ptr=src.ptr, shape=(n,), dtype=float)
    x = view[t % n]
    out[t] = wp.cast(x, wp.uint32) + wp.uint32(h[t % 16])


@needs_ptxas
def test_local_array_view_and_cast_assemble():
    text, meta = cuda_compile(local_and_views)
    ptxas_check(text)
    depots = [int(size) for size in re.findall(r"__local_depot\d+\[(\d+)\]", text)]
    assert depots and max(depots) >= 16 * 4, depots  # the local array is in local memory
