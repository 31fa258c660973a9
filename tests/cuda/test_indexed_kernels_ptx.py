"""The kernels of ``warp.indexed_kernels`` (indexed-array gathers and scatters on CUDA devices)
compile to PTX that ``ptxas`` accepts for sm_90, for each dimension count and for the word types
``wp.indexedarray`` moves elements as (checked offline, no GPU needed)."""

from __future__ import annotations

import pytest

import warp as wp
from ptxas_util import assert_ptx_assembles, needs_ptxas
from warp import indexed_kernels

#: element word types: scalars of each size, and vectors of words (a transform: 7 x uint32)
WORDS = [
    wp.uint8,
    wp.uint16,
    wp.uint32,
    wp.uint64,
    wp.types.vector(7, wp.uint32),
    wp.types.vector(3, wp.uint16),
]
INDEX = wp.array(dtype=wp.int32)


def _fill(ndim: int, word) -> wp.Kernel:
    data = wp.array(dtype=word, ndim=ndim)
    return wp.overload(indexed_kernels.FILL_KERNELS[ndim], [data, *[INDEX] * ndim, int, word])


def _copy(ndim: int, word) -> wp.Kernel:
    data = wp.array(dtype=word, ndim=ndim)
    side = [data, *[INDEX] * ndim, int]
    return wp.overload(indexed_kernels.COPY_KERNELS[ndim], side + side)


CASES = [(kind, ndim, word) for kind in ("fill", "copy") for ndim in (1, 2, 3, 4) for word in WORDS]


def test_a_kernel_per_dimension_count():
    assert sorted(indexed_kernels.FILL_KERNELS) == sorted(indexed_kernels.COPY_KERNELS) == [1, 2, 3, 4]


@needs_ptxas
@pytest.mark.parametrize("kind,ndim,word", CASES, ids=[f"{k}{n}d-{w.__name__}" for k, n, w in CASES])
def test_kernel_ptx_assembles(kind, ndim, word):
    kernel = (_fill if kind == "fill" else _copy)(ndim, word)
    assert_ptx_assembles(kernel)
