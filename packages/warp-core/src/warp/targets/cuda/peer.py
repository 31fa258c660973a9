"""Peer access between CUDA devices and memory-pool access and switches (``wp.*peer_access*``,
``wp.*mempool*``), with NVIDIA Warp's argument order: ``(target_device, peer_device)`` asks
whether ``peer_device`` can access memory allocated on ``target_device``."""

from __future__ import annotations

import threading
from typing import Any

from warp.targets.cuda import driver as drv
from warp.targets.cuda.context import device_info, make_current

_lock = threading.Lock()
_peer_enabled: set[tuple[int, int]] = set()  # (target ordinal, peer ordinal)


def _devices(target: Any, peer: Any) -> tuple[Any, Any]:
    from warp.runtime.devices import get_device

    return get_device(target), get_device(peer)


def is_peer_access_supported(target_device: Any, peer_device: Any) -> bool:
    """Whether ``peer_device`` can be given direct access to ``target_device``'s memory."""
    target, peer = _devices(target_device, peer_device)
    if not (target.is_cuda and peer.is_cuda):
        return False
    if target == peer:
        return True
    cu = drv.driver()
    can = drv.check(
        cu.cuDeviceCanAccessPeer(device_info(peer.ordinal).handle, device_info(target.ordinal).handle),
        "cuDeviceCanAccessPeer",
    )
    return bool(can)


def is_peer_access_enabled(target_device: Any, peer_device: Any) -> bool:
    """Whether ``peer_device`` currently has direct access to ``target_device``'s memory."""
    target, peer = _devices(target_device, peer_device)
    if not (target.is_cuda and peer.is_cuda):
        return False
    return target == peer or (target.ordinal, peer.ordinal) in _peer_enabled


def set_peer_access_enabled(target_device: Any, peer_device: Any, enable: bool) -> None:
    """Enable or disable direct access from ``peer_device`` to ``target_device``'s memory."""
    target, peer = _devices(target_device, peer_device)
    if not (target.is_cuda and peer.is_cuda):
        if enable:
            raise RuntimeError(f"peer access between '{target}' and '{peer}' needs two CUDA devices")
        return
    if target == peer:
        return
    if enable and not is_peer_access_supported(target, peer):
        raise RuntimeError(f"device '{peer}' cannot access the memory of '{target}' directly on this system")
    cu = drv.driver()
    make_current(peer.ordinal)
    key = (target.ordinal, peer.ordinal)
    with _lock:
        if enable:
            err = cu.cuCtxEnablePeerAccess(device_info(target.ordinal).context, 0)[0]
            if int(err) not in (0, int(cu.CUresult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)):
                drv.check((err,), "cuCtxEnablePeerAccess")
            _peer_enabled.add(key)
        else:
            err = cu.cuCtxDisablePeerAccess(device_info(target.ordinal).context)[0]
            if int(err) not in (0, int(cu.CUresult.CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)):
                drv.check((err,), "cuCtxDisablePeerAccess")
            _peer_enabled.discard(key)


def is_mempool_supported(device: Any) -> bool:
    """Whether ``device`` supports stream-ordered memory pools."""
    from warp.runtime.devices import get_device

    dev = get_device(device)
    return dev.is_cuda and device_info(dev.ordinal).is_mempool_supported


def is_mempool_enabled(device: Any) -> bool:
    """Whether allocations on ``device`` come from its memory pool."""
    from warp.runtime.devices import get_device

    dev = get_device(device)
    return dev.is_cuda and device_info(dev.ordinal).use_mempool


def set_mempool_enabled(device: Any, enable: bool) -> None:
    """Allocate from ``device``'s memory pool (default where supported) or with ``cuMemAlloc``."""
    from warp.runtime.devices import get_device

    dev = get_device(device)
    if not dev.is_cuda:
        if enable:
            raise RuntimeError(f"device '{dev}' has no memory pool (CUDA devices only)")
        return
    info = device_info(dev.ordinal)
    if enable and not info.is_mempool_supported:
        raise RuntimeError(f"device '{dev}' does not support memory pools")
    info.use_mempool = bool(enable)


def _access_desc(cu: Any, peer_ordinal: int, enable: bool) -> Any:
    desc = cu.CUmemAccessDesc()
    desc.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    desc.location.id = peer_ordinal
    flags = cu.CUmemAccess_flags
    desc.flags = flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE if enable else flags.CU_MEM_ACCESS_FLAGS_PROT_NONE
    return desc


def is_mempool_access_supported(target_device: Any, peer_device: Any) -> bool:
    """Whether ``peer_device`` can be given access to ``target_device``'s memory pool."""
    target, peer = _devices(target_device, peer_device)
    return is_mempool_supported(target) and is_peer_access_supported(target, peer)


def is_mempool_access_enabled(target_device: Any, peer_device: Any) -> bool:
    """Whether ``peer_device`` can access memory from ``target_device``'s memory pool."""
    target, peer = _devices(target_device, peer_device)
    if not is_mempool_supported(target) or not peer.is_cuda:
        return False
    if target == peer:
        return True
    cu = drv.driver()
    location = cu.CUmemLocation()
    location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    location.id = peer.ordinal
    flags = drv.check(
        cu.cuMemPoolGetAccess(device_info(target.ordinal).mempool, location), "cuMemPoolGetAccess"
    )
    return int(flags) == int(cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE)


def set_mempool_access_enabled(target_device: Any, peer_device: Any, enable: bool) -> None:
    """Give ``peer_device`` access (or none) to memory from ``target_device``'s memory pool."""
    target, peer = _devices(target_device, peer_device)
    if target == peer:
        return
    if not is_mempool_access_supported(target, peer):
        if enable:
            raise RuntimeError(f"device '{peer}' cannot access the memory pool of '{target}'")
        return
    cu = drv.driver()
    desc = _access_desc(cu, peer.ordinal, enable)
    drv.check(cu.cuMemPoolSetAccess(device_info(target.ordinal).mempool, [desc], 1), "cuMemPoolSetAccess")
