"""Cached cubins (warp.targets.cuda.cubin): PTX is linked to a cubin once, later loads take the
cubin; damaged, foreign or refused cubins fall back to linking the PTX again. Cubins are used with
``wp.config.cuda_output = "cubin"``, or by default where the driver's JIT cache is off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import warp as wp
from warp.errors import WarpCodegenError
from warp.runtime.cache import KernelCache

pytest.importorskip("cuda.bindings")

from fake_driver import make_fake_cubin, parse_fake_cubin  # noqa: E402

from warp.targets.cuda import cubin  # noqa: E402
from warp.targets.cuda.target import load_ptx  # noqa: E402

PTX = b"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry cubin_test_entry(
    .param .u64 p
)
{
    ret;
}
"""
DEVICE = SimpleNamespace(ordinal=0)


@pytest.fixture(autouse=True)
def _cubins(monkeypatch):
    monkeypatch.setattr(wp.config, "cuda_output", "cubin")


def _image() -> bytes:
    return PTX + b"\0"


def test_first_load_links_and_stores_a_cubin_the_next_load_uses(fake_cuda, tmp_path):
    store = KernelCache(str(tmp_path))
    loaded = load_ptx(PTX, ["cubin_test_entry"], name="m", device=DEVICE, store=store)
    assert loaded.entry("cubin_test_entry").symbol == "cubin_test_entry"
    assert "cuLinkComplete" in fake_cuda.calls and "cuModuleLoadDataEx" not in fake_cuda.calls
    key = cubin.cubin_key(_image(), 90, 12040)
    image, meta = store.get(key)
    assert parse_fake_cubin(image) == (90, 12040, ["cubin_test_entry"])  # copied before cuLinkDestroy
    assert meta == {"kind": "cubin", "arch": 90, "driver": 12040, "name": "m"}
    assert fake_cuda.links == {}  # every link state destroyed

    fake_cuda.calls.clear()
    again = load_ptx(PTX, ["cubin_test_entry"], name="m", device=DEVICE, store=store)
    assert fake_cuda.calls == ["cuModuleLoadData"]
    assert fake_cuda.modules[int(again.module)] == ["cubin_test_entry"]


def test_the_key_covers_ptx_gpu_and_driver():
    keys = {
        cubin.cubin_key(_image(), 90, 12040),
        cubin.cubin_key(_image(), 80, 12040),
        cubin.cubin_key(_image(), 90, 13000),
        cubin.cubin_key(_image().replace(b"ret", b"exit"), 90, 12040),
    }
    assert len(keys) == 4 and all(len(k) == 64 for k in keys)


@pytest.mark.parametrize(
    "stored",
    [
        pytest.param(b"\x7fELF-fake-cubin\0garbage-that-passes-the-cache-checksum", id="damaged"),
        pytest.param(make_fake_cubin(80, 12040, ["cubin_test_entry"]), id="other-gpu"),
        pytest.param(make_fake_cubin(90, 99999, ["cubin_test_entry"]), id="newer-driver"),
        pytest.param(make_fake_cubin(90, 12040, ["another_entry"]), id="missing-entry"),
    ],
)
def test_a_cubin_the_driver_refuses_is_relinked_and_replaced(fake_cuda, tmp_path, stored):
    store = KernelCache(str(tmp_path))
    key = cubin.cubin_key(_image(), 90, 12040)
    store.put(key, stored, {"kind": "cubin", "arch": 90, "driver": 12040, "name": "m"})
    loaded = load_ptx(PTX, ["cubin_test_entry"], name="m", device=DEVICE, store=store)
    assert fake_cuda.modules[int(loaded.module)] == ["cubin_test_entry"]
    assert fake_cuda.calls.count("cuLinkComplete") == 1
    assert parse_fake_cubin(store.get(key)[0]) == (90, 12040, ["cubin_test_entry"])


def test_a_damaged_cache_file_is_dropped_and_relinked(fake_cuda, tmp_path):
    store = KernelCache(str(tmp_path))
    load_ptx(PTX, ["cubin_test_entry"], name="m", device=DEVICE, store=store)
    path = Path(store.path_for(cubin.cubin_key(_image(), 90, 12040)))
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF
    path.write_bytes(bytes(data))
    fake_cuda.calls.clear()
    load_ptx(PTX, ["cubin_test_entry"], name="m", device=DEVICE, store=store)
    assert fake_cuda.calls == ["cuLinkComplete", "cuModuleLoadData"]


def test_another_gpu_or_driver_gets_its_own_cubin(fake_cuda, tmp_path):
    store = KernelCache(str(tmp_path))
    load_ptx(PTX, ["cubin_test_entry"], name="m", device=DEVICE, store=store)
    fake_cuda.driver_version = 13000
    from warp.targets.cuda import context

    context._infos.clear()
    context.forget_current()
    load_ptx(PTX, ["cubin_test_entry"], name="m", device=DEVICE, store=store)
    assert fake_cuda.calls.count("cuLinkComplete") == 2
    assert parse_fake_cubin(store.get(cubin.cubin_key(_image(), 90, 13000))[0])[1] == 13000
    assert store.get(cubin.cubin_key(_image(), 90, 12040)) is not None


