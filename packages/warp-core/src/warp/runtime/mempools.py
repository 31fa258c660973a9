"""CUDA memory pool settings and usage (``wp.get/set_mempool_release_threshold``,
``wp.get_mempool_used_mem_current/high``, ``wp.ScopedMempool``, ``wp.ScopedMempoolAccess``).

Device memory comes from each CUDA device's default memory pool where the device supports one
(:mod:`warp.targets.cuda.memory`). These read and set that pool's attributes: the release
threshold (bytes the pool keeps cached when the device synchronizes; warp sets it to "keep
everything" when it first uses the device) and the bytes in use now and at most so far.
Asking about a device without a memory pool raises ``ValueError`` for the CPU (no CUDA device)
and ``RuntimeError`` for a CUDA device without pool support.
"""

from __future__ import annotations

from typing import Any

from warp.runtime.devices import Device, Devicelike, get_device
from warp.runtime.peer_access import (
    is_mempool_access_enabled,
    is_mempool_enabled,
    set_mempool_access_enabled,
    set_mempool_enabled,
)
from warp.targets.cuda import peer as cuda_peer


def _pool_device(device: Devicelike, what: str) -> Device:
    dev = get_device(device)
    if not dev.is_cuda:
        raise ValueError(
            f"{what}: device '{dev}' has no memory pool (memory pools are for CUDA devices only)"
        )
    if not cuda_peer.mempool_supported(dev.ordinal):
        raise RuntimeError(f"{what}: device '{dev}' does not support memory pools")
    return dev


def get_mempool_release_threshold(device: Devicelike = None) -> int:
    """Bytes of freed memory the device's pool keeps reserved when the device synchronizes."""
    dev = _pool_device(device, "get_mempool_release_threshold")
    return cuda_peer.pool_attribute(dev.ordinal, "RELEASE_THRESHOLD")


def set_mempool_release_threshold(device: Devicelike, threshold: int | float) -> None:
    """Set the pool's release threshold: bytes (an int), or a fraction of the device's memory
    (a float between 0 and 1)."""
    dev = _pool_device(device, "set_mempool_release_threshold")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise TypeError(
            f"set_mempool_release_threshold: threshold must be bytes (int) or a fraction of the "
            f"device memory (float), got {type(threshold).__name__}"
        )
    if isinstance(threshold, float):
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(
                "set_mempool_release_threshold: a fractional threshold must be within [0, 1], "
                f"got {threshold}"
            )
        threshold = int(threshold * dev.total_memory)
    if threshold < 0:
        raise ValueError(f"set_mempool_release_threshold: threshold must be non-negative, got {threshold}")
    cuda_peer.set_pool_attribute(dev.ordinal, "RELEASE_THRESHOLD", threshold)


def get_mempool_used_mem_current(device: Devicelike = None) -> int:
    """Bytes of the device's memory pool in use by allocations now."""
    dev = _pool_device(device, "get_mempool_used_mem_current")
    return cuda_peer.pool_attribute(dev.ordinal, "USED_MEM_CURRENT")


def get_mempool_used_mem_high(device: Devicelike = None) -> int:
    """The most bytes of the device's memory pool in use at once so far."""
    dev = _pool_device(device, "get_mempool_used_mem_high")
    return cuda_peer.pool_attribute(dev.ordinal, "USED_MEM_HIGH")


class ScopedMempool:
    """``with wp.ScopedMempool(device, enable):`` allocates from the device's memory pool (or
    not) inside the block, restoring the previous setting after it."""

    def __init__(self, device: Devicelike, enable: bool) -> None:
        self.device = get_device(device)
        self.enable = bool(enable)
        self._saved: bool | None = None

    def __enter__(self) -> ScopedMempool:
        self._saved = is_mempool_enabled(self.device)
        set_mempool_enabled(self.device, self.enable)
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._saved is not None
        set_mempool_enabled(self.device, self._saved)


class ScopedMempoolAccess:
    """``with wp.ScopedMempoolAccess(target, peer, enable):`` gives ``peer`` access (or none) to
    ``target``'s memory pool inside the block, restoring the previous access after it."""

    def __init__(self, target_device: Devicelike, peer_device: Devicelike, enable: bool) -> None:
        self.target_device = get_device(target_device)
        self.peer_device = get_device(peer_device)
        self.enable = bool(enable)
        self._saved: bool | None = None

    def __enter__(self) -> ScopedMempoolAccess:
        self._saved = is_mempool_access_enabled(self.target_device, self.peer_device)
        set_mempool_access_enabled(self.target_device, self.peer_device, self.enable)
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._saved is not None
        set_mempool_access_enabled(self.target_device, self.peer_device, self._saved)


__all__ = [
    "ScopedMempool",
    "ScopedMempoolAccess",
    "get_mempool_release_threshold",
    "get_mempool_used_mem_current",
    "get_mempool_used_mem_high",
    "set_mempool_release_threshold",
]
