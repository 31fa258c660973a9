"""The stand-in driver is strict: device memory is out of the host's reach, and a kernel given a
host pointer fails, so host code that mistakes device memory for host memory cannot pass."""

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import warp as wp


@wp.kernel
def _double(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = 2.0 * a[i]


def test_host_read_of_device_memory_faults() -> None:
    # in a child process: the fault kills it (pytest's own process must survive)
    code = textwrap.dedent(
        f"""
        import ctypes, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from fake_memory import DeviceArena
        arena = DeviceArena(2**24)
        ptr = arena.allocate(1024)
        with arena.opened():
            ctypes.memset(ptr, 7, 1024)  # the driver's own work may touch it
        print("inside ok", flush=True)
        ctypes.string_at(ptr, 4)  # host code may not
        print("not reached", flush=True)
        """
    )
    command = [sys.executable, "-X", "faulthandler", "-c", code]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert "inside ok" in result.stdout
    assert "not reached" not in result.stdout
    assert result.returncode == -signal.SIGSEGV and "Segmentation fault" in result.stderr


def test_arena_reuses_and_merges_freed_ranges() -> None:
    from fake_memory import DeviceArena

    arena = DeviceArena(2**24)
    a, b, c = arena.allocate(1000), arena.allocate(1000), arena.allocate(1000)
    assert b - a == 1024 and c - b == 1024  # 256-byte granularity
    arena.release(a, 1000)
    arena.release(b, 1000)
    assert arena.allocate(2000) == a  # the two freed neighbours merged into one range
    with pytest.raises(MemoryError, match="do not fit"):
        arena.allocate(2**25)


def test_driver_copies_reach_device_memory(fake_cuda) -> None:
    a = wp.array(np.arange(8, dtype=np.float32), device="cuda:0")
    assert fake_cuda.arena.contains(int(a.ptr), 32)
    raw = np.frombuffer(fake_cuda.read_device(int(a.ptr), 32), np.float32)
    np.testing.assert_array_equal(raw, np.arange(8))
    wp.launch(_double, dim=8, inputs=[a], device="cuda:0")
    np.testing.assert_array_equal(a.numpy(), 2.0 * np.arange(8))


def test_host_pointer_passed_to_a_kernel_fails(fake_cuda) -> None:
    host = np.ones(8, dtype=np.float32)
    alias = wp.array(ptr=host.ctypes.data, dtype=wp.float32, shape=(8,), device="cuda:0", copy=False)
    message = r"array argument 0 has its data pointer 0x[0-9a-f]+ in host memory"
    with pytest.raises(AssertionError, match=message):
        wp.launch(_double, dim=8, inputs=[alias], device="cuda:0")
    np.testing.assert_array_equal(host, 1.0)  # the kernel did not run


def test_pinned_host_memory_is_device_accessible(fake_cuda) -> None:
    pinned = wp.array(np.arange(4, dtype=np.float32), device="cpu", pinned=True)
    alias = wp.array(ptr=pinned.ptr, dtype=wp.float32, shape=(4,), device="cuda:0", copy=False)
    wp.launch(_double, dim=4, inputs=[alias], device="cuda:0")
    wp.synchronize()
    np.testing.assert_array_equal(pinned.numpy(), 2.0 * np.arange(4))


@pytest.mark.parametrize("word", [1, 2, 4])
def test_driver_2d_memset_writes_only_the_rows(fake_cuda, word) -> None:
    from cuda.bindings import driver as real

    a = wp.zeros(64, dtype=wp.uint8, device="cuda:0")
    call = {1: fake_cuda.cuMemsetD2D8Async, 2: fake_cuda.cuMemsetD2D16Async, 4: fake_cuda.cuMemsetD2D32Async}
    value = {1: 0xAB, 2: 0xABCD, 4: 0xDEADBEEF}[word]
    pitch, width, height = 5 * word, 2, 6  # rows of 2 words, 3 words apart: a gap after each
    (status,) = call[word](real.CUdeviceptr(int(a.ptr) + word), pitch, value, width, height, real.CUstream(0))
    assert status == 0
    wp.synchronize()
    expected = np.zeros(64, np.uint8)
    words = expected[word : word + (height - 1) * pitch + width * word].view(f"<u{word}")
    for r in range(height):  # the reference: row by row
        words[r * 5 : r * 5 + width] = value
    np.testing.assert_array_equal(a.numpy(), expected)
