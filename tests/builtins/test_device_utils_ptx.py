"""The kernels of ``warp_builtins.device_sort``, ``device_utils`` and ``device_segmented`` (``wp.utils``
on CUDA devices) and the overloads of ``device_cast``'s generic kernels compile to PTX that
``ptxas`` accepts for sm_90 (checked offline, no GPU needed)."""

from __future__ import annotations

import pytest

import warp as wp
from ptxas_util import assert_ptx_assembles, module_kernels, needs_ptxas
from warp_builtins import device_cast, device_segmented, device_sort, device_utils

MODULES = (device_sort, device_utils, device_segmented)
KERNELS = module_kernels(*MODULES)

SCALARS = (wp.bool, *wp.types.scalar_types)
#: every scalar type to and from float32, and the 16-bit floats with the wide types
CAST_PAIRS = sorted(
    {(t, wp.float32) for t in SCALARS}
    | {(wp.float32, t) for t in SCALARS}
    | {(wp.float64, wp.bfloat16), (wp.uint64, wp.float16), (wp.bfloat16, wp.float16), (wp.float16, wp.int8)},
    key=lambda pair: (SCALARS.index(pair[0]), SCALARS.index(pair[1])),
)
STRIDED_PAIRS = [
    (wp.float64, wp.int32),
    (wp.bool, wp.bfloat16),
    (wp.uint8, wp.float16),
    (wp.float32, wp.float64),
]


def test_every_module_has_kernels():
    assert {m for m, _, _ in KERNELS} == {m.__name__.rsplit(".", 1)[1] for m in MODULES}
    assert len(KERNELS) >= 25


@needs_ptxas
@pytest.mark.parametrize("module,name,kernel", KERNELS, ids=[f"{m}.{n}" for m, n, _ in KERNELS])
def test_kernel_ptx_assembles(module, name, kernel):
    assert_ptx_assembles(kernel)


def _cases():
    for src, dst in CAST_PAIRS:
        yield pytest.param(device_cast._cast_flat, 1, src, dst, id=f"flat-{src.__name__}-{dst.__name__}")
    for src, dst in STRIDED_PAIRS:
        yield pytest.param(
            device_cast._cast_strided, 4, src, dst, id=f"strided-{src.__name__}-{dst.__name__}"
        )


@needs_ptxas
@pytest.mark.parametrize("kernel,ndim,src,dst", list(_cases()))
def test_cast_overload_ptx_assembles(kernel, ndim, src, dst):
    overload = wp.overload(kernel, [wp.array(dtype=src, ndim=ndim), wp.array(dtype=dst, ndim=ndim)])
    assert_ptx_assembles(overload)
