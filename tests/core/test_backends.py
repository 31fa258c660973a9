"""The target seam: registry, the CPU target's memory operations, compile options and the
launch ABI's error record, and that loading, launching and allocating really go through it."""

from __future__ import annotations

import ctypes
import dataclasses
import struct

import numpy as np
import pytest
import warp as wp
from warp.compiler import abi
from warp.compiler.hashing import kernel_hash
from warp.compiler.options import CompileOptions, resolve_options
from warp.targets import registry as targets
from warp.targets.base import Target
from warp.targets.cpu.target import CpuTarget
from warp.runtime.devices import Device
from warp.targets import target_for_kind


@wp.kernel
def scale(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i]


def test_cpu_device_selects_cpu_backend():
    cpu = wp.get_device("cpu")
    assert cpu.kind == "cpu"
    assert isinstance(targets.get_target(cpu), CpuTarget)
    assert cpu.target is targets.get_target(cpu)
    assert targets.get_target(cpu).name == "cpu"


def test_unknown_kind_and_missing_backend_module():
    with pytest.raises(RuntimeError, match="no target is registered for devices of kind 'tpu'"):
        targets.get_target(Device("tpu:0", 0))
    targets.register_target("nowhere", "warp.targets.no_such_module:Target")
    try:
        with pytest.raises(RuntimeError, match="devices of kind 'nowhere' are not supported yet"):
            targets.target_for_kind("nowhere")
    finally:
        targets._specs.pop("nowhere", None)


def test_register_backend_rejects_non_backends():
    targets.register_target("bogus", lambda: object())
    try:
        with pytest.raises(TypeError, match="must be a warp.targets.Target"):
            targets.target_for_kind("bogus")
    finally:
        targets._specs.pop("bogus", None)
        targets._instances.pop("bogus", None)


# -- memory ----------------------------------------------------------------------------------------


def _host_view(ptr: int, nbytes: int) -> np.ndarray:
    return np.frombuffer((ctypes.c_uint8 * nbytes).from_address(ptr), dtype=np.uint8)


def test_cpu_allocate_is_aligned_and_zeroed():
    be = CpuTarget()
    cpu = wp.get_device("cpu")
    for nbytes in (0, 1, 7, 4096, 100_001):
        mem = be.allocate(cpu, nbytes, zero=True)
        assert mem.nbytes == nbytes and mem.device is cpu
        assert mem.ptr % 64 == 0
        assert not _host_view(mem.ptr, nbytes).any()


def test_cpu_memset_copy_fill_match_numpy():
    be = CpuTarget()
    cpu = wp.get_device("cpu")
    a = be.allocate(cpu, 256)
    b = be.allocate(cpu, 256, zero=True)
    be.memset(cpu, a.ptr, 0x5A, 256)
    assert (_host_view(a.ptr, 256) == 0x5A).all()
    be.memset(cpu, a.ptr + 10, 0x1FF, 5)  # only the low byte counts
    expected = np.full(256, 0x5A, np.uint8)
    expected[10:15] = 0xFF
    np.testing.assert_array_equal(_host_view(a.ptr, 256), expected)
    be.copy(b.ptr + 100, cpu, a.ptr, cpu, 20)
    got = _host_view(b.ptr, 256)
    assert not got[:100].any() and not got[120:].any()
    np.testing.assert_array_equal(got[100:120], expected[:20])
    pattern = struct.pack("<fI", 1.5, 7)
    be.fill(cpu, b.ptr, pattern, 32)
    rec = np.frombuffer(bytes(_host_view(b.ptr, 256)), dtype=np.dtype([("f", "<f4"), ("i", "<u4")]))
    assert (rec["f"] == 1.5).all() and (rec["i"] == 7).all()


def test_array_fill_and_zero_go_through_backend_fill():
    v = wp.zeros(5, dtype=wp.vec3)
    v.fill_(wp.vec3(1.0, 2.0, 3.0))
    np.testing.assert_array_equal(v.numpy(), np.tile([1.0, 2.0, 3.0], (5, 1)))
    v.zero_()
    assert not v.numpy().any()
    m = wp.full((2, 3), 4, dtype=wp.int16)
    np.testing.assert_array_equal(m.numpy(), np.full((2, 3), 4, np.int16))
    with pytest.raises(ValueError, match="cannot fill an array of dtype"):
        v.fill_("nope")


def test_wp_copy_between_arrays_with_offsets():
    src = wp.array(np.arange(10, dtype=np.float32))
    dst = wp.zeros(10, dtype=wp.float32)
    wp.copy(dst, src, dest_offset=2, src_offset=5, count=3)
    np.testing.assert_array_equal(dst.numpy(), [0, 0, 5, 6, 7, 0, 0, 0, 0, 0])


# -- compile options --------------------------------------------------------------------------------


