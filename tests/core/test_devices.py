"""Tests for warp.runtime.devices: the cpu device, CUDA discovery and the default device."""

from __future__ import annotations

import pytest

import warp as wp
from warp.runtime import devices
from warp.targets.cuda import ptx
from warp.runtime.devices import (
    Device,
    ScopedDevice,
    get_cuda_device_count,
    get_cuda_devices,
    get_device,
    get_devices,
    get_preferred_device,
    is_cuda_available,
    set_device,
    synchronize,
)


@pytest.fixture(autouse=True)
def _restore_default_device():
    saved = devices._default_device
    yield
    devices._default_device = saved


def test_cpu_device_attributes():
    cpu = get_device("cpu")
    assert isinstance(cpu, Device)
    assert cpu.alias == "cpu"
    assert str(cpu) == "cpu"
    assert cpu.is_cpu and not cpu.is_cuda
    assert cpu.ordinal == -1
    assert get_device(cpu) is cpu
    assert get_device("cpu") is cpu


def test_cpu_free_memory_is_the_hosts_available_memory():
    """As in NVIDIA Warp (whose tests skip memory-hungry cases by it), the CPU's ``free_memory``
    is the host memory available to new allocations: positive, at most the physical memory,
    and on Linux the kernel's ``MemAvailable`` (read here at about the same moment)."""
    cpu = get_device("cpu")
    free = cpu.free_memory
    assert 0 < free <= cpu.total_memory
    try:
        with open("/proc/meminfo") as f:
            fields = dict(line.split(":", 1) for line in f)
    except OSError:
        return
    available = int(fields["MemAvailable"].split()[0]) * 1024
    assert abs(free - available) < 0.05 * cpu.total_memory


def test_device_equality_and_hash():
    cpu = get_device("cpu")
    assert cpu == "cpu"
    assert not (cpu != "cpu")
    assert cpu != "cuda:0"
    assert cpu == Device("cpu")
    assert hash(cpu) == hash(Device("cpu"))
    assert Device("cuda:0", 0) == "cuda"
    assert Device("cuda:0", 0) == "cuda:0"
    assert Device("cuda:1", 1) != "cuda"
    assert cpu != 3


def test_default_device_is_cuda0_where_present_else_cpu():
    # this host as it is (the conftest's cpu scope aside): cuda:0 on a GPU host, else cpu
    expected = "cuda:0" if get_cuda_device_count() > 0 else "cpu"
    assert get_preferred_device() == expected
    set_device(None)
    assert get_device() == expected


def test_default_device_is_cpu_without_cuda_devices(monkeypatch):
    monkeypatch.setattr(devices, "_cuda_count", 0)
    monkeypatch.setattr(devices, "_cuda_devices", [])
    set_device(None)
    assert get_preferred_device() is get_device("cpu")
    assert get_device() is get_device("cpu")
    assert not is_cuda_available() and get_cuda_devices() == []


def test_default_device_is_cpu_until_the_cuda_runtime_is_ready(monkeypatch):
    gpu = Device("cuda:0", 0, "Some GPU")
    monkeypatch.setattr(devices, "_cuda_count", 1)
    monkeypatch.setattr(devices, "_cuda_devices", [gpu])
    set_device(None)
    monkeypatch.setattr(devices, "_cuda_runtime_ready", False)
    assert get_device() is get_device("cpu")
    monkeypatch.setattr(devices, "_cuda_runtime_ready", True)
    assert get_preferred_device() is gpu
    assert get_device() is gpu


def test_set_device():
    set_device("cpu")
    assert get_device() is get_device("cpu")
    set_device(None)
    assert get_device() == get_preferred_device()


def test_scoped_device_restores_previous():
    before = get_device()
    with ScopedDevice("cpu") as d:
        assert d == "cpu"
        assert get_device() == "cpu"
    assert get_device() is before


def test_scoped_device_restores_on_exception():
    before = get_device()
    with pytest.raises(KeyError):
        with ScopedDevice("cpu"):
            raise KeyError("boom")
    assert get_device() is before


def test_get_devices_starts_with_cpu():
    devs = get_devices()
    assert devs[0] == "cpu"
    assert len(devs) == 1 + get_cuda_device_count()
    assert all(d.is_cuda for d in get_cuda_devices())


def test_cuda_device_count_is_cached_and_consistent():
    n = get_cuda_device_count()
    assert n >= 0
    assert get_cuda_device_count() == n
    assert is_cuda_available() == (n > 0)
    assert len(get_cuda_devices()) == n


@pytest.mark.skipif(is_cuda_available(), reason="machine has a CUDA device")
def test_no_cuda_on_this_machine():
    assert get_cuda_device_count() == 0
    assert get_cuda_devices() == []
    assert not is_cuda_available()


