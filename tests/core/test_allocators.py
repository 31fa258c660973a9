"""Custom device allocators: wp.set_device_allocator, wp.ScopedAllocator, Device.default_allocator."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import warp as wp


class Counting:
    def __init__(self, inner):
        self.inner = inner
        self.events = []

    def allocate(self, size_in_bytes):
        ptr = self.inner.allocate(size_in_bytes)
        self.events.append(("alloc", ptr, size_in_bytes))
        return ptr

    def deallocate(self, ptr, size_in_bytes):
        self.events.append(("free", ptr, size_in_bytes))
        self.inner.deallocate(ptr, size_in_bytes)


@pytest.fixture
def cpu():
    device = wp.get_device("cpu")
    yield device
    wp.set_device_allocator(device, None)


def test_arrays_take_memory_from_the_allocator_and_give_it_back(cpu):
    counting = Counting(cpu.default_allocator)
    wp.set_device_allocator(cpu, counting)
    assert wp.get_device_allocator("cpu") is counting and cpu.get_allocator() is counting
    a = wp.zeros(1000, dtype=wp.float32, device=cpu)
    b = wp.full(500, 2.5, dtype=wp.float32, device=cpu)
    assert [(e[0], e[2]) for e in counting.events] == [("alloc", 4000), ("alloc", 2000)]
    assert a.ptr == counting.events[0][1]
    np.testing.assert_array_equal(a.numpy(), np.zeros(1000, np.float32))  # zeroed memory
    np.testing.assert_array_equal(b.numpy(), np.full(500, 2.5, np.float32))
    ptr_a = a.ptr
    del a
    gc.collect()
    assert counting.events[-1] == ("free", ptr_a, 4000)
    wp.set_device_allocator(cpu, None)
    assert cpu.get_allocator() is cpu.default_allocator
    c = wp.zeros(10, device=cpu)
    assert len(counting.events) == 3  # the built-in allocator again
    del b, c
    gc.collect()
    assert [e[0] for e in counting.events] == ["alloc", "alloc", "free", "free"]


def test_scoped_allocator_restores_the_previous_one(cpu):
    counting = Counting(cpu.default_allocator)
    wp.set_device_allocator(cpu, counting)
    with wp.ScopedAllocator(cpu, None):
        x = wp.zeros(100, device=cpu)
        assert cpu.get_allocator() is cpu.default_allocator
    assert counting.events == []
    assert cpu.get_allocator() is counting
    assert x.numpy().sum() == 0.0


def test_bad_allocators_are_refused_clearly(cpu):
    with pytest.raises(TypeError, match=r"allocator needs allocate\(size_in_bytes\) -> int"):
        wp.set_device_allocator(cpu, object())

    class Broken:
        def allocate(self, size_in_bytes):
            return None

        def deallocate(self, ptr, size_in_bytes):
            pass

    wp.set_device_allocator(cpu, Broken())
    with pytest.raises(RuntimeError, match=r"returned None for 40 bytes on 'cpu'"):
        wp.empty(10, dtype=wp.float32, device=cpu)
    with pytest.raises(ValueError, match="was not allocated by the built-in allocator of 'cpu'"):
        cpu.default_allocator.deallocate(12345, 8)
