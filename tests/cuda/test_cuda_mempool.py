"""Memory pool queries and settings (``wp.get/set_mempool_release_threshold``,
``wp.get_mempool_used_mem_current/high``, ``wp.ScopedMempool``/``ScopedMempoolAccess``) on the
CUDA stand-in, whose pool counts the bytes its stream-ordered allocations hold."""

from __future__ import annotations

import gc

import pytest

import warp as wp


def test_release_threshold(fake_cuda) -> None:
    device = wp.get_device("cuda:0")
    assert wp.get_mempool_release_threshold(device) == 2**64 - 1  # warp keeps freed memory cached
    wp.set_mempool_release_threshold(device, 42000)
    assert wp.get_mempool_release_threshold("cuda:0") == 42000
    wp.set_mempool_release_threshold(device, 0.5)
    assert wp.get_mempool_release_threshold(device) == int(0.5 * device.total_memory) == 40 * 2**30
    with pytest.raises(ValueError, match=r"fractional threshold must be within \[0, 1\], got 1.5"):
        wp.set_mempool_release_threshold(device, 1.5)
    with pytest.raises(ValueError, match="must be non-negative, got -1"):
        wp.set_mempool_release_threshold(device, -1)
    with pytest.raises(TypeError, match="got str"):
        wp.set_mempool_release_threshold(device, "1")


def test_usage_follows_allocations(fake_cuda) -> None:
    gc.collect()
    before = wp.get_mempool_used_mem_current("cuda:0")
    a = wp.empty(262144, dtype=wp.float32, device="cuda:0")
    during = wp.get_mempool_used_mem_current("cuda:0")
    assert isinstance(during, int) and during - before == 262144 * 4
    high = wp.get_mempool_used_mem_high("cuda:0")
    assert high >= during
    del a
    gc.collect()
    assert wp.get_mempool_used_mem_current("cuda:0") == before
    assert wp.get_mempool_used_mem_high("cuda:0") == high


def test_cpu_and_poolless_devices(fake_cuda, monkeypatch) -> None:
    for call in (
        lambda: wp.get_mempool_release_threshold("cpu"),
        lambda: wp.set_mempool_release_threshold("cpu", 42000),
        lambda: wp.get_mempool_used_mem_current("cpu"),
        lambda: wp.get_mempool_used_mem_high("cpu"),
        lambda: wp.set_mempool_enabled("cpu", True),
        lambda: wp.set_mempool_access_enabled("cpu", "cuda:0", True),
        lambda: wp.set_mempool_access_enabled("cuda:0", "cpu", True),
    ):
        with pytest.raises(ValueError, match="'cpu'"):
            call()
    wp.set_mempool_enabled("cpu", False)
    wp.set_mempool_access_enabled("cpu", "cuda:0", False)
    monkeypatch.setattr(wp.get_device("cuda:1")._info(), "is_mempool_supported", False)
    with pytest.raises(RuntimeError, match="device 'cuda:1' does not support memory pools"):
        wp.get_mempool_release_threshold("cuda:1")


def test_scoped_switches_restore(fake_cuda) -> None:
    assert wp.is_mempool_enabled("cuda:0")
    with wp.ScopedMempool("cuda:0", False):
        assert not wp.is_mempool_enabled("cuda:0")
    assert wp.is_mempool_enabled("cuda:0")
    assert not wp.is_mempool_access_enabled("cuda:0", "cuda:1")
    with wp.ScopedMempoolAccess("cuda:0", "cuda:1", True):
        assert wp.is_mempool_access_enabled("cuda:0", "cuda:1")
    assert not wp.is_mempool_access_enabled("cuda:0", "cuda:1")
