"""Targets as objects: the registry parses device strings, lowerings are chosen per target, and a
target is never mistaken for its name."""

from __future__ import annotations

import pytest
import warp as wp
from warp.compiler.frontend.translator import build_kernel
from warp.compiler.lowering.kernel import lower_kernel
from warp.compiler.options import CompileOptions, compiling, resolve_options
from warp.compiler.registry import BuiltinRegistry
from warp.runtime import devices
from warp.targets import Target, parse_device, register_target, target_for_kind
from warp.targets import registry as target_registry
from warp.targets.cpu.target import CpuTarget
from warp.targets.cuda import streams


@wp.kernel
def read_block_dim(out: wp.array(dtype=int)):
    out[wp.tid()] = wp.block_dim()


def test_a_target_is_not_its_name():
    cpu, cuda = target_for_kind("cpu"), target_for_kind("cuda")
    assert cpu.name == "cpu" and cuda.name == "cuda"
    assert cpu == target_for_kind("cpu") and cpu != cuda
    assert repr(cpu) == "<CpuTarget 'cpu'>"
    with pytest.raises(TypeError, match="compared with the string 'cpu'"):
        _ = cpu == "cpu"
    with pytest.raises(TypeError, match="compared with the string 'cuda'"):
        _ = cpu != "cuda"


def test_compile_options_carry_the_target_and_key_it_by_name():
    cpu = target_for_kind("cpu")
    options = CompileOptions(target=cpu)
    assert options.target is cpu
    assert ("target", "cpu") in options.cache_items()
    assert ("target", "cuda") in options.replace(target=target_for_kind("cuda")).cache_items()
    # launch bounds are a hint for targets with blocks only
    assert resolve_options(read_block_dim, target=cpu).launch_bounds is None


@pytest.mark.parametrize(
    "ident, parsed",
    [("cpu", ("cpu", -1)), ("cuda", ("cuda", 0)), ("cuda:0", ("cuda", 0)), ("cuda:12", ("cuda", 12))],
)
def test_parse_device(ident, parsed):
    assert parse_device(ident) == parsed


@pytest.mark.parametrize(
    "ident, expected",
    [
        ("cuda:x", "expected 'cuda' or 'cuda:N'"),
        ("cuda:", "expected 'cuda' or 'cuda:N'"),
        ("tpu", "expected 'cpu', 'cuda' or 'cuda:N'"),
        ("cpu:0", "expected 'cpu', 'cuda' or 'cuda:N'"),
        ("", "expected 'cpu', 'cuda' or 'cuda:N'"),
    ],
)
def test_parse_device_rejects_malformed_strings(ident, expected):
    with pytest.raises(ValueError, match=f"invalid device identifier '{ident}': {expected}"):
        parse_device(ident)
    with pytest.raises(ValueError, match=f"invalid device identifier '{ident}': {expected}"):
        wp.get_device(ident)


class _OtherTarget(CpuTarget):
    """A third target with two devices (running like the CPU)."""

    name = "other"

    def device_count(self) -> int:
        return 2

    def device_name(self, ordinal: int) -> str | None:
        return f"Other accelerator {ordinal}"


def test_a_registered_target_brings_its_devices():
    register_target("other", _OtherTarget, numbered_devices=True)
    try:
        assert parse_device("other:3") == ("other", 3)
        assert parse_device("other") == ("other", 0)
        with pytest.raises(ValueError, match="expected 'cpu', 'cuda', 'cuda:N', 'other' or 'other:N'"):
            parse_device("nothing")
        other = target_for_kind("other")
        assert isinstance(other, _OtherTarget) and other.name == "other"
        device = wp.get_device("other:1")
        assert (device.alias, device.ordinal, device.kind) == ("other:1", 1, "other")
        assert device.name == "Other accelerator 1"
        assert device.target is other and wp.get_device("other") is wp.get_device("other:0")
        assert [d.alias for d in wp.get_devices()][-2:] == ["other:0", "other:1"]
        with pytest.raises(RuntimeError, match=r"'other:2' requested but 2 device\(s\) of target 'other'"):
            wp.get_device("other:2")
    finally:
        target_registry._specs.pop("other", None)
        target_registry._instances.pop("other", None)
        target_registry._numbered.discard("other")
        devices._other_devices.pop("other", None)
    with pytest.raises(ValueError, match="expected 'cpu', 'cuda' or 'cuda:N'"):
        parse_device("other:3")


