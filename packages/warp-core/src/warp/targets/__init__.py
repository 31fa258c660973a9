"""Targets: everything that differs between running kernels on one kind of device and another.

One folder per target, each owning its kernel entry, code generation, loading, launching and
memory: :mod:`warp.targets.cpu` (LLVM JIT object code, a thread pool) and
:mod:`warp.targets.cuda` (PTX, the CUDA driver). :mod:`warp.targets.base` defines the
:class:`Target` interface, :mod:`warp.targets.registry` which target runs which device.
A target imports only the compiler and the type system; the device-neutral runtime
(:mod:`warp.runtime`) reaches targets through the registry.
"""

from warp.targets.base import Allocation, Command, CommandList, ErrorRecordBuffer, LoadedCode, Target
from warp.targets.registry import (
    TargetSpec,
    device_kind,
    get_target,
    parse_device,
    register_target,
    target_for_kind,
    target_names,
)

__all__ = [
    "Allocation",
    "Command",
    "CommandList",
    "ErrorRecordBuffer",
    "LoadedCode",
    "Target",
    "TargetSpec",
    "device_kind",
    "get_target",
    "parse_device",
    "register_target",
    "target_for_kind",
    "target_names",
]