@pytest.mark.skipif(is_cuda_available(), reason="machine has a CUDA device")
@pytest.mark.parametrize("ident,alias", [("cuda", "cuda:0"), ("cuda:0", "cuda:0"), ("cuda:1", "cuda:1")])
def test_cuda_unavailable_error(ident, alias):
    with pytest.raises(RuntimeError, match=f"CUDA device '{alias}' requested but CUDA is not available"):
        get_device(ident)
    with pytest.raises(RuntimeError, match="CUDA driver not available"):
        ScopedDevice(ident)


@pytest.mark.skipif(not is_cuda_available(), reason="requires CUDA")
def test_cuda_devices_when_available():
    d = get_device("cuda")
    assert d.is_cuda and d.ordinal == 0 and d == "cuda:0"
    assert get_device("cuda:0") is d
    with pytest.raises(RuntimeError, match="only"):
        get_device(f"cuda:{get_cuda_device_count()}")


def test_invalid_identifiers():
    with pytest.raises(ValueError, match="invalid device identifier 'gpu'"):
        get_device("gpu")
    with pytest.raises(ValueError, match="invalid device identifier 'cuda:x'"):
        get_device("cuda:x")
    with pytest.raises(TypeError, match="invalid device identifier"):
        get_device(0)


def test_query_failure_gives_zero(monkeypatch):
    import sys

    from warp.targets.cuda import driver

    # forget a driver this process already initialized (a GPU host): the query must import again
    monkeypatch.setattr(driver, "_cu", None)
    monkeypatch.setattr(driver, "_failure", None)
    monkeypatch.setitem(sys.modules, "cuda", None)
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    assert devices._query_cuda_device_count() == 0
    assert "cuda-python is not installed" in driver.unavailable_reason()


def test_driver_init_failure_gives_zero(monkeypatch):
    import types

    from warp.targets.cuda import driver

    failing = types.SimpleNamespace(
        cuInit=lambda flags: (100,), cuGetErrorName=lambda err: (0, b"CUDA_ERROR_NO_DEVICE")
    )
    monkeypatch.setattr(driver, "_cu", None)
    monkeypatch.setattr(driver, "_failure", None)
    monkeypatch.setattr(driver, "_import_bindings", lambda: failing)
    assert devices._query_cuda_device_count() == 0
    assert driver.unavailable_reason() == "CUDA driver not available: cuInit failed with CUDA_ERROR_NO_DEVICE"


def test_synchronize_is_noop():
    assert synchronize() is None
    devices.synchronize_device("cpu")


def test_cuda_supported_archs_are_the_sms_ptx_is_generated_for():
    archs = wp.get_cuda_supported_archs()
    assert archs == sorted(set(archs)) and all(isinstance(a, int) for a in archs)
    assert {75, 80, 86, 90} <= set(archs)
    for arch in (archs[0], 90, archs[-1]):  # the target machine of each emits PTX for that SM
        sm, version = ptx.choose_target((arch // 10, arch % 10), 13000)  # a PTX version the SM accepts
        assert sm == arch
        asm = ptx.target_machine(sm, version).emit_assembly(
            ptx.llvm.parse_assembly(f'target triple = "{ptx.TRIPLE}"\n')
        )
        assert f".target sm_{arch}" in asm


def test_cuda_device_queries_without_cuda(monkeypatch):
    if is_cuda_available():
        pytest.skip("a CUDA device is present")
    assert wp.get_cuda_driver_version() is None or isinstance(wp.get_cuda_driver_version(), tuple)
    with pytest.raises(RuntimeError, match="CUDA"):
        wp.get_cuda_device()


def test_get_cuda_device_by_ordinal_and_current(fake_cuda):
    assert wp.get_cuda_device(1) is wp.get_device("cuda:1")
    assert wp.get_cuda_device() is wp.get_device("cuda:0")  # the default device is cuda:0
    with wp.ScopedDevice("cuda:1"):
        assert wp.get_cuda_device() is wp.get_device("cuda:1")
    with wp.ScopedDevice("cpu"):
        assert wp.get_cuda_device() is wp.get_device("cuda:0")  # not a CUDA device: cuda:0
    with pytest.raises(RuntimeError, match=r"there is no CUDA device 2 \(2 CUDA device\(s\) present\)"):
        wp.get_cuda_device(2)
    with pytest.raises(TypeError, match="ordinal must be an int or None, got str"):
        wp.get_cuda_device("cuda:0")


def test_get_cuda_device_without_cuda(monkeypatch):
    monkeypatch.setattr(devices, "_cuda_count", 0)
    with pytest.raises(RuntimeError, match=r"there is no CUDA device 0 \(0 CUDA device\(s\) present\)"):
        wp.get_cuda_device(0)
