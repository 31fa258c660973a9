"""Streams, events, synchronization, graph capture and peer access on (fake) CUDA devices."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def test_streams_and_current_stream(fake_cuda) -> None:
    s0 = wp.get_stream("cuda:0")
    assert wp.get_stream() is s0 and wp.get_device("cuda:0").stream is s0
    s = wp.Stream("cuda:0")
    assert s != s0 and s.device == "cuda:0" and s.cuda_stream != s0.cuda_stream
    with wp.ScopedStream(s):
        assert wp.get_stream("cuda:0") is s and wp.get_device() == "cuda:0"
    assert wp.get_stream("cuda:0") is s0
    # sync_enter: the new stream waits for the old one (an event recorded on s0, waited on by s)
    assert any(c.startswith("record") and c.endswith(str(s0.cuda_stream)) for c in fake_cuda.calls)
    assert any(c.startswith(f"wait {s.cuda_stream} ") for c in fake_cuda.calls)
    wp.set_stream(s, device="cuda:0")
    assert wp.get_stream() is s
    with wp.ScopedDevice("cuda:1"):
        assert wp.get_stream().device == "cuda:1"


def test_events_and_waits(fake_cuda) -> None:
    s1, s2 = wp.Stream("cuda:0"), wp.Stream("cuda:0")
    e = s1.record_event()
    assert isinstance(e, wp.Event) and e.is_complete
    s2.wait_event(e)
    assert f"wait {s2.cuda_stream} {e.cuda_event}" in fake_cuda.calls
    t0, t1 = wp.Event("cuda:0", enable_timing=True), wp.Event("cuda:0", enable_timing=True)
    wp.record_event(t0)
    wp.record_event(t1)
    assert wp.get_event_elapsed_time(t0, t1) > 0.0
    wp.wait_event(e)
    wp.wait_stream(s1)
    wp.synchronize_event(e)
    wp.synchronize_stream(s1)
    wp.synchronize_stream("cuda:0")
    wp.synchronize_device("cuda:0")
    wp.synchronize()
    assert "cuCtxSynchronize" in fake_cuda.calls
    with pytest.raises(RuntimeError, match="cannot be recorded on a stream of 'cuda:1'"):
        wp.Stream("cuda:1").record_event(e)


def test_streams_need_cuda_devices(fake_cuda) -> None:
    with pytest.raises(RuntimeError, match="'cpu' is not a CUDA device"):
        wp.Stream("cpu")
    with pytest.raises(RuntimeError, match="'cpu' is not a CUDA device"):
        wp.get_stream("cpu")
    # CPU launches accept stream=None
    a = wp.zeros(3, dtype=float, device="cpu")
    wp.launch(add_one, dim=3, inputs=[a], device="cpu", stream=None)
    assert list(a.numpy()) == [1, 1, 1]


def test_graph_capture_and_replay(fake_cuda) -> None:
    a = wp.zeros(8, dtype=float, device="cuda:0")
    wp.launch(add_one, dim=8, inputs=[a], device="cuda:0")  # loads the kernel before capturing
    wp.capture_begin("cuda:0")
    assert wp.get_device("cuda:0").is_capturing
    wp.launch(add_one, dim=8, inputs=[a], device="cuda:0")
    wp.launch(add_one, dim=8, inputs=[a], device="cuda:0")
    graph = wp.capture_end("cuda:0")
    assert not wp.get_device("cuda:0").is_capturing
    np.testing.assert_array_equal(a.numpy(), np.full(8, 1.0))  # captured work did not run
    wp.capture_launch(graph)
    np.testing.assert_array_equal(a.numpy(), np.full(8, 3.0))
    wp.capture_launch(graph)
    np.testing.assert_array_equal(a.numpy(), np.full(8, 5.0))
    with wp.ScopedCapture("cuda:0") as capture:
        wp.launch(add_one, dim=8, inputs=[a], device="cuda:0")
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), np.full(8, 6.0))
    with pytest.raises(RuntimeError, match="no graph capture is active"):
        wp.capture_end("cuda:0")
    with pytest.raises(TypeError, match="expects a Graph"):
        wp.capture_launch("not a graph")


def test_peer_access(fake_cuda) -> None:
    assert wp.is_peer_access_supported("cuda:0", "cuda:1")
    assert not wp.is_peer_access_enabled("cuda:0", "cuda:1")
    wp.set_peer_access_enabled("cuda:0", "cuda:1", True)
    assert wp.is_peer_access_enabled("cuda:0", "cuda:1")
    wp.set_peer_access_enabled("cuda:0", "cuda:1", True)  # enabling twice is fine
    wp.set_peer_access_enabled("cuda:0", "cuda:1", False)
    assert not wp.is_peer_access_enabled("cuda:0", "cuda:1")
    assert not wp.is_peer_access_supported("cpu", "cuda:0")
    assert wp.is_mempool_access_supported("cuda:0", "cuda:1")
    assert not wp.is_mempool_access_enabled("cuda:0", "cuda:1")
    wp.set_mempool_access_enabled("cuda:0", "cuda:1", True)
    assert wp.is_mempool_access_enabled("cuda:0", "cuda:1")
    wp.set_mempool_access_enabled("cuda:0", "cuda:1", False)
    assert not wp.is_mempool_access_enabled("cuda:0", "cuda:1")


def test_peer_and_mempool_access_with_the_cpu(fake_cuda) -> None:
    """Enabling access between the CPU and a CUDA device is a ValueError (as in NVIDIA Warp);
    querying gives False and disabling is a no-op."""
    for target, peer in (("cpu", "cuda:0"), ("cuda:0", "cpu")):
        assert not wp.is_peer_access_enabled(target, peer)
        assert not wp.is_mempool_access_enabled(target, peer)
        with pytest.raises(ValueError, match="peer access between .* needs two CUDA devices"):
            wp.set_peer_access_enabled(target, peer, True)
        with pytest.raises(ValueError, match="memory pool access between .* needs two CUDA devices"):
            wp.set_mempool_access_enabled(target, peer, True)
        wp.set_peer_access_enabled(target, peer, False)
        wp.set_mempool_access_enabled(target, peer, False)


def test_without_a_driver_cuda_is_reported_and_cpu_works(monkeypatch) -> None:
    from warp.targets.cuda import driver
    from warp.runtime import devices

    monkeypatch.setattr(driver, "_cu", None)
    monkeypatch.setattr(driver, "_failure", "CUDA driver not available: libcuda.so not found")
    monkeypatch.setattr(devices, "_cuda_count", None)
    monkeypatch.setattr(devices, "_cuda_devices", None)
    monkeypatch.setattr(devices, "_default_device", None)
    assert wp.get_cuda_device_count() == 0 and wp.get_device() == "cpu"
    with pytest.raises(RuntimeError, match="CUDA driver not available: libcuda.so not found"):
        wp.zeros(2, device="cuda:0")
    with pytest.raises(driver.CudaUnavailableError, match="CUDA driver not available"):
        driver.driver()
    a = wp.zeros(2, dtype=float)
    wp.launch(add_one, dim=2, inputs=[a])
    assert list(a.numpy()) == [1, 1]
    assert not wp.zeros(2, pinned=True).pinned  # pinned memory needs CUDA; plain memory otherwise


def test_check_raises_named_errors(fake_cuda) -> None:
    from warp.targets.cuda import driver

    with pytest.raises(
        driver.CudaError, match=r"CUDA error in cuDeviceGet: CUDA_ERROR_INVALID_DEVICE \(101\)"
    ):
        driver.call("cuDeviceGet", 7)


def test_stream_is_capturing(fake_cuda) -> None:
    s, other = wp.get_stream("cuda:0"), wp.Stream("cuda:0")
    assert not s.is_capturing and not other.is_capturing
    with wp.ScopedDevice("cuda:0"):
        wp.capture_begin()
        try:
            assert s.is_capturing and not other.is_capturing
        finally:
            wp.capture_end()
    assert not s.is_capturing