def test_target_code_resolves_device_arguments_with_the_runtimes_table():
    """Targets sit below the runtime: a device argument a user gives target code (``wp.Stream("cpu")``)
    is resolved by the device table the runtime installs in the registry."""
    assert target_registry.resolve_device("cpu") is wp.get_device("cpu")
    assert target_registry.resolve_device(None) is wp.get_device()
    with pytest.raises(ValueError, match="invalid device identifier 'gpu:0'"):
        target_registry.resolve_device("gpu:0")
    with pytest.raises(RuntimeError, match="device 'cpu' is not a CUDA device"):
        wp.Stream("cpu")
    with pytest.raises(RuntimeError, match="device 'cpu' is not a CUDA device"):
        wp.get_stream("cpu")


def test_only_cuda_devices_have_a_current_stream():
    """A device of another target numbered like a CUDA device never gets that device's stream."""
    register_target("other", _OtherTarget, numbered_devices=True)
    try:
        other = wp.get_device("other:0")
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(streams, "_current", {0: object()})
            with pytest.raises(RuntimeError, match="device 'other:0' is not a CUDA device"):
                streams.current_stream(other)
    finally:
        target_registry._specs.pop("other", None)
        target_registry._instances.pop("other", None)
        target_registry._numbered.discard("other")
        devices._other_devices.pop("other", None)


def _lower(kernel, target: Target) -> str:
    options = resolve_options(kernel, target=target)
    with compiling(options):
        return lower_kernel(build_kernel(kernel), options, target.define_entry).llvm_ir


def test_lowerings_registered_per_target():
    cuda_ir = _lower(read_block_dim, target_for_kind("cuda"))
    cpu_ir = _lower(read_block_dim, target_for_kind("cpu"))
    assert "llvm.nvvm.read.ptx.sreg.ntid.x" in cuda_ir
    assert "nvvm" not in cpu_ir
    out = wp.zeros(5, dtype=int, device="cpu")
    wp.launch(read_block_dim, dim=5, inputs=[out], device="cpu")
    assert out.numpy().tolist() == [1] * 5


def test_lower_for_picks_by_target_name_and_needs_a_default():
    registry = BuiltinRegistry()

    def generic(ctx, args, types):
        return "generic"

    def on_cuda(ctx, args, types):
        return "cuda"

    overload = registry.add("f", params=[], result=None, lower=generic, lower_for={"cuda": on_cuda})
    assert overload.lowering_for("cuda") is on_cuda
    assert overload.lowering_for("cpu") is generic
    with pytest.raises(ValueError, match="builtin 'g': lower_for= needs lower="):
        registry.add("g", params=[], result=None, func=object(), lower_for={"cuda": on_cuda})


def test_printing_is_the_targets():
    @wp.kernel
    def say(x: float):
        print(x)

    cpu_ir = _lower(say, target_for_kind("cpu"))
    assert '@"printf"' in cpu_ir and "vprintf" not in cpu_ir
    cuda_ir = _lower(say, target_for_kind("cuda"))
    assert '@"vprintf"' in cuda_ir and '@"printf"' not in cuda_ir


def test_late_intrinsics_are_registered_per_target():
    registry = BuiltinRegistry()

    def define(module, symbol, ty):
        raise AssertionError("not called here")

    registry.add_late_intrinsic("sin", define)
    registry.add_late_intrinsic("cos", define, target="other")
    assert registry.late_intrinsics_for("cpu") == {"sin": define}
    assert registry.late_intrinsics_for("other") == {"cos": define}
    assert registry.late_intrinsics_for("cuda") == {}
