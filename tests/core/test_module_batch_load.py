"""``wp.load_module`` loads a module's cached kernels together (one JIT link on the CPU), and
falls back to loading (or compiling) each kernel alone when one of them does not load."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

import warp as wp
from warp.compiler.hashing import kernel_hash
from warp.compiler.options import resolve_options
from warp.errors import WarpCodegenError
from warp.runtime.cache import KernelCache
from warp.targets import target_for_kind
from warp.targets.cpu import jit

SOURCE = """
import warp as wp

@wp.kernel
def scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s

@wp.kernel
def shift(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] + s

@wp.kernel
def square(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * a[i]
"""


@pytest.fixture
def module(tmp_path, monkeypatch, request):
    monkeypatch.setattr(wp.config, "kernel_cache_dir", str(tmp_path / "cache"))
    name = f"cb2_batch_{request.node.name}"
    path = tmp_path / f"{name}.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    wp.load_module(mod, device="cpu")  # compiles into the (empty) cache
    wp.get_module(name).unload()  # as a new process: nothing loaded, everything cached
    return mod


def _run(mod) -> list[float]:
    a = wp.array(np.arange(5, dtype=np.float32), device="cpu")
    wp.launch(mod.scale, dim=5, inputs=[a, 2.0], device="cpu")
    wp.launch(mod.shift, dim=5, inputs=[a, 1.0], device="cpu")
    wp.launch(mod.square, dim=5, inputs=[a], device="cpu")
    return a.numpy().tolist()


def _loaded(kernel):
    return kernel.compiled(wp.get_device("cpu")).forward


def test_cached_kernels_load_in_one_link_and_compute(module):
    wp.load_module(module, device="cpu")
    parts = [_loaded(k) for k in (module.scale, module.shift, module.square)]
    assert all(p.status == "cached" for p in parts)
    assert len({id(p.loaded.module) for p in parts}) == 1  # one JIT library for the three
    assert _run(module) == [(2.0 * x + 1.0) ** 2 for x in range(5)]


def test_an_entry_that_does_not_load_is_compiled_alone(module):
    cpu = target_for_kind("cpu")
    kernel = module.shift
    key = kernel_hash(kernel, resolve_options(kernel, target=cpu, part="forward"), cpu.fingerprint(None))
    cache = KernelCache(wp.config.kernel_cache_dir)
    code, meta = cache.get(key)
    cache.put(key, b"not an object file", meta)  # passes the cache's checksum, fails to link
    wp.load_module(module, device="cpu")
    assert _loaded(module.shift).status == "compiled"
    assert _loaded(module.scale).status == _loaded(module.square).status == "cached"
    assert _run(module) == [(2.0 * x + 1.0) ** 2 for x in range(5)]
    assert cache.get(key)[0][:4] == b"\x7fELF"  # replaced by the recompiled object


def _object(symbol: str, value: int) -> bytes:
    llvm_ir = f"""
define void @{symbol}(ptr %args, i64 %start, i64 %end) {{
  store i64 {value}, ptr %args
  ret void
}}
"""
    return jit.compile_ir(llvm_ir, name=symbol)


def test_load_objects_links_several_objects_into_one_library():
    objs = [_object("cb2_batch_entry_a", 11), _object("cb2_batch_entry_b", 22)]
    module = jit.load_objects(objs, ["cb2_batch_entry_a", "cb2_batch_entry_b"], name="two")
    import ctypes

    out = ctypes.c_int64(0)
    for symbol, expected in (("cb2_batch_entry_a", 11), ("cb2_batch_entry_b", 22)):
        fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)(module.address(symbol))
        fn(ctypes.addressof(out), 0, 1)
        assert out.value == expected


def test_load_objects_refuses_a_symbol_defined_twice():
    objs = [_object("cb2_batch_entry_dup", 1), _object("cb2_batch_entry_dup", 2)]
    with pytest.raises(WarpCodegenError, match="failed to load object code of module 'dup'"):
        jit.load_objects(objs, ["cb2_batch_entry_dup"], name="dup")


def test_a_kernel_that_cannot_be_keyed_fails_alone_and_the_others_load(module):
    ns = {"wp": wp}
    text = "@wp.kernel(module=MODULE)\ndef no_source(a: wp.array(dtype=float)):\n    a[0] = 1.0\n"
    code = compile(text, "<nowhere>", "exec")
    ns["MODULE"] = module.__name__
    exec(code, ns)  # a kernel of the module whose source cannot be read
    with pytest.raises(WarpCodegenError, match="cannot read the source of 'no_source'"):
        wp.load_module(module, device="cpu")
    cpu = wp.get_device("cpu")
    assert all(k.is_loaded(cpu) for k in (module.scale, module.shift, module.square))  # before the error
    assert _loaded(module.scale).status == "cached"
    assert _run(module) == [(2.0 * x + 1.0) ** 2 for x in range(5)]
