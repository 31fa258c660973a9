"""Kernel decorator keywords (``enable_backward``, ``launch_bounds``, ``module``), ``wp.Kernel``
built directly, and the module API: ``wp.get_module``, ``wp.set_module_options``,
``wp.get_module_options``, ``wp.load_module``, ``wp.force_load``."""

import re
import sys
import types

import numpy as np
import pytest

import warp as wp
from warp.compiler.hashing import kernel_hash
from warp.compiler.options import resolve_options
from warp.targets import target_for_kind


def cache_key(k):
    """The kernel's cache key for the CPU (as the loader computes it, minus the device fingerprint)."""
    return kernel_hash(k, resolve_options(k, target=target_for_kind("cpu")), "test-device")


@wp.kernel(enable_backward=False, launch_bounds=(256, 1))
def plain_kw(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0


@wp.kernel(module="unique")
def unique_kw(a: wp.array(dtype=float)):
    a[wp.tid()] = 3.0


@wp.kernel(module="my_named_module")
def named_kw(a: wp.array(dtype=float)):
    a[wp.tid()] = 4.0


def test_kernel_keyword_forms():
    a = wp.zeros(2, dtype=float)
    for k, value in ((plain_kw, 2.0), (unique_kw, 3.0), (named_kw, 4.0)):
        wp.launch(k, dim=2, inputs=[a])
        np.testing.assert_array_equal(a.numpy(), [value, value])
    assert plain_kw.enable_backward is False and plain_kw.launch_bounds == (256, 1)
    assert plain_kw.module is wp.get_module(__name__)
    assert plain_kw.module.name == __name__
    assert unique_kw.module.name != __name__ and unique_kw.module.name.startswith(__name__)
    assert named_kw.module is wp.get_module("my_named_module")
    assert wp.get_module("my_named_module").kernels[named_kw.key] is named_kw
    with pytest.raises(RuntimeError, match="no adjoint.*enable_backward=False"):
        wp.launch(plain_kw, dim=2, inputs=[a], adj_inputs=[a], adjoint=True)


def double_body(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = a[i] * 2.0


def test_kernel_constructed_directly():
    k1 = wp.Kernel(func=double_body, key="double_v1", module="direct_kernels")
    k2 = wp.Kernel(double_body, key="double_v2", options={"enable_backward": False})
    assert k1.key == "double_v1" and k1.module.name == "direct_kernels"
    assert k2.module.name == __name__ and k2.enable_backward is False
    assert cache_key(k1) != cache_key(k2)
    a = wp.array([1.0, 2.5], dtype=float)
    b = wp.zeros(2, dtype=float)
    wp.launch(k1, dim=2, inputs=[a, b])
    np.testing.assert_array_equal(b.numpy(), [2.0, 5.0])
    wp.launch(k2, dim=2, inputs=[b, a])
    np.testing.assert_array_equal(a.numpy(), [4.0, 10.0])
    with pytest.raises(TypeError, match=r"code_transformers\[0\] .* not an ast.NodeTransformer"):
        wp.Kernel(double_body, code_transformers=[object()])


def _fresh_python_module(name: str, source: str) -> types.ModuleType:
    """A module defined from source in a temporary file (kernels need their source on disk)."""
    import importlib.util
    import os
    import tempfile

    path = os.path.join(tempfile.mkdtemp(), f"{name.replace('.', '_')}.py")
    with open(path, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


SOURCE = """
import warp as wp

@wp.kernel
def unrolled(out: wp.array(dtype=int)):
    s = int(0)
    for i in range(8):
        s = s * 2 + i
    out[0] = s
"""


def test_module_options_apply_and_change_the_cache_key(capsys):
    mod = _fresh_python_module("lang_funcs_opts_mod", SOURCE)
    k = mod.unrolled
    before = cache_key(k)
    assert wp.get_module(mod).options.explicit() == {}
    assert wp.get_module_options(mod)["max_unroll"] == wp.config.max_unroll
    wp.set_module_options({"max_unroll": 2}, mod)
    assert wp.get_module(mod).options.explicit() == {"max_unroll": 2}
    assert wp.get_module_options("lang_funcs_opts_mod")["max_unroll"] == 2
    assert wp.get_module(mod).options["max_unroll"] == 2
    after = cache_key(k)
    assert before != after
    out = wp.zeros(1, dtype=int)
    wp.launch(k, dim=1, inputs=[out])
    s = 0
    for i in range(8):
        s = s * 2 + i
    assert out.numpy()[0] == s
    # the loop was not unrolled with max_unroll=2: the IR has a 'for' op
    from warp.compiler import ir
    from warp.compiler.frontend.translator import build_kernel
    from warp.compiler.options import compiling

    def has_loop():
        with compiling(resolve_options(k, target=target_for_kind("cpu"))):
            return any(op.kind == "for" for op in ir.walk(build_kernel(k).body))

    assert has_loop()
    wp.set_module_options({"max_unroll": 16}, mod)
    assert not has_loop()


def test_module_options_default_to_the_callers_module():
    wp.set_module_options({"enable_backward": True})
    assert wp.get_module_options()["enable_backward"] is True
    assert wp.get_module_options(__name__)["enable_backward"] is True
    del wp.get_module(__name__).options["enable_backward"]


def test_module_options_have_warps_keys_and_follow_config():
    """``module.options`` reads Warp's keys with ``wp.config`` defaults; assignment rebuilds."""
    mod = _fresh_python_module("opts_keys_mod", SOURCE)
    options = wp.get_module(mod).options
    for key in ("enable_backward", "max_unroll", "fast_math", "fuse_fp", "lineinfo", "mode",
                "optimization_level", "block_dim", "cuda_output"):
        assert key in options and key in wp.get_module_options(mod)
    saved = wp.config.enable_backward
    try:
        wp.config.enable_backward = False
        assert options["enable_backward"] is False
    finally:
        wp.config.enable_backward = saved
    out = wp.zeros(1, dtype=int)
    wp.launch(mod.unrolled, dim=1, inputs=[out])
    key_before = cache_key(mod.unrolled)
    options["max_unroll"] = 3
    assert cache_key(mod.unrolled) != key_before
    assert not mod.unrolled._compiled  # assignment unloaded the compiled code
    with pytest.raises(KeyError):
        options["no_such_option"]


LOAD_SOURCE = """
from typing import Any
import warp as wp

@wp.kernel
def first(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0

@wp.kernel
def generic(a: wp.array(dtype=Any)):
    a[wp.tid()] = a.dtype(5)

wp.overload(generic, [wp.array(dtype=wp.float64)])
"""


_LOAD_LINE = re.compile(r"^Module (\S+) \S+ load on device '([^']+)'", re.MULTILINE)


def _loads(out: str) -> list[tuple[str, str]]:
    """(module, device) of each 'Module ... load on device ...' line printed."""
    return sorted(_LOAD_LINE.findall(out))


def _check_load_module_and_force_load(capsys, names: tuple[str, str]) -> None:
    root, child = names
    every = [str(d) for d in wp.get_devices()]  # cpu and each cuda:N present
    saved = wp.config.quiet
    wp.config.quiet = False
    try:
        mod = _fresh_python_module(root, LOAD_SOURCE)
        # kernels named apart from the root's: the stand-in driver finds entries by symbol across
        # modules (a real driver looks them up per module)
        sub_source = LOAD_SOURCE.replace("5", "6").replace("first", "sub_first")
        sub_source = sub_source.replace("generic", "sub_generic")
        sub = _fresh_python_module(child, sub_source)
        wp.load_module(mod, device="cpu")
        out = capsys.readouterr().out
        assert _loads(out) == [(root, "cpu")]  # one line: 'first' and the float64 instance
        assert out.rstrip().endswith("(compiled)")
        # no device: every device (NVIDIA Warp's "If None, load on all devices"); the root
        # module is already loaded on the cpu
        wp.load_module(root, recursive=True)
        out = capsys.readouterr().out
        expected = [(root, d) for d in every if d != "cpu"] + [(child, d) for d in every]
        assert _loads(out) == sorted(expected)
        wp.force_load(device="cpu", modules=[sub])
        assert capsys.readouterr().out == ""  # already loaded: nothing to do
        sub.sub_first.unload()
        wp.force_load(modules=[child])  # every device again
        assert _loads(capsys.readouterr().out) == sorted((child, d) for d in every)
        # loaded code is what launches use, on each device
        for d in every:
            a = wp.zeros(2, dtype=wp.float64, device=d)
            wp.launch(mod.generic, dim=2, inputs=[a], device=d)
            assert capsys.readouterr().out == ""
            np.testing.assert_array_equal(a.numpy(), [5.0, 5.0])
    finally:
        wp.config.quiet = saved


def test_load_module_and_force_load_compile_ahead_of_launch(capsys):
    """On the devices of this host: the cpu, and each cuda:N of a GPU host."""
    _check_load_module_and_force_load(capsys, ("lang_funcs_load_mod", "lang_funcs_load_mod.sub"))


def test_load_module_without_device_loads_on_every_gpu_too(fake_cuda, capsys):
    """The same with the stand-in driver's cuda:0 and cuda:1 beside the cpu."""
    assert [str(d) for d in wp.get_devices()] == ["cpu", "cuda:0", "cuda:1"]
    _check_load_module_and_force_load(capsys, ("gpu_funcs_load_mod", "gpu_funcs_load_mod.sub"))


def test_module_object_attributes():
    m = wp.get_module(__name__)
    assert isinstance(m, wp.Module)
    assert m is wp.get_module(sys.modules[__name__])
    assert plain_kw.key in m.kernels
    assert str(m) == __name__
    with pytest.raises(TypeError, match="a module is named by a string"):
        wp.get_module(42)


def _make_scaler():
    @wp.kernel(module="unique")
    def scaler(x: wp.array(dtype=float)):
        x[wp.tid()] = 2.0 * x[wp.tid()]

    return scaler


def test_kernel_key_is_the_function_name_and_name_replaces_it():
    @wp.kernel(module="unique", name="custom_scale")
    def named(x: wp.array(dtype=float)):
        x[wp.tid()] = 3.0 * x[wp.tid()]

    a, b = _make_scaler(), _make_scaler()
    assert a.key == b.key == "_make_scaler__locals__scaler"
    assert named.key == "custom_scale"
    assert a is b  # an identical module="unique" redeclaration is the same kernel (as in Warp)
    assert a.module is not named.module
    x = wp.array(np.array([1.0, 2.0], dtype=np.float32))
    wp.launch(named, dim=2, inputs=[x])
    wp.launch(a, dim=2, inputs=[x])
    np.testing.assert_array_equal(x.numpy(), [6.0, 12.0])
    with pytest.raises(ValueError, match=r"valid C\+\+ identifier"):
        wp.kernel(name="1bad")


def test_kernel_module_options_apply_to_its_module():
    @wp.kernel(module="unique", module_options={"enable_backward": False, "max_unroll": 2})
    def k(x: wp.array(dtype=float)):
        x[0] = 1.0

    assert k.module.options["enable_backward"] is False
    assert k.module.options["max_unroll"] == 2
    with pytest.raises(ValueError, match="must be 'warp' or 'external_constant_params'"):
        wp.kernel(entry_point_abi="external")
    with pytest.raises(ValueError, match="requires enable_backward=False"):
        wp.kernel(entry_point_abi="external_constant_params")
