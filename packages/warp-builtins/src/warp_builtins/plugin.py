"""The warp plugin of warp-builtins (entry point ``builtins`` in the ``warp`` group)."""

from __future__ import annotations

from typing import Any

from warp.extending import hookimpl, BuiltinRegistry, DeviceArrayUtils
from warp_builtins.mathlib import trig_lanes
from warp_builtins import (
    checks,
    device_utils,
    noise,
    noise_derivatives,  # noqa: F401  # registers the noise adjoints on import
    quaternion,
    random,
    scalar_math,
    spatial,
    transform,
    utility,
    vector_math,
)


@hookimpl
def warp_register_builtins(registry: BuiltinRegistry) -> None:
    """Scalar, vector, matrix, quaternion, transform, spatial math; random numbers and noise."""
    scalar_math.register(registry)
    utility.register(registry)
    vector_math.register(registry)
    quaternion.register(registry)
    transform.register(registry)
    spatial.register(registry)
    random.register(registry)
    noise.register(registry)
    checks.register(registry)
    for name in trig_lanes.NAMES:  # sin, cos, tan: defined after vectorization on the CPU
        registry.add_late_intrinsic(name, trig_lanes.define(name))


@hookimpl
def warp_exports() -> dict[str, Any]:
    """Constructors taking type arguments: wp.vector, wp.matrix, wp.identity, wp.quat_identity, ..."""
    return {**vector_math.exports(), **quaternion.exports(), **transform.exports()}


@hookimpl
def warp_device_array_utils(device: Any) -> DeviceArrayUtils | None:
    """``warp.utils`` in kernels on CUDA devices (sorts, scans, run-length encoding, sums)."""
    return device_utils if device.is_cuda else None
