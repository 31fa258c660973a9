"""``fake_cuda``: run the CUDA runtime's Python code against :mod:`fake_driver` (no GPU needed).

Two fake devices (``cuda:0``, ``cuda:1``) appear; kernels compile to PTX as for a real device and
launch through ``cuLaunchKernel``; the fake runs the kernel's CPU build on the argument buffer it
was given. A fresh kernel cache makes every kernel compile (so its CPU build is registered).
"""

from __future__ import annotations

import gc

import pytest

import warp as wp


#: the fake devices and driver, kept across tests: compiled kernels and launchers remember device
#: objects and function handles
_FAKE_DEVICES: list = []
_FAKE: list = []


class CpuEntries:
    """Symbol -> CPU entry of the same kernel part, filled while kernels compile for CUDA."""

    def __init__(self) -> None:
        self.entries: dict[str, object] = {}
        self.keep: list[object] = []

    def __call__(self, symbol: str):
        return self.entries[symbol]


@pytest.fixture
def fake_cuda(monkeypatch, tmp_path):
    pytest.importorskip("cuda.bindings")
    from fake_driver import FakeDriver

    import warp.compiler.pipeline as pipeline
    from warp.targets.cuda import context, driver, peer, streams
    from warp.runtime import devices
    from warp.targets import registry as targets
    from warp.targets.cpu.target import CpuTarget
    from warp.targets.cuda.target import CudaTarget

    if not _FAKE:
        _FAKE.append(FakeDriver(device_count=2, resolve_entry=CpuEntries()))
    fake = _FAKE[0]
    fake.reset()
    entries = fake.resolve_entry
    original_compile = pipeline.compile_kernel
    cpu = CpuTarget()
    cpu.contiguous_entry = False  # the entries (and error sites) the CUDA build has

    def compile_kernel(kernel, options, target, device=None, store=None):
        result = original_compile(kernel, options, target, device, store)
        if isinstance(options.target, CudaTarget):
            cpu_object = original_compile(kernel, options.replace(target=cpu), cpu, None)
            symbols = list(cpu_object.meta["entries"].values())
            loaded = cpu.load(cpu_object.obj, symbols, name="fake", device=wp.get_device("cpu"))
            entries.keep.append(loaded)
            for symbol in symbols:
                entries.entries[symbol] = loaded.entry(symbol).fn
        return result

    monkeypatch.setattr(pipeline, "compile_kernel", compile_kernel)
    monkeypatch.setattr(wp.config, "kernel_cache_dir", str(tmp_path / "cache"))
    monkeypatch.setattr(driver, "_cu", fake)
    monkeypatch.setattr(driver, "_failure", None)
    if not _FAKE_DEVICES:
        _FAKE_DEVICES.extend(devices.Device(f"cuda:{i}", i, f"Fake GPU {i}") for i in range(2))
    monkeypatch.setattr(devices, "_cuda_count", 2)
    monkeypatch.setattr(devices, "_cuda_devices", list(_FAKE_DEVICES))
    monkeypatch.setattr(devices, "_default_device", None)
    monkeypatch.setattr(context, "_infos", {})
    monkeypatch.setattr(streams, "_current", {})
    monkeypatch.setattr(peer, "_peer_enabled", set())
    monkeypatch.setattr(targets, "_instances", {k: v for k, v in targets._instances.items() if k != "cuda"})
    context.forget_current()
    yield fake
    gc.collect()  # free fake allocations while the fake driver is still installed
    context.forget_current()
