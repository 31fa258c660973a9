"""CUDA inter-process communication: handles that let another process on the same machine map
a device allocation (``cuIpcGetMemHandle``/``cuIpcOpenMemHandle``) or use an event
(``cuIpcGetEventHandle``/``cuIpcOpenEventHandle``).

Handles travel as the 64 bytes of the driver's ``CUipcMemHandle``/``CUipcEventHandle``. Memory
handles exist only for memory from ``cuMemAlloc`` (not from a stream-ordered memory pool:
allocate with ``wp.ScopedMempool(device, False)``), event handles only for events created with
``interprocess=True``. IPC needs Linux and a device that reports
``CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED``.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from warp.targets.cuda import driver as drv
from warp.targets.cuda.context import device_attribute, make_current

#: bytes of an IPC handle (``CU_IPC_HANDLE_SIZE``)
HANDLE_SIZE = 64


def ipc_supported(ordinal: int) -> bool:
    """Whether CUDA device ``ordinal`` can share memory and events with other processes."""
    return sys.platform.startswith("linux") and bool(device_attribute(ordinal, "IPC_EVENT_SUPPORTED"))


def _to_bytes(handle: Any) -> bytes:
    reserved = getattr(handle, "reserved", None)
    if reserved is not None:  # older cuda-python exposes the bytes as a field
        return bytes(reserved)
    return ctypes.string_at(handle.getPtr(), HANDLE_SIZE)


def _from_bytes(kind: Any, data: Any, what: str) -> Any:
    if not isinstance(data, (bytes, bytearray, memoryview)) or len(bytes(data)) != HANDLE_SIZE:
        raise ValueError(f"{what}: an IPC handle is {HANDLE_SIZE} bytes, got {type(data).__name__} "
                         f"of length {len(data) if hasattr(data, '__len__') else '?'}")
    handle = kind()
    if hasattr(handle, "reserved"):
        handle.reserved = bytes(data)
    else:
        ctypes.memmove(handle.getPtr(), bytes(data), HANDLE_SIZE)
    return handle


def memory_handle(ordinal: int, ptr: int) -> bytes:
    """The IPC handle of the ``cuMemAlloc`` allocation at ``ptr`` on device ``ordinal``."""
    cu = drv.driver()
    make_current(ordinal)
    return _to_bytes(drv.check(cu.cuIpcGetMemHandle(cu.CUdeviceptr(ptr)), "cuIpcGetMemHandle"))


def open_memory_handle(ordinal: int, handle: Any) -> int:
    """Map another process's allocation (``handle`` from :func:`memory_handle`) on device
    ``ordinal``; the address, valid until :func:`close_memory_handle`."""
    cu = drv.driver()
    make_current(ordinal)
    h = _from_bytes(cu.CUipcMemHandle, handle, "from_ipc_handle")
    flags = int(cu.CUipcMem_flags.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
    return int(drv.check(cu.cuIpcOpenMemHandle(h, flags), "cuIpcOpenMemHandle"))


def close_memory_handle(ordinal: int, ptr: int) -> None:
    """Unmap memory mapped by :func:`open_memory_handle` (a finalizer: errors are ignored)."""
    try:
        make_current(ordinal)
        cu = drv.driver()
        cu.cuIpcCloseMemHandle(cu.CUdeviceptr(ptr))
    except Exception:
        pass


def event_handle(ordinal: int, event: Any) -> bytes:
    """The IPC handle of ``event`` (a ``CUevent`` created with ``CU_EVENT_INTERPROCESS``)."""
    make_current(ordinal)
    return _to_bytes(drv.check(drv.driver().cuIpcGetEventHandle(event), "cuIpcGetEventHandle"))


def open_event_handle(ordinal: int, handle: Any) -> Any:
    """The ``CUevent`` of another process's event (``handle`` from :func:`event_handle`)."""
    cu = drv.driver()
    make_current(ordinal)
    h = _from_bytes(cu.CUipcEventHandle, handle, "event_from_ipc_handle")
    return drv.check(cu.cuIpcOpenEventHandle(h), "cuIpcOpenEventHandle")
