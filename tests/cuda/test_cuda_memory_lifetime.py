"""Device memory freed by the garbage collector at any moment (warp.targets.cuda.memory): after
the stream it was allocated on is dropped, and while a graph capture runs. On a GPU both crashed
the process (NVIDIA Warp's test_graph.py, test_hash_grid.py and cuda/test_capture_mode.py on an
H200); the stand-in records such misuse and the ``fake_cuda`` fixture fails the test on it."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import warp as wp
from warp.targets.cuda import memory as cuda_memory


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def test_memory_keeps_its_stream_alive(fake_cuda) -> None:
    stream = wp.Stream("cuda:0")
    handle = stream.cuda_stream
    with wp.ScopedStream(stream):
        a = wp.full(64, 2.0, dtype=float, device="cuda:0")
    del stream
    gc.collect()
    assert handle not in fake_cuda.destroyed_streams  # the allocation still needs it
    wp.launch(add_one, 64, inputs=[a], device="cuda:0")
    np.testing.assert_array_equal(a.numpy(), np.full(64, 3.0, dtype=np.float32))
    ptr = a.ptr
    del a
    gc.collect()
    assert ptr in fake_cuda.freed and handle in fake_cuda.destroyed_streams
    assert not fake_cuda.violations


def test_free_during_capture_waits_for_its_end(fake_cuda) -> None:
    a = wp.zeros(64, dtype=float, device="cuda:0")
    pinned = wp.zeros(16, dtype=float, device="cpu", pinned=True)
    b = wp.zeros(64, dtype=float, device="cuda:0")
    ptrs = (a.ptr, pinned.ptr)
    with wp.ScopedCapture("cuda:0") as capture:
        wp.launch(add_one, 64, inputs=[b], device="cuda:0")
        del a, pinned
        gc.collect()
        assert all(p in fake_cuda.memory for p in ptrs)  # not freed inside the graph
        assert cuda_memory.deferred_count() == 2
    assert all(p not in fake_cuda.memory for p in ptrs) and cuda_memory.deferred_count() == 0
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(b.numpy(), np.ones(64, dtype=np.float32))
    assert not fake_cuda.violations


def test_graph_temporaries_are_freed_by_the_graph(fake_cuda) -> None:
    out = wp.zeros(64, dtype=float, device="cuda:0")

    def step() -> None:
        tmp = wp.zeros(64, dtype=float, device="cuda:0")  # allocated by the graph
        wp.launch(add_one, 64, inputs=[tmp], device="cuda:0")
        wp.copy(out, tmp)
        del tmp
        gc.collect()

    with wp.ScopedCapture("cuda:0") as capture:
        step()
        assert cuda_memory.deferred_count() == 0  # freed in the graph, not deferred
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(out.numpy(), np.ones(64, dtype=np.float32))
    assert not fake_cuda.violations


def test_a_failed_capture_releases_the_waiting_frees(fake_cuda) -> None:
    a = wp.zeros(8, dtype=float, device="cuda:0")
    ptr = a.ptr
    with pytest.raises(RuntimeError, match="boom"):
        with wp.ScopedCapture("cuda:0"):
            del a
            gc.collect()
            raise RuntimeError("boom")
    assert ptr not in fake_cuda.memory and cuda_memory.deferred_count() == 0


@wp.kernel
def scale_add(src: wp.array(dtype=float), tmp: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    tmp[i] = src[i] * 2.0
    out[i] = tmp[i] + src[i]


def test_graph_with_a_live_allocation_launches_again(fake_cuda) -> None:
    """An array allocated inside the capture and still referenced afterwards (NVIDIA Warp's
    test_graph_alloc): the driver refuses to relaunch such a graph unless it was instantiated to
    free its allocations on launch."""
    src = wp.array(np.arange(8, dtype=np.float32), device="cuda:0")
    out = wp.zeros(8, dtype=float, device="cuda:0")
    with wp.ScopedCapture("cuda:0") as capture:
        tmp = wp.zeros(8, dtype=float, device="cuda:0")
        wp.launch(scale_add, 8, inputs=[src, tmp, out], device="cuda:0")
    for _ in range(3):
        out.zero_()
        wp.capture_launch(capture.graph)
        np.testing.assert_array_equal(out.numpy(), np.arange(8, dtype=np.float32) * 3.0)
    del tmp
    assert not fake_cuda.violations
