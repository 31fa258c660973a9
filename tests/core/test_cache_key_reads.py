"""What the cache key reads from a kernel's source (one walk of its tree, warp.compiler.hashing):
free names and attribute chains by value, ``wp.static`` expressions by value, locals never."""

from __future__ import annotations

import importlib.util
import sys

import pytest

import warp as wp
from warp.compiler.hashing import kernel_hash
from warp.compiler.options import resolve_options
from warp.targets import target_for_kind

SOURCE = """
import types
import warp as wp

SCALE = 2.0
OFFSET = 1.0
LOCAL_TOO = 5.0
N = 3
params = types.SimpleNamespace(inner=types.SimpleNamespace(gain=4.0))

@wp.kernel
def reads(a: wp.array(dtype=float)):
    i = wp.tid()
    LOCAL_TOO = float(i)
    s = float(0.0)
    for j in range(wp.static(N)):
        s = s + wp.static(SCALE * float(j))
    a[i] = s * params.inner.gain + OFFSET + LOCAL_TOO

@wp.kernel
def reads_locals_in_static(a: wp.array(dtype=float)):
    for j in range(2):
        a[j] = wp.static(OFFSET + float(j))
"""


def _module(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _key(kernel):
    cpu = target_for_kind("cpu")
    return kernel_hash(kernel, resolve_options(kernel, target=cpu, part="forward"), "fingerprint")


@pytest.fixture
def mod(tmp_path, request):
    return _module(tmp_path, f"cb2_reads_{request.node.name.replace('[', '_').replace(']', '')}")


def test_the_key_is_stable(mod):
    assert _key(mod.reads) == _key(mod.reads)
    assert len(_key(mod.reads)) == 64


def test_free_names_change_the_key(mod):
    before = _key(mod.reads)
    mod.OFFSET = 1.5
    assert _key(mod.reads) != before


def test_names_inside_a_static_enter_by_the_statics_value(tmp_path):
    # a static's value is kept from its first evaluation: compare modules that differ before it
    same, other = _module(tmp_path, "cb2_reads_scale_a"), _module(tmp_path, "cb2_reads_scale_b")
    other.SCALE = 3.0
    base = _module(tmp_path, "cb2_reads_scale_c")
    keys = [_key(base.reads), _key(same.reads), _key(other.reads)]
    assert keys[0] == keys[1]  # the key does not name the module
    assert keys[2] != keys[0]


def test_attribute_chains_are_read_by_value(mod):
    before = _key(mod.reads)
    mod.params.inner.gain = 8.0
    assert _key(mod.reads) != before


def test_a_global_named_like_a_local_is_not_read(mod):
    before = _key(mod.reads)
    mod.LOCAL_TOO = 6.0
    assert _key(mod.reads) == before


def test_a_global_read_by_a_static_that_reads_locals_is_read_by_value(mod):
    before = _key(mod.reads_locals_in_static)
    mod.OFFSET = 9.0
    assert _key(mod.reads_locals_in_static) != before


def test_the_kernels_still_compute(mod):
    a = wp.zeros(4, dtype=float, device="cpu")
    wp.launch(mod.reads, dim=4, inputs=[a], device="cpu")
    # s = 2 * (0 + 1 + 2) = 6; a[i] = 6 * 4 + 1 + i
    assert a.numpy().tolist() == [25.0, 26.0, 27.0, 28.0]
