"""The stand-in driver's initialization, devices, contexts and peer access.

Every fake device is an H100-like GPU (compute capability :attr:`FakeDriverBase.arch`); its
primary context is ``0x100 + ordinal``. Enabling peer access is recorded per (current context,
peer context) pair, refused when already enabled (or, disabling, when not).
"""

from __future__ import annotations

from typing import Any

from cuda.bindings import driver as real
from fake_driver_base import ERR, OK, FakeDriverBase


class DevicesMixin(FakeDriverBase):
    """``cuInit``, ``cuDevice*``, ``cuCtx*`` (but stream priorities) and peer access."""

    def cuInit(self, flags: int):
        return (OK,)

    def cuDriverGetVersion(self):
        return (OK, self.driver_version)

    def cuDeviceGetCount(self):
        return (OK, self.device_count)

    def cuGetErrorName(self, err: Any):
        return (OK, ERR(err).name.encode())

    def cuDeviceGet(self, ordinal: int):
        if not 0 <= ordinal < self.device_count:
            return (ERR.CUDA_ERROR_INVALID_DEVICE, None)
        return (OK, real.CUdevice(ordinal))

    def cuDeviceGetName(self, length: int, dev: Any):
        return (OK, f"Fake GPU {int(dev)}".encode().ljust(length, b"\0"))

    def cuDeviceGetPCIBusId(self, length: int, dev: Any):
        return (OK, f"0000:0{int(dev) + 1}:00.0".encode().ljust(length, b"\0"))

    _ATTRIBUTES = {
        "CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED": 1,
        "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT": 132,
        "CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING": 1,
        "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 232448,
        "CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED": 1,
    }

    def cuDeviceGetAttribute(self, attrib: Any, dev: Any):
        assert isinstance(attrib, real.CUdevice_attribute)
        if attrib.name == "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR":
            return (OK, self.arch // 10)
        if attrib.name == "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR":
            return (OK, self.arch % 10)
        return (OK, self._ATTRIBUTES[attrib.name])

    def cuDeviceTotalMem(self, dev: Any):
        return (OK, 80 * 2**30)

    def cuDevicePrimaryCtxRetain(self, dev: Any):
        return (OK, real.CUcontext(0x100 + int(dev)))

    def cuCtxSetCurrent(self, ctx: Any):
        assert isinstance(ctx, real.CUcontext)
        self.current_context = int(ctx)
        return (OK,)

    def cuCtxSynchronize(self):
        # synchronizing a context with a capturing stream invalidates the capture
        if self._capture_unsafe("cuCtxSynchronize", violation=True):
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        self._log("cuCtxSynchronize")
        self._flush_all()
        return (OK,)

    def cuDeviceCanAccessPeer(self, dev: Any, peer: Any):
        return (OK, 1)

    def cuCtxEnablePeerAccess(self, ctx: Any, flags: int):
        key = (self.current_context, int(ctx))
        if key in self.peer_enabled:
            return (ERR.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,)
        self.peer_enabled.add(key)
        return (OK,)

    def cuCtxDisablePeerAccess(self, ctx: Any):
        key = (self.current_context, int(ctx))
        if key not in self.peer_enabled:
            return (ERR.CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,)
        self.peer_enabled.discard(key)
        return (OK,)
