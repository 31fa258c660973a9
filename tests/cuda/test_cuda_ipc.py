"""Inter-process handles on the CUDA stand-in (one process plays both sides): arrays shared
through ``array.ipc_handle()``/``wp.from_ipc_handle`` and events through
``Event.ipc_handle()``/``wp.event_from_ipc_handle``."""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import warp as wp


@wp.kernel
def twice(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = 2.0 * a[i]


def test_ipc_support() -> None:
    assert wp.get_device("cpu").is_ipc_supported is False


def test_ipc_support_on_cuda(fake_cuda) -> None:
    assert wp.get_device("cuda:0").is_ipc_supported == sys.platform.startswith("linux")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="CUDA IPC is Linux-only")
def test_array_shared_through_a_handle(fake_cuda) -> None:
    with wp.ScopedMempool("cuda:0", False):
        a = wp.full(16, value=21.0, dtype=wp.float32, device="cuda:0")
    handle = a.ipc_handle()
    assert isinstance(handle, bytes) and len(handle) == 64 and handle != bytes(64)
    b = wp.from_ipc_handle(handle, wp.float32, a.shape, device="cuda:0")
    assert b.ptr == a.ptr and b.dtype == wp.float32 and b.shape == (16,)
    wp.launch(twice, dim=16, inputs=[b], device="cuda:0")
    np.testing.assert_array_equal(a.numpy(), np.full(16, 42.0))
    del b
    gc.collect()
    assert fake_cuda.ipc_mapped[a.ptr] == 0  # unmapped with the array


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="CUDA IPC is Linux-only")
def test_ipc_handle_errors(fake_cuda) -> None:
    pooled = wp.zeros(4, dtype=float, device="cuda:0")
    with pytest.raises(RuntimeError, match=r"memory pool of 'cuda:0'.*ScopedMempool\(device, False\)"):
        pooled.ipc_handle()
    with wp.ScopedMempool("cuda:0", False):
        a = wp.zeros(4, dtype=float, device="cuda:0")
    with pytest.raises(RuntimeError, match="not a view with an offset"):
        a[1:].ipc_handle()
    with pytest.raises(RuntimeError, match="IPC handles are for CUDA devices, got 'cpu'"):
        wp.zeros(4, dtype=float, device="cpu").ipc_handle()
    with pytest.raises(ValueError, match="an IPC handle is 64 bytes, got bytes of length 3"):
        wp.from_ipc_handle(b"abc", wp.float32, 4, device="cuda:0")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="CUDA IPC is Linux-only")
def test_event_shared_through_a_handle(fake_cuda) -> None:
    e = wp.Event("cuda:0", interprocess=True)
    handle = e.ipc_handle()
    assert len(handle) == 64 and handle != bytes(64)
    other = wp.event_from_ipc_handle(handle, device="cuda:0")
    assert other.device == "cuda:0" and other.cuda_event != e.cuda_event
    wp.get_stream("cuda:0").record_event(other)
    wp.get_stream("cuda:0").wait_event(other)
    assert fake_cuda.events[e.cuda_event]["recorded"]  # the same event underneath
    with pytest.raises(RuntimeError, match="not created with interprocess=True"):
        wp.Event("cuda:0").ipc_handle()