def test_ptx_the_linker_refuses_fails_with_the_jit_log(fake_cuda, tmp_path):
    store = KernelCache(str(tmp_path))
    with pytest.raises(WarpCodegenError, match=r"could not load the PTX of module 'bad'.*not a PTX module"):
        load_ptx(b"this is not ptx", ["e"], name="bad", device=DEVICE, store=store)
    assert store.keys() == []


def test_cuda_output_ptx_loads_the_ptx_itself(fake_cuda, tmp_path, monkeypatch):
    monkeypatch.setattr(wp.config, "cuda_output", "ptx")
    store = KernelCache(str(tmp_path))
    load_ptx(PTX, ["cubin_test_entry"], name="m", device=DEVICE, store=store)
    assert fake_cuda.calls == ["cuModuleLoadDataEx"] and store.keys() == []


@pytest.mark.parametrize(
    "output, env, expected",
    [
        ("cubin", {}, True),
        ("ptx", {"CUDA_CACHE_DISABLE": "1"}, False),
        (None, {}, False),
        (None, {"CUDA_CACHE_DISABLE": "0"}, False),
        (None, {"CUDA_CACHE_DISABLE": "1"}, True),
        (None, {"CUDA_CACHE_MAXSIZE": "0"}, True),
    ],
)
def test_cubins_by_default_only_where_the_driver_caches_no_jit_code(monkeypatch, output, env, expected):
    monkeypatch.delenv("CUDA_CACHE_DISABLE", raising=False)
    monkeypatch.delenv("CUDA_CACHE_MAXSIZE", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(wp.config, "cuda_output", output)
    assert cubin.cubins_enabled() is expected


def test_by_default_the_ptx_is_loaded_for_the_drivers_cache(fake_cuda, tmp_path, monkeypatch):
    monkeypatch.setattr(wp.config, "cuda_output", None)
    monkeypatch.delenv("CUDA_CACHE_DISABLE", raising=False)
    monkeypatch.delenv("CUDA_CACHE_MAXSIZE", raising=False)
    store = KernelCache(str(tmp_path))
    load_ptx(PTX, ["cubin_test_entry"], name="m", device=DEVICE, store=store)
    assert fake_cuda.calls == ["cuModuleLoadDataEx"] and store.keys() == []


def test_kernels_load_from_their_cubin_and_compute(fake_cuda, tmp_path, monkeypatch):
    monkeypatch.setattr(wp.config, "kernel_cache_dir", str(tmp_path))

    @wp.kernel(module="unique")
    def scale_add(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    x = np.arange(50, dtype=np.float32)
    xs, ys = wp.array(x, device="cuda:0"), wp.array(np.ones(50, dtype=np.float32), device="cuda:0")
    wp.launch(scale_add, dim=50, inputs=[xs, ys, 2.0], device="cuda:0")
    np.testing.assert_allclose(ys.numpy(), 2.0 * x + 1.0)
    assert "cuLinkComplete" in fake_cuda.calls and "cuModuleLoadDataEx" not in fake_cuda.calls
    metas = [KernelCache(str(tmp_path)).get(k)[1] for k in KernelCache(str(tmp_path)).keys()]
    assert [m["arch"] for m in metas if m.get("kind") == "cubin"] == [90]

    # the same kernel again (as in a new process): from the cached PTX and cubin, no linking
    scale_add.module.unload()
    fake_cuda.calls.clear()
    wp.launch(scale_add, dim=50, inputs=[xs, ys, 1.0], device="cuda:0")
    np.testing.assert_allclose(ys.numpy(), 3.0 * x + 1.0)
    assert "cuLinkComplete" not in fake_cuda.calls and "cuModuleLoadData" in fake_cuda.calls


_CHILD = textwrap.dedent(
    """
    import json, sys
    from types import SimpleNamespace
    sys.path.insert(0, sys.argv[1])
    from fake_driver import FakeDriver
    from warp.runtime.cache import KernelCache
    from warp.targets.cuda import driver
    from warp.targets.cuda.target import load_ptx

    fake = FakeDriver()
    driver._cu = fake
    ptx = open(sys.argv[3], "rb").read()
    loaded = load_ptx(ptx, ["cubin_test_entry"], name="m", device=SimpleNamespace(ordinal=0),
                      store=KernelCache(sys.argv[2]))
    print(json.dumps({"calls": fake.calls, "entries": fake.modules[int(loaded.module)]}))
    """
)


def test_a_second_process_loads_the_cubin(tmp_path):
    """Where the driver's JIT cache is off, the second process loads the first one's cubin."""
    ptx_file = tmp_path / "k.ptx"
    ptx_file.write_bytes(PTX)
    args = [sys.executable, "-c", _CHILD, os.path.dirname(__file__), str(tmp_path / "cache"), str(ptx_file)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARP_")}
    env["CUDA_CACHE_DISABLE"] = "1"  # the default (cuda_output None) then caches cubins
    runs = [
        json.loads(subprocess.run(args, capture_output=True, text=True, check=True, env=env).stdout)
        for _ in range(2)
    ]
    assert runs[0]["calls"] == ["cuLinkComplete", "cuModuleLoadData"]
    assert runs[1]["calls"] == ["cuModuleLoadData"]
    assert runs[0]["entries"] == runs[1]["entries"] == ["cubin_test_entry"]
