"""``i = wp.tid()`` in a multi-dimensional CUDA launch is the first coordinate, as on the CPU.

The CUDA entry runs on the host under the grid emulator for the recorded launch arguments.
"""

from __future__ import annotations

import numpy as np
import pytest
from grid_emulator import emulate_grid
from ptxas_util import cuda_compile, needs_ptxas, ptxas_check

import warp as wp


@wp.kernel
def count_first_cuda(counts: wp.array(dtype=wp.int32)):
    i = wp.tid()
    wp.atomic_add(counts, i, 1)


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2), (3, 2, 2, 5), (37,)])
def test_single_tid_is_the_first_coordinate_on_cuda(fake_cuda, shape) -> None:
    counts = wp.zeros(int(np.prod(shape)), dtype=wp.int32, device="cuda:0")  # room for linear indices too
    wp.launch(count_first_cuda, dim=shape, inputs=[counts], device="cuda:0", block_dim=32)
    launch = fake_cuda.launches[-1]
    counts.zero_()
    with fake_cuda.arena.opened():  # the emulated grid plays the device
        emulate_grid(count_first_cuda, launch["args"], launch["grid"], launch["block"])
    expected = np.zeros(int(np.prod(shape)), np.int32)
    expected[: shape[0]] = np.prod(shape[1:])
    np.testing.assert_array_equal(counts.numpy(), expected)


@needs_ptxas
def test_single_tid_kernel_ptx_is_valid() -> None:
    text, _ = cuda_compile(count_first_cuda)
    ptxas_check(text)