def test_compile_options_are_frozen_and_validated():
    opts = CompileOptions(target=target_for_kind("cpu"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.mode = "debug"  # type: ignore[misc]
    with pytest.raises(ValueError, match="'mode' must be one of"):
        CompileOptions(target=target_for_kind("cpu"), mode="fast")
    with pytest.raises(ValueError, match="'part' must be one of"):
        CompileOptions(target=target_for_kind("cpu"), part="sideways")
    with pytest.raises(ValueError, match="'max_unroll' must be a non-negative int"):
        CompileOptions(target=target_for_kind("cpu"), max_unroll=-1)
    assert CompileOptions(target=target_for_kind("cpu"), mode="debug").debug and not opts.debug
    names = {name for name, _ in opts.cache_items()}
    assert names == {f.name for f in dataclasses.fields(CompileOptions)}


def test_resolve_options_module_options_win_over_config():
    saved = (wp.config.max_unroll, wp.get_module(scale.module).options.explicit())
    try:
        wp.config.max_unroll = 5
        assert resolve_options(scale, target=target_for_kind("cpu")).max_unroll == 5
        wp.set_module_options({"max_unroll": 2, "my_flag": [1, 2]}, module=scale.module)
        opts = resolve_options(scale, target=target_for_kind("cpu"), part="adjoint")
        assert opts.max_unroll == 2 and opts.part == "adjoint"
        assert ("my_flag", "[1, 2]") in opts.extra
    finally:
        wp.config.max_unroll = saved[0]
        options = wp.get_module(scale.module).options
        options.clear()
        options.update(saved[1])


def test_every_option_changes_the_cache_key():
    base = CompileOptions(target=target_for_kind("cpu"))
    key = kernel_hash(scale, base, "fp")
    variants = [
        base.replace(target=target_for_kind("cuda")), base.replace(part="adjoint"),
        base.replace(mode="debug"),
        base.replace(max_unroll=3), base.replace(enable_backward=False), base.replace(fast_math=True),
        base.replace(fuse_fp=False), base.replace(lineinfo=True), base.replace(optimization_level=1),
        base.replace(extra=(("x", "1"),)),
    ]
    keys = {kernel_hash(scale, v, "fp") for v in variants}
    assert key not in keys and len(keys) == len(variants)
    assert kernel_hash(scale, base, "other-device") != key
    assert kernel_hash(scale, CompileOptions(target=target_for_kind("cpu")), "fp") == key


# -- launch ABI ------------------------------------------------------------------------------------


def test_error_record_roundtrip():
    buf = bytearray(abi.ERROR_RECORD_SIZE)
    assert abi.decode_error_record(bytes(buf)) is None
    struct.pack_into("<3i", buf, abi.ERROR_FLAG_OFFSET, 1, 4, 2)
    struct.pack_into("<2q", buf, abi.ERROR_INDEX_OFFSET, 7, -1)
    struct.pack_into("<2q", buf, abi.ERROR_SHAPE_OFFSET, 5, 6)
    assert abi.decode_error_record(bytes(buf)) == abi.ErrorRecord(4, (7, -1), (5, 6))
    assert abi.HEADER_SIZE == struct.calcsize(abi.HEADER_FORMAT) == 48


# -- the runtime really uses the target -------------------------------------------------------------


class SpyBackend(CpuTarget):
    """The CPU target, counting what the runtime asks of it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: dict[str, int] = {}

    def _count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1

    def compile(self, *args, **kwargs):
        self._count("compile")
        return super().compile(*args, **kwargs)

    def load(self, *args, **kwargs):
        self._count("load")
        return super().load(*args, **kwargs)

    def define_entry(self, *args, **kwargs):
        self._count("define_entry")
        return super().define_entry(*args, **kwargs)

    def launch(self, *args, **kwargs):
        self._count("launch")
        return super().launch(*args, **kwargs)

    def allocate(self, *args, **kwargs):
        self._count("allocate")
        return super().allocate(*args, **kwargs)


def test_kernels_and_arrays_go_through_the_registered_backend(tmp_path):
    spy = SpyBackend()
    saved_dir = wp.config.kernel_cache_dir
    wp.config.kernel_cache_dir = str(tmp_path)
    targets.register_target("cpu", spy)
    try:

        @wp.kernel
        def double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
            i = wp.tid()
            y[i] = 2.0 * x[i]

        x = wp.array(np.arange(40, dtype=np.float32))
        y = wp.zeros(40, dtype=float)
        assert spy.calls.get("allocate", 0) >= 2
        wp.launch(double, dim=40, inputs=[x, y])
        np.testing.assert_array_equal(y.numpy(), 2.0 * np.arange(40))
        assert spy.calls["compile"] == 1 and spy.calls["load"] == 1
        assert spy.calls["define_entry"] == 2  # contiguous and strided entries
        assert spy.calls["launch"] >= 1
    finally:
        targets.register_target("cpu", "warp.targets.cpu.target:CpuTarget")
        wp.config.kernel_cache_dir = saved_dir


def test_base_backend_runner_calls_launch():
    calls = []

    class Minimal(CpuTarget):
        runner = Target.runner  # the generic runner

        def launch(self, device, entry, args, n, stream=None, keep=None):
            calls.append((device, entry, n, stream))

    be = Minimal()
    run = be.runner("dev", "entry")
    run(b"", 5, "s")
    assert calls == [("dev", "entry", 5, "s")]


def test_array_descriptors_take_the_fast_packer(monkeypatch):
    from warp.arrays.descriptor import make_descriptor
    from warp.runtime.launch import Launcher, _get_launcher

    x_np = np.arange(8, dtype=np.float32)
    y_np = np.zeros(8, dtype=np.float32)
    cpu = wp.get_device("cpu")
    x = make_descriptor(x_np.ctypes.data, (8,), (4,), wp.float32, cpu, x_np)
    y = make_descriptor(y_np.ctypes.data, (8,), (4,), wp.float32, cpu, y_np)
    wp.launch(scale, dim=8, inputs=[x, y, 3.0])
    slow = []
    monkeypatch.setattr(Launcher, "pack_checked", lambda self, *a: slow.append(a))
    launcher = _get_launcher(scale, None)
    buf, contiguous = launcher.fast_pack([x, y, 2.0], (8, 1, 1, 1), 0)
    assert contiguous and not slow
    wp.launch(scale, dim=8, inputs=[x, y, 2.0])
    assert not slow
    np.testing.assert_array_equal(y_np, 2.0 * x_np)
