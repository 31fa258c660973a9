"""Peer access between CUDA devices and access to their memory pools, by device ordinal: the
driver calls behind ``wp.*peer_access*`` and ``wp.*mempool*`` (:mod:`warp.runtime.peer_access`,
which resolves device arguments). ``target`` is the device whose memory is accessed, ``peer``
the one accessing it, as in NVIDIA Warp's argument order."""

from __future__ import annotations

import threading
from typing import Any

from warp.targets.cuda import driver as drv
from warp.targets.cuda.context import device_info, make_current

_lock = threading.Lock()
_peer_enabled: set[tuple[int, int]] = set()  # (target ordinal, peer ordinal)


def can_access_peer(target: int, peer: int) -> bool:
    """Whether device ``peer`` can be given direct access to device ``target``'s memory."""
    if target == peer:
        return True
    cu = drv.driver()
    can = cu.cuDeviceCanAccessPeer(device_info(peer).handle, device_info(target).handle)
    return bool(drv.check(can, "cuDeviceCanAccessPeer"))


def is_peer_enabled(target: int, peer: int) -> bool:
    """Whether device ``peer`` currently has direct access to device ``target``'s memory."""
    return target == peer or (target, peer) in _peer_enabled


def enable_peer_access(target: int, peer: int, enable: bool) -> None:
    """Enable or disable direct access from device ``peer`` to device ``target``'s memory
    (``cuCtxEnablePeerAccess`` in ``peer``'s context; already enabled/disabled is no error)."""
    if target == peer:
        return
    cu = drv.driver()
    make_current(peer)
    with _lock:
        if enable:
            err = cu.cuCtxEnablePeerAccess(device_info(target).context, 0)[0]
            if int(err) not in (0, int(cu.CUresult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)):
                drv.check((err,), "cuCtxEnablePeerAccess")
            _peer_enabled.add((target, peer))
        else:
            err = cu.cuCtxDisablePeerAccess(device_info(target).context)[0]
            if int(err) not in (0, int(cu.CUresult.CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)):
                drv.check((err,), "cuCtxDisablePeerAccess")
            _peer_enabled.discard((target, peer))


def mempool_supported(ordinal: int) -> bool:
    """Whether the device supports stream-ordered memory pools."""
    return device_info(ordinal).is_mempool_supported


def mempool_enabled(ordinal: int) -> bool:
    """Whether the device's allocations come from its memory pool."""
    return device_info(ordinal).use_mempool


def use_mempool(ordinal: int, enable: bool) -> None:
    """Allocate from the device's memory pool or with ``cuMemAlloc`` (the caller checked support)."""
    device_info(ordinal).use_mempool = bool(enable)


def _access_desc(cu: Any, peer: int, enable: bool) -> Any:
    desc = cu.CUmemAccessDesc()
    desc.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    desc.location.id = peer
    flags = cu.CUmemAccess_flags
    desc.flags = flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE if enable else flags.CU_MEM_ACCESS_FLAGS_PROT_NONE
    return desc


def mempool_access_enabled(target: int, peer: int) -> bool:
    """Whether device ``peer`` can read and write memory from device ``target``'s memory pool."""
    if target == peer:
        return True
    cu = drv.driver()
    location = cu.CUmemLocation()
    location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    location.id = peer
    flags = drv.check(cu.cuMemPoolGetAccess(device_info(target).mempool, location), "cuMemPoolGetAccess")
    return int(flags) == int(cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE)


def set_mempool_access(target: int, peer: int, enable: bool) -> None:
    """Give device ``peer`` read-write access (or none) to device ``target``'s memory pool."""
    cu = drv.driver()
    desc = _access_desc(cu, peer, enable)
    drv.check(cu.cuMemPoolSetAccess(device_info(target).mempool, [desc], 1), "cuMemPoolSetAccess")


def pool_attribute(ordinal: int, name: str) -> int:
    """The value of ``CU_MEMPOOL_ATTR_<name>`` of the device's default memory pool (64-bit attributes)."""
    cu = drv.driver()
    make_current(ordinal)
    attr = getattr(cu.CUmemPool_attribute, f"CU_MEMPOOL_ATTR_{name}")
    value = drv.check(cu.cuMemPoolGetAttribute(device_info(ordinal).mempool, attr), "cuMemPoolGetAttribute")
    return int(value)


def set_pool_attribute(ordinal: int, name: str, value: int) -> None:
    """Set the 64-bit attribute ``CU_MEMPOOL_ATTR_<name>`` of the device's default memory pool."""
    cu = drv.driver()
    make_current(ordinal)
    attr = getattr(cu.CUmemPool_attribute, f"CU_MEMPOOL_ATTR_{name}")
    drv.check(
        cu.cuMemPoolSetAttribute(device_info(ordinal).mempool, attr, cu.cuuint64_t(int(value))),
        "cuMemPoolSetAttribute",
    )
