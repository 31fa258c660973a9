"""The stand-in CUDA driver of the tests (tests/cuda/fake_driver.py) for benchmarks of the Python
side of CUDA launches on a machine without a GPU.

:func:`install` makes ``cuda:0`` a stand-in device whose ``cuLaunchKernel`` does nothing and
returns success, so a launch loop times only this project's code (argument checks, packing,
stream and context lookups, the call into the driver wrapper). Kernels still compile to PTX and
load through the stand-in's ``cuModuleLoadDataEx``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

_TESTS_CUDA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "cuda")


def install() -> Any:
    """Route warp's CUDA driver calls to the stand-in, with a no-op ``cuLaunchKernel``; returns it."""
    sys.path.insert(0, _TESTS_CUDA)
    from fake_driver import OK, FakeDriver  # type: ignore[import-not-found]

    from warp.runtime import devices
    from warp.targets.cuda import driver

    fake = FakeDriver(device_count=1, resolve_entry=None, entry_params=None)

    def launch_nothing(*args: Any) -> tuple[Any]:
        return (OK,)

    fake.cuLaunchKernel = launch_nothing  # type: ignore[method-assign]
    driver._cu = fake
    driver._failure = None
    devices._cuda_count = 1
    devices._cuda_devices = [devices.Device("cuda:0", 0, "Stand-in GPU 0")]
    return fake
