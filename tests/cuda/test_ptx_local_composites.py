"""Locals indexed at runtime indices on the CUDA target: one local-memory slot per variable."""

from __future__ import annotations

import re

from ptxas_util import cuda_compile, needs_ptxas, ptxas_check

import warp as wp

stack16 = wp.types.vector(length=16, dtype=wp.int32)


@wp.kernel
def traverse(
    lo: wp.array(dtype=int), hi: wp.array(dtype=int), q: wp.array(dtype=int), out: wp.array(dtype=int)
):
    i = wp.tid()
    stack = stack16()
    stack[0] = 1
    sp = int(1)
    found = int(0)
    while sp > 0:
        sp -= 1
        node = stack[sp]
        if lo[node] <= q[i] and hi[node] >= q[i]:
            if node >= 32:
                found += 1
            else:
                stack[sp] = 2 * node + 1
                stack[sp + 1] = 2 * node
                sp += 2
    out[i] = found


@needs_ptxas
def test_stack_uses_one_local_slot():
    text, meta = cuda_compile(traverse)
    ptxas_check(text)
    depots = re.findall(r"__local_depot\d+\[(\d+)\]", text)
    assert depots and all(int(size) == 16 * 4 for size in depots), depots  # no copies of the stack
    assert len(meta["entries"]) >= 1
