"""The stand-in driver's inter-process handles of device memory and events.

One process plays both sides: a handle carries a tag and the allocation's address (or the
event's handle); opening a memory handle maps the same allocation again, counted until
``cuIpcCloseMemHandle``, and opening an event handle gives a new handle sharing the event's state.
"""

from __future__ import annotations

import ctypes
import struct
from typing import Any

from cuda.bindings import driver as real
from fake_driver_base import ERR, OK, FakeDriverBase


class IpcMixin(FakeDriverBase):
    """``cuIpc*``: memory and event handles."""

    @staticmethod
    def _handle(kind: Any, tag: bytes, value: int) -> Any:
        handle = kind()
        data = tag + struct.pack("<Q", value)
        ctypes.memmove(handle.getPtr(), data.ljust(64, b"\0"), 64)
        return handle

    @staticmethod
    def _handle_value(handle: Any, tag: bytes) -> int | None:
        data = ctypes.string_at(handle.getPtr(), 64)
        return struct.unpack_from("<Q", data, len(tag))[0] if data.startswith(tag) else None

    def cuIpcGetMemHandle(self, ptr: Any):
        assert isinstance(ptr, real.CUdeviceptr)
        entry = self.memory.get(int(ptr))
        if entry is None or entry[1] != "device" or int(ptr) in self.pool_memory:
            return (ERR.CUDA_ERROR_INVALID_VALUE, None)  # not the start of a cuMemAlloc allocation
        return (OK, self._handle(real.CUipcMemHandle, b"fakeipcm", int(ptr)))

    def cuIpcOpenMemHandle(self, handle: Any, flags: int):
        assert isinstance(handle, real.CUipcMemHandle) and isinstance(flags, int)
        ptr = self._handle_value(handle, b"fakeipcm")
        if ptr is None or ptr not in self.memory:
            return (ERR.CUDA_ERROR_INVALID_HANDLE, None)
        self.ipc_mapped[ptr] = self.ipc_mapped.get(ptr, 0) + 1
        return (OK, real.CUdeviceptr(ptr))

    def cuIpcCloseMemHandle(self, ptr: Any):
        assert isinstance(ptr, real.CUdeviceptr)
        if not self.ipc_mapped.get(int(ptr)):
            self.violations.append(f"cuIpcCloseMemHandle of memory not opened from a handle ({int(ptr):#x})")
            return (ERR.CUDA_ERROR_INVALID_VALUE,)
        self.ipc_mapped[int(ptr)] -= 1
        return (OK,)

    def cuIpcGetEventHandle(self, event: Any):
        state = self._event(event)
        if state is None or not state["flags"] & int(real.CUevent_flags.CU_EVENT_INTERPROCESS):
            return (ERR.CUDA_ERROR_INVALID_VALUE, None)
        return (OK, self._handle(real.CUipcEventHandle, b"fakeipce", int(event)))

    def cuIpcOpenEventHandle(self, handle: Any):
        assert isinstance(handle, real.CUipcEventHandle)
        event = self._handle_value(handle, b"fakeipce")
        if event is None or event not in self.events:
            return (ERR.CUDA_ERROR_INVALID_HANDLE, None)
        opened = next(self._ids)  # a handle of its own, sharing the event's state
        self.events[opened] = self.events[event]
        return (OK, real.CUevent(opened))
