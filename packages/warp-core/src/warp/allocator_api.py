"""The allocator functions of the public API: ``wp.set_device_allocator``,
``wp.get_device_allocator`` and ``wp.ScopedAllocator`` (see :mod:`warp.runtime.allocators`)."""

from __future__ import annotations

from typing import Any

from warp.runtime import allocators
from warp.runtime.allocators import Allocator
from warp.runtime.devices import Devicelike, get_device


def set_device_allocator(device: Devicelike, allocator: Allocator | None) -> None:
    """New arrays on ``device`` take their memory from ``allocator`` (an object with
    ``allocate(size_in_bytes) -> int`` and ``deallocate(ptr, size_in_bytes)``); ``None``
    restores the device's built-in allocator. Existing arrays keep theirs."""
    allocators.replace_allocator(get_device(device), allocator)


def get_device_allocator(device: Devicelike = None) -> Allocator:
    """The allocator new arrays on ``device`` use."""
    return allocators.current_allocator(get_device(device))


class ScopedAllocator:
    """``with wp.ScopedAllocator(device, allocator):`` arrays made on ``device`` inside the block
    use ``allocator`` (``None``: the built-in one); the previous allocator comes back after."""

    def __init__(self, device: Devicelike, allocator: Allocator | None):
        self.device = get_device(device)
        self.allocator = allocator
        self._previous: Allocator | None = None

    def __enter__(self) -> ScopedAllocator:
        self._previous = allocators.replace_allocator(self.device, self.allocator)
        return self

    def __exit__(self, *exc: Any) -> None:
        allocators.replace_allocator(self.device, self._previous)
