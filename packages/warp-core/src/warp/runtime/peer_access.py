"""Peer access between CUDA devices and memory-pool access and switches (``wp.*peer_access*``,
``wp.*mempool*``), with NVIDIA Warp's argument order: ``(target_device, peer_device)`` asks
whether ``peer_device`` can access memory allocated on ``target_device``. Device arguments are
resolved here; the driver calls are :mod:`warp.targets.cuda.peer`."""

from __future__ import annotations

from warp.errors import DeviceMismatchError
from warp.runtime.devices import Device, Devicelike, get_device
from warp.targets.cuda import peer as cuda_peer


def _devices(target: Devicelike, peer: Devicelike) -> tuple[Device, Device]:
    return get_device(target), get_device(peer)


def is_peer_access_supported(target_device: Devicelike, peer_device: Devicelike) -> bool:
    """Whether ``peer_device`` can be given direct access to ``target_device``'s memory."""
    target, peer = _devices(target_device, peer_device)
    if not (target.is_cuda and peer.is_cuda):
        return False
    return cuda_peer.can_access_peer(target.ordinal, peer.ordinal)


def is_peer_access_enabled(target_device: Devicelike, peer_device: Devicelike) -> bool:
    """Whether ``peer_device`` currently has direct access to ``target_device``'s memory."""
    target, peer = _devices(target_device, peer_device)
    if not (target.is_cuda and peer.is_cuda):
        return False
    return cuda_peer.is_peer_enabled(target.ordinal, peer.ordinal)


def set_peer_access_enabled(target_device: Devicelike, peer_device: Devicelike, enable: bool) -> None:
    """Enable or disable direct access from ``peer_device`` to ``target_device``'s memory."""
    target, peer = _devices(target_device, peer_device)
    if not (target.is_cuda and peer.is_cuda):
        if enable:
            raise DeviceMismatchError(
                f"peer access between '{target}' and '{peer}' needs two CUDA devices "
                "(peer access is between CUDA devices only)"
            )
        return
    if target == peer:
        return
    if enable and not cuda_peer.can_access_peer(target.ordinal, peer.ordinal):
        raise RuntimeError(f"device '{peer}' cannot access the memory of '{target}' directly on this system")
    cuda_peer.enable_peer_access(target.ordinal, peer.ordinal, enable)


def is_mempool_supported(device: Devicelike) -> bool:
    """Whether ``device`` supports stream-ordered memory pools."""
    dev = get_device(device)
    return dev.is_cuda and cuda_peer.mempool_supported(dev.ordinal)


def is_mempool_enabled(device: Devicelike) -> bool:
    """Whether allocations on ``device`` come from its memory pool."""
    dev = get_device(device)
    return dev.is_cuda and cuda_peer.mempool_enabled(dev.ordinal)


def set_mempool_enabled(device: Devicelike, enable: bool) -> None:
    """Allocate from ``device``'s memory pool (default where supported) or with ``cuMemAlloc``."""
    dev = get_device(device)
    if not dev.is_cuda:
        if enable:
            raise ValueError(f"device '{dev}' has no memory pool (memory pools are for CUDA devices only)")
        return
    if enable and not cuda_peer.mempool_supported(dev.ordinal):
        raise RuntimeError(f"device '{dev}' does not support memory pools")
    cuda_peer.use_mempool(dev.ordinal, enable)


def is_mempool_access_supported(target_device: Devicelike, peer_device: Devicelike) -> bool:
    """Whether ``peer_device`` can be given access to ``target_device``'s memory pool."""
    target, peer = _devices(target_device, peer_device)
    return is_mempool_supported(target) and is_peer_access_supported(target, peer)


def is_mempool_access_enabled(target_device: Devicelike, peer_device: Devicelike) -> bool:
    """Whether ``peer_device`` can access memory from ``target_device``'s memory pool."""
    target, peer = _devices(target_device, peer_device)
    if not is_mempool_supported(target) or not peer.is_cuda:
        return False
    return cuda_peer.mempool_access_enabled(target.ordinal, peer.ordinal)


def set_mempool_access_enabled(target_device: Devicelike, peer_device: Devicelike, enable: bool) -> None:
    """Give ``peer_device`` access (or none) to memory from ``target_device``'s memory pool."""
    target, peer = _devices(target_device, peer_device)
    if target == peer:
        return
    if enable and not (target.is_cuda and peer.is_cuda):
        raise ValueError(
            f"memory pool access between '{target}' and '{peer}' needs two CUDA devices "
            "(memory pools are for CUDA devices only)"
        )
    if not is_mempool_access_supported(target, peer):
        if enable:
            raise RuntimeError(f"device '{peer}' cannot access the memory pool of '{target}'")
        return
    cuda_peer.set_mempool_access(target.ordinal, peer.ordinal, enable)


__all__ = [
    "is_mempool_access_enabled",
    "is_mempool_access_supported",
    "is_mempool_enabled",
    "is_mempool_supported",
    "is_peer_access_enabled",
    "is_peer_access_supported",
    "set_mempool_access_enabled",
    "set_mempool_enabled",
    "set_peer_access_enabled",
]
