"""Device allocators: where ``wp.empty``/``wp.zeros``/``wp.array`` get their memory.

An allocator is any object with ``allocate(size_in_bytes) -> int`` (an address) and
``deallocate(ptr, size_in_bytes)``. Each device has a built-in one (``device.default_allocator``,
the device's target underneath); ``wp.set_device_allocator(device, allocator)`` makes new
arrays of that device take their memory from another one (``None`` restores the built-in one),
and ``wp.ScopedAllocator(device, allocator)`` does so for a ``with`` block. An array's memory
is handed back to the allocator that gave it, with the same size, when the array is freed.
Pinned host arrays always use the built-in allocation.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Protocol

from warp.targets import get_target
from warp.targets.base import Allocation


class Allocator(Protocol):
    """What ``wp.set_device_allocator`` accepts."""

    def allocate(self, size_in_bytes: int) -> int: ...

    def deallocate(self, ptr: int, size_in_bytes: int) -> None: ...


class TargetAllocator:
    """A device's built-in allocator (its target's memory), as an :class:`Allocator`."""

    def __init__(self, device: Any):
        self.device = device
        self._live: dict[int, Allocation] = {}
        self._lock = threading.Lock()

    def allocate(self, size_in_bytes: int) -> int:
        """``size_in_bytes`` of memory on the device; returns its address."""
        mem = get_target(self.device).allocate(self.device, int(size_in_bytes))
        with self._lock:
            self._live[mem.ptr] = mem
        return mem.ptr

    def deallocate(self, ptr: int, size_in_bytes: int) -> None:
        """Free memory returned by :meth:`allocate` (``size_in_bytes`` as allocated)."""
        with self._lock:
            mem = self._live.pop(int(ptr), None)
        if mem is None:
            raise ValueError(
                f"deallocate: 0x{int(ptr):x} was not allocated by the built-in allocator of '{self.device}'"
            )

    def __repr__(self) -> str:
        return f"TargetAllocator({self.device})"


_custom: dict[str, Allocator] = {}
_defaults: dict[str, TargetAllocator] = {}
_lock = threading.Lock()


def default_allocator(device: Any) -> TargetAllocator:
    """The built-in allocator of ``device`` (one per device)."""
    with _lock:
        found = _defaults.get(device.alias)
        if found is None:
            found = _defaults[device.alias] = TargetAllocator(device)
        return found


def custom_allocator(device: Any) -> Allocator | None:
    """The allocator set with ``wp.set_device_allocator`` for ``device``, or None."""
    return _custom.get(device.alias) if _custom else None


def current_allocator(device: Any) -> Allocator:
    """The allocator new arrays of ``device`` use."""
    return custom_allocator(device) or default_allocator(device)


def replace_allocator(device: Any, allocator: Allocator | None) -> Allocator | None:
    """Make ``allocator`` the one of ``device`` (None: the built-in one); returns the previous one."""
    if allocator is not None and not (callable(getattr(allocator, "allocate", None))
                                      and callable(getattr(allocator, "deallocate", None))):
        raise TypeError(
            f"an allocator needs allocate(size_in_bytes) -> int and deallocate(ptr, size_in_bytes) "
            f"methods; got {allocator!r}"
        )
    with _lock:
        previous = _custom.pop(device.alias, None)
        if allocator is not None and allocator is not _defaults.get(device.alias):
            _custom[device.alias] = allocator
    return previous


def allocate_with(allocator: Allocator, device: Any, nbytes: int, zero: bool) -> Allocation:
    """``nbytes`` from ``allocator``, handed back to it when the returned allocation is dropped."""
    ptr = allocator.allocate(nbytes)
    if not isinstance(ptr, int) or (ptr == 0 and nbytes > 0):
        raise RuntimeError(f"allocator {allocator!r} returned {ptr!r} for {nbytes} bytes on '{device}'")
    owner = _Release()
    weakref.finalize(owner, allocator.deallocate, ptr, nbytes)
    if zero and nbytes:
        get_target(device).memset(device, ptr, 0, nbytes)
    return Allocation(ptr, nbytes, device, owner=owner)


class _Release:
    """Owner of custom-allocated memory: its finalizer calls the allocator's ``deallocate``."""

    __slots__ = ("__weakref__",)
