"""CUDA devices as the driver sees them: primary contexts, properties, per-thread current context.

Each device is used through its primary context (shared with other libraries in the process,
as the CUDA runtime does). :func:`device_info` retains it on first use and reads the properties
warp exposes on ``wp.Device`` (name, arch, SM count, memory, unified addressing, memory pools).
:func:`make_current` makes a device's context current on the calling thread, remembering it per
thread so repeated calls cost no driver call.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from warp.targets.cuda import driver as drv
from warp.targets.cuda.ptx import choose_target


@dataclass
class DeviceInfo:
    """Driver handles and properties of one CUDA device."""

    ordinal: int
    handle: Any  # CUdevice
    context: Any  # CUcontext (primary)
    name: str
    arch: int  # compute capability as major * 10 + minor (e.g. 90)
    sm_count: int
    total_memory: int
    is_uva: bool
    is_mempool_supported: bool
    pci_bus_id: str
    #: (SM, PTX ISA version x10) generated code targets on this device
    ptx_target: tuple[int, int]
    #: the driver's CUDA version (``major * 1000 + minor * 10``)
    driver_version: int = 0
    #: the device's default memory pool (None without memory pool support)
    mempool: Any = None
    #: whether allocations come from the pool (``wp.set_mempool_enabled``)
    use_mempool: bool = False


_lock = threading.Lock()
_infos: dict[int, DeviceInfo] = {}
_local = threading.local()


def _attribute(cu: Any, dev: Any, name: str) -> int:
    return int(drv.check(cu.cuDeviceGetAttribute(getattr(cu.CUdevice_attribute, name), dev), name))


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).split(b"\0", 1)[0].decode(errors="replace")
    return str(value)


def device_info(ordinal: int) -> DeviceInfo:
    """Properties and primary context of CUDA device ``ordinal`` (retained on first call)."""
    info = _infos.get(ordinal)
    if info is not None:
        return info
    with _lock:
        info = _infos.get(ordinal)
        if info is None:
            info = _infos[ordinal] = _query(ordinal)
    return info


def _query(ordinal: int) -> DeviceInfo:
    cu = drv.driver()
    dev = drv.check(cu.cuDeviceGet(ordinal), "cuDeviceGet")
    context = drv.check(cu.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    major = _attribute(cu, dev, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR")
    minor = _attribute(cu, dev, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR")
    pools = bool(_attribute(cu, dev, "CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED"))
    version = drv.driver_version()
    info = DeviceInfo(
        ordinal=ordinal,
        handle=dev,
        context=context,
        name=_text(drv.check(cu.cuDeviceGetName(256, dev), "cuDeviceGetName")),
        arch=major * 10 + minor,
        sm_count=_attribute(cu, dev, "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"),
        total_memory=int(drv.check(cu.cuDeviceTotalMem(dev), "cuDeviceTotalMem")),
        is_uva=bool(_attribute(cu, dev, "CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING")),
        is_mempool_supported=pools,
        pci_bus_id=_text(drv.check(cu.cuDeviceGetPCIBusId(64, dev), "cuDeviceGetPCIBusId")),
        ptx_target=choose_target((major, minor), version),
        driver_version=version,
    )
    if pools:
        info.use_mempool = True
        info.mempool = drv.check(cu.cuDeviceGetDefaultMemPool(dev), "cuDeviceGetDefaultMemPool")
        # keep freed memory in the pool (the driver otherwise returns it at every synchronization)
        threshold = cu.cuuint64_t(0xFFFFFFFFFFFFFFFF)
        attr = cu.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
        drv.check(cu.cuMemPoolSetAttribute(info.mempool, attr, threshold), "cuMemPoolSetAttribute")
    return info


def device_attribute(ordinal: int, name: str) -> int:
    """The driver's value of ``CU_DEVICE_ATTRIBUTE_<name>`` for CUDA device ``ordinal``."""
    cu = drv.driver()
    return _attribute(cu, device_info(ordinal).handle, f"CU_DEVICE_ATTRIBUTE_{name}")


def make_current(ordinal: int) -> DeviceInfo:
    """Make device ``ordinal``'s primary context current on this thread; returns its info."""
    info = device_info(ordinal)
    if getattr(_local, "current", None) != ordinal:
        drv.check(drv.driver().cuCtxSetCurrent(info.context), "cuCtxSetCurrent")
        _local.current = ordinal
    return info


def forget_current() -> None:
    """Forget which context this thread made current (after code that may have changed it)."""
    _local.current = None


def initialized_ordinals() -> list[int]:
    """Ordinals of the devices whose context was set up in this process."""
    return sorted(_infos)
