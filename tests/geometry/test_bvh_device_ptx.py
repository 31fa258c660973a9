"""The kernels of the device BVH builder, the kernel refit and the mesh/winding kernels compile
to PTX that ``ptxas`` accepts for sm_90 (checked offline, no GPU needed). The builder's sort and
scans (``warp_builtins.device_sort``): tests/builtins/test_device_utils_ptx.py."""

from __future__ import annotations

import pytest

from ptxas_util import assert_ptx_assembles, module_kernels, needs_ptxas
from warp_geometry import bvh_device_build, bvh_refit, mesh_device, winding_device

MODULES = (bvh_device_build, bvh_refit, mesh_device, winding_device)
KERNELS = module_kernels(*MODULES)


def test_every_builder_module_has_kernels():
    assert {m for m, _, _ in KERNELS} == {m.__name__.rsplit(".", 1)[1] for m in MODULES}
    assert len(KERNELS) >= 20


@needs_ptxas
@pytest.mark.parametrize("module,name,kernel", KERNELS, ids=[f"{m}.{n}" for m, n, _ in KERNELS])
def test_kernel_ptx_assembles(module, name, kernel):
    assert_ptx_assembles(kernel)
