"""Sharing CUDA arrays and events with other processes: ``array.ipc_handle()``,
``wp.from_ipc_handle`` and ``wp.event_from_ipc_handle`` (the driver calls are
:mod:`warp.targets.cuda.ipc`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from warp.runtime.devices import Devicelike, get_device
from warp.targets.base import Allocation
from warp.targets.cuda import ipc as cuda_ipc
from warp.targets.cuda.streams import Event, event_from_handle

if TYPE_CHECKING:
    from warp.arrays.array import array


def _cuda_device(device: Devicelike, what: str) -> Any:
    dev = get_device(device)
    if not dev.is_cuda:
        raise RuntimeError(f"{what}: IPC handles are for CUDA devices, got '{dev}'")
    if not cuda_ipc.ipc_supported(dev.ordinal):
        raise RuntimeError(f"{what}: device '{dev}' does not support IPC on this system")
    return dev


def array_ipc_handle(arr: array) -> bytes:
    """The 64-byte IPC handle of ``arr``'s memory: a whole allocation warp made on a CUDA device
    with the memory pool disabled (``wp.ScopedMempool(device, False)``)."""
    _cuda_device(arr.device, "array.ipc_handle")
    mem = arr._mem
    while mem is not None and not isinstance(mem, Allocation):
        mem = getattr(mem, "_mem", None)
    if mem is None or mem.ptr != arr.ptr:
        raise RuntimeError(
            "array.ipc_handle: the array must own the start of a device allocation warp made (not a "
            "view with an offset, nor external memory); use a fresh array or .contiguous()"
        )
    if mem.owner == "mempool":
        raise RuntimeError(
            f"array.ipc_handle: the array's memory comes from the memory pool of '{arr.device}', which "
            "has no IPC handle; allocate it inside wp.ScopedMempool(device, False)"
        )
    device = arr.device
    if device is None:
        raise RuntimeError("array.ipc_handle: the array has no device")
    return cuda_ipc.memory_handle(device.ordinal, arr.ptr)


def open_ipc_memory(handle: bytes, device: Devicelike) -> tuple[int, Any, Callable[[int, int], None]]:
    """Map another process's CUDA memory (``handle`` from its ``array.ipc_handle()``) on
    ``device``: (address, device, deleter unmapping it) for an array over it."""
    dev = _cuda_device(device, "from_ipc_handle")
    ptr = cuda_ipc.open_memory_handle(dev.ordinal, handle)
    ordinal = dev.ordinal
    return ptr, dev, lambda p, _size: cuda_ipc.close_memory_handle(ordinal, p)


def event_from_ipc_handle(handle: bytes, device: Devicelike = None) -> Event:
    """The event of another process (``handle`` from its ``Event.ipc_handle()``) on ``device``."""
    dev = _cuda_device(device, "event_from_ipc_handle")
    return event_from_handle(dev, cuda_ipc.open_event_handle(dev.ordinal, handle), interprocess=True)


__all__ = ["array_ipc_handle", "event_from_ipc_handle", "open_ipc_memory"]
