"""The kernels of ``warp_builtins.device_sort`` and ``warp_builtins.device_utils`` (``wp.utils`` on
CUDA devices) compile to PTX that ``ptxas`` accepts for sm_90 (checked offline, no GPU needed)."""

from __future__ import annotations

import pytest

from ptxas_util import cuda_compile, module_kernels, needs_ptxas, ptxas_check
from warp_builtins import device_sort, device_utils

MODULES = (device_sort, device_utils)
KERNELS = module_kernels(*MODULES)


def test_every_module_has_kernels():
    assert {m for m, _, _ in KERNELS} == {m.__name__.rsplit(".", 1)[1] for m in MODULES}
    assert len(KERNELS) >= 20


@needs_ptxas
@pytest.mark.parametrize("module,name,kernel", KERNELS, ids=[f"{m}.{n}" for m, n, _ in KERNELS])
def test_kernel_ptx_assembles(module, name, kernel):
    ptx, _ = cuda_compile(kernel)
    assert ".entry" in ptx
    ptxas_check(ptx)
