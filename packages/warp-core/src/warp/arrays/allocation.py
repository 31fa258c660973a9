"""Memory for new arrays: layout checks, the allocator (target, pinned host or custom) and tracking."""

from __future__ import annotations

from typing import Any

from warp.arrays.layout import contiguous_strides, element_info, is_generic_dtype, span_in_bytes
from warp.runtime.allocators import allocate_with, custom_allocator
from warp.runtime.devices import Device, is_cuda_available
from warp.runtime.memory_tracking import is_tracking, record_allocation
from warp.targets import get_target, target_for_kind
from warp.types.scalars import type_repr


def allocate_array_memory(dtype: Any, shape: tuple[int, ...], device: Device, zero: bool,
                          pinned: bool = False, strides: Any = None) -> tuple[Any, tuple[int, ...], int]:
    """Allocate memory for an array of ``dtype`` and ``shape`` on ``device`` (contiguous, or
    addressed by the caller's byte ``strides``): ``(memory, strides, bytes)``."""
    if is_generic_dtype(dtype):
        raise TypeError(
            f"cannot allocate an array of generic dtype {type_repr(dtype)}; pass a concrete dtype"
        )
    info = element_info(dtype)
    if strides is None:
        strides = contiguous_strides(shape, info.itemsize)
    else:  # a layout of the caller's (e.g. transposed): memory for the span it addresses
        strides = tuple(int(s) for s in strides)
        if len(strides) != len(shape):
            raise ValueError(
                f"Invalid number of strides, expected {len(shape)} strides, got {len(strides)} "
                f"(strides {strides} for shape {shape})"
            )
        if any(s < 0 for s in strides):
            raise NotImplementedError(
                f"Negative strides are not supported when allocating an array (strides {strides}); "
                "allocate it contiguous and take a reversed view (a[::-1])"
            )
    nbytes = span_in_bytes(shape, strides, info.itemsize)
    target = get_target(device)
    if pinned and device.is_cpu:
        if is_cuda_available():  # page-locked host memory comes from the CUDA driver
            target = target_for_kind("cuda")
    custom = None if pinned else custom_allocator(device)  # wp.set_device_allocator
    if custom is not None:
        mem = allocate_with(custom, device, nbytes, zero)
    else:
        mem = target.allocate(device, nbytes, zero=zero, pinned=pinned)
    if is_tracking():  # wp.config.track_memory / wp.ScopedMemoryTracker
        kind = "pinned host" if pinned else "host" if device.is_cpu else "device"
        record_allocation(mem, f"array[{type_repr(dtype)}, {', '.join(map(str, shape))}]", kind)
    return mem, strides, nbytes
