"""wp.array on CUDA devices through the driver layer (fake driver: device memory is host memory)."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


def test_default_device_is_cuda0_when_present(fake_cuda) -> None:
    assert wp.get_cuda_device_count() == 2
    assert wp.get_device() == "cuda:0"
    assert [str(d) for d in wp.get_cuda_devices()] == ["cuda:0", "cuda:1"]
    with wp.ScopedDevice("cpu"):
        assert wp.get_device() == "cpu"
    assert wp.get_device("cuda") == "cuda:0"


def test_device_properties(fake_cuda) -> None:
    d = wp.get_device("cuda:1")
    assert d.name == "Fake GPU 1"
    assert d.arch == 90 and d.sm_count == 132 and d.total_memory == 80 * 2**30
    assert d.is_uva and d.is_mempool_supported and d.is_primary_context
    assert d.pci_bus_id == "0000:02:00.0"
    assert d.free_memory == 70 * 2**30
    cpu = wp.get_device("cpu")
    assert cpu.arch == 0 and not cpu.is_uva and cpu.pci_bus_id == ""
    # the driver's opt-in limit (the fake driver reports an H100's 227 KiB); none on the CPU
    assert d.max_shared_memory_per_block == 227 * 1024
    assert cpu.max_shared_memory_per_block == 0


@pytest.mark.parametrize("dtype", [wp.float32, wp.int64, wp.vec3, wp.mat22, wp.uint8])
def test_roundtrip_zeros_full_array(fake_cuda, dtype) -> None:
    a = wp.zeros(5, dtype=dtype, device="cuda:0")
    assert a.device == "cuda:0"
    assert np.all(a.numpy() == 0)
    a.fill_(dtype(3) if dtype in (wp.vec3, wp.mat22) else 3)
    assert np.all(a.numpy() == 3)
    src = np.arange(5 * np.prod(wp.zeros(1, dtype=dtype, device="cpu").numpy().shape[1:], dtype=int))
    host = src.reshape(wp.zeros(5, dtype=dtype, device="cpu").numpy().shape).astype(
        wp.zeros(1, dtype=dtype, device="cpu").numpy().dtype
    )
    b = wp.array(host, dtype=dtype, device="cuda:1")
    assert b.device == "cuda:1"
    np.testing.assert_array_equal(b.numpy(), host)
    # the numpy copy is a copy: changing it does not change the device array
    view = b.numpy()
    view[...] = 0
    np.testing.assert_array_equal(b.numpy(), host)


def test_fill_patterns_of_every_size(fake_cuda) -> None:
    for dtype, value in [
        (wp.uint8, 7),
        (wp.float16, 1.5),
        (wp.float32, -2.25),
        (wp.float64, 3.5),
        (wp.vec3, wp.vec3(1.0, 2.0, 3.0)),
        (wp.vec2d, wp.vec2d(4.0, 4.0)),
    ]:
        a = wp.full(7, value, dtype=dtype, device="cuda:0")
        expected = wp.full(7, value, dtype=dtype, device="cpu").numpy()
        np.testing.assert_array_equal(a.numpy(), expected)
    assert {"cuMemAllocAsync"} <= set(fake_cuda.calls)


def test_copy_to_across_devices(fake_cuda) -> None:
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = wp.array(host, device="cuda:0")
    b = a.to("cuda:1")
    c = b.to("cpu")
    assert b.device == "cuda:1" and c.device == "cpu"
    np.testing.assert_array_equal(c.numpy(), host)
    d = wp.zeros((3, 4), dtype=float, device="cuda:1")
    wp.copy(d, a)
    np.testing.assert_array_equal(d.numpy(), host)
    e = wp.zeros(12, dtype=float, device="cuda:0")
    wp.copy(e, wp.array(host.reshape(-1), device="cpu"), dest_offset=2, src_offset=4, count=5)
    np.testing.assert_array_equal(e.numpy(), [0, 0, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0])


def test_views_strides_assign_setitem(fake_cuda) -> None:
    host = np.arange(20, dtype=np.float32).reshape(4, 5)
    a = wp.array(host, device="cuda:0")
    t = a.transpose()
    assert not t.is_contiguous
    np.testing.assert_array_equal(t.numpy(), host.T)
    col = a[:, 1]
    np.testing.assert_array_equal(col.numpy(), host[:, 1])
    col.fill_(-1.0)
    expected = host.copy()
    expected[:, 1] = -1.0
    np.testing.assert_array_equal(a.numpy(), expected)
    a[2, 3] = 100.0
    expected[2, 3] = 100.0
    assert a[2, 3] == 100.0
    np.testing.assert_array_equal(a.numpy(), expected)
    t.zero_()
    np.testing.assert_array_equal(a.numpy(), np.zeros_like(host))
    a.assign(host * 2)
    np.testing.assert_array_equal(a.numpy(), host * 2)
    row = a[1]
    row.assign(np.ones(5, dtype=np.float32))
    expected = host * 2
    expected[1] = 1
    np.testing.assert_array_equal(a.numpy(), expected)


def test_pinned_host_arrays(fake_cuda) -> None:
    p = wp.zeros(8, dtype=float, device="cpu", pinned=True)
    assert p.pinned and p.device == "cpu"
    assert int(p.ptr) in fake_cuda.memory and fake_cuda.memory[int(p.ptr)][1] == "host"
    p.numpy()[...] = np.arange(8)
    g = p.to("cuda:0")
    np.testing.assert_array_equal(g.numpy(), np.arange(8))
    q = wp.array(np.ones(3), dtype=float, device="cpu", pinned=True)
    assert q.pinned and list(q.numpy()) == [1, 1, 1]
    assert not wp.zeros(3, device="cpu").pinned


def test_cuda_array_interface(fake_cuda) -> None:
    a = wp.zeros((2, 3), dtype=wp.vec3, device="cuda:0")
    iface = a.__cuda_array_interface__
    assert iface["data"][0] == a.ptr
    assert iface["shape"] == (2, 3, 3)
    with pytest.raises(AttributeError):
        _ = wp.zeros(2, device="cpu").__cuda_array_interface__


def test_memory_is_freed_with_the_array(fake_cuda) -> None:
    import gc

    a = wp.zeros(1000, dtype=float, device="cuda:0")
    ptr = a.ptr
    assert ptr in fake_cuda.memory
    del a
    gc.collect()
    assert ptr not in fake_cuda.memory and ptr in fake_cuda.freed


def test_mempool_switch(fake_cuda) -> None:
    assert wp.is_mempool_supported("cuda:0") and wp.is_mempool_enabled("cuda:0")
    assert wp.get_device("cuda:0").is_mempool_enabled
    wp.set_mempool_enabled("cuda:0", False)
    assert not wp.get_device("cuda:0").is_mempool_enabled and not wp.is_mempool_enabled("cuda:0")
    assert not wp.get_device("cpu").is_mempool_enabled
    fake_cuda.calls.clear()
    wp.empty(4, device="cuda:0")
    assert fake_cuda.calls.count("cuMemAlloc") == 1 and "cuMemAllocAsync" not in fake_cuda.calls
    assert not wp.is_mempool_supported("cpu")


def test_cuda_device_queries(fake_cuda) -> None:
    assert wp.get_cuda_device() == "cuda:0"
    assert wp.get_cuda_device(1) == "cuda:1"
    with wp.ScopedDevice("cuda:1"):
        assert wp.get_cuda_device() == "cuda:1"
    with wp.ScopedDevice("cpu"):
        assert wp.get_cuda_device() == "cuda:0"
    with pytest.raises(TypeError, match="ordinal must be an int"):
        wp.get_cuda_device("1")
    version = wp.get_cuda_driver_version()
    from warp.targets.cuda import driver

    raw = driver.driver_version()  # major * 1000 + minor * 10
    assert version == (raw // 1000, raw % 1000 // 10)
