"""Compile-time savings of the CUDA backend: one entry per kernel, libdevice subsets kept on disk."""

from __future__ import annotations

import re

import pytest
from ptxas_util import cuda_compile, needs_ptxas, ptxas_check

import warp as wp
from warp.targets.cuda import ptx
from warp.runtime.cache import KernelCache


@wp.kernel
def scale(a: wp.array2d(dtype=float), s: float):
    i, j = wp.tid()
    a[i, j] = a[i, j] * s


@wp.kernel
def trig(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = wp.sin(x[i]) * wp.cos(x[i]) + wp.exp(x[i])


def _math_ir() -> str:
    return (
        'declare float @__nv_sinf(float)\n'
        'define ptx_kernel void @k(ptr %p) {\n'
        '  %x = load float, ptr %p\n'
        '  %y = call float @__nv_sinf(float %x)\n'
        '  store float %y, ptr %p\n'
        '  ret void\n'
        '}\n'
    )


class DictStore:
    """An in-memory stand-in for the kernel cache (same get/put API)."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[bytes, dict]] = {}
        self.gets = 0

    def get(self, key: str):
        self.gets += 1
        return self.entries.get(key)

    def put(self, key: str, obj: bytes, meta: dict) -> None:
        self.entries[key] = (bytes(obj), dict(meta))


@needs_ptxas
def test_one_strided_entry_serves_every_launch() -> None:
    text, meta = cuda_compile(scale)
    assert meta["entries"]["contiguous"] == meta["entries"]["strided"]
    assert meta["entries"]["strided"].endswith("_entry_s")
    assert len(re.findall(r"^\.visible \.entry ", text, re.M)) == 1
    ptxas_check(text)


def test_libdevice_subset_is_stored_and_reused(monkeypatch) -> None:
    try:
        ptx.libdevice_path()
    except RuntimeError:
        pytest.skip("libdevice not installed")
    store = DictStore()
    monkeypatch.setattr(ptx, "_subsets", {})
    first = ptx.compile_ptx(_math_ir(), kernels=["k"], name="m", libdevice_store=store)
    assert len(store.entries) == 1
    ((key, (bitcode, info)),) = store.entries.items()
    layout = str(ptx.target_machine().target_data)
    assert info["functions"] == ["__nv_sinf"] and bitcode[:2] == b"BC"
    assert key == ptx._subset_key(frozenset({"__nv_sinf"}), layout)
    # a new process (empty in-memory memo) takes the subset from the store without parsing libdevice
    monkeypatch.setattr(ptx, "_subsets", {})

    def no_trim(*args):
        raise AssertionError("libdevice was parsed although the store holds the subset")

    monkeypatch.setattr(ptx, "_trim_libdevice", no_trim)
    second = ptx.compile_ptx(_math_ir(), kernels=["k"], name="m", libdevice_store=store)
    assert second == first and ".extern" not in first  # sinf was linked (and inlined)
    # the key covers the functions and the data layout
    assert ptx._subset_key(frozenset({"__nv_cosf"}), layout) != key
    assert ptx._subset_key(frozenset({"__nv_sinf"}), layout + "-x") != key


def test_damaged_stored_subset_is_rebuilt(monkeypatch) -> None:
    try:
        ptx.libdevice_path()
    except RuntimeError:
        pytest.skip("libdevice not installed")
    store = DictStore()
    layout = str(ptx.target_machine().target_data)
    store.put(ptx._subset_key(frozenset({"__nv_sinf"}), layout), b"not bitcode", {})
    monkeypatch.setattr(ptx, "_subsets", {})
    text = ptx.compile_ptx(_math_ir(), kernels=["k"], name="m", libdevice_store=store)
    ((stored, _),) = store.entries.values()
    assert stored[:2] == b"BC"  # replaced by good bitcode
    monkeypatch.setattr(ptx, "_subsets", {})
    assert text == ptx.compile_ptx(_math_ir(), kernels=["k"], name="m") and ".extern" not in text


@needs_ptxas
def test_cuda_backend_keeps_libdevice_in_the_kernel_cache(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(wp.config, "kernel_cache_dir", str(tmp_path))
    monkeypatch.setattr(ptx, "_subsets", {})
    text, _ = cuda_compile(trig)
    ptxas_check(text)
    cache = KernelCache(str(tmp_path))
    stored = [cache.get(k) for k in cache.keys()]
    assert any(meta.get("functions") == ["__nv_cosf", "__nv_expf", "__nv_sinf"] for _, meta in stored)
