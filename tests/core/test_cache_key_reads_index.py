"""The cache key computed from what warp.compiler.reads_index remembers of a function's source
(no parse: the warm-load path) is the key the full walk gives, and still changes with every
constant, called function (in any module), struct or file edit that the walk would see."""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import pytest

import warp as wp
from warp.compiler import hashing, reads_index
from warp.compiler.hashing import kernel_hash
from warp.compiler.options import resolve_options
from warp.targets import target_for_kind

HELPER = """
import warp as wp

@wp.func
def helper(x: float):
    return x * {factor}
"""

KERNELS = """
import warp as wp
import {helper}
from {helper} import helper as direct

SCALE = 2.0

@wp.struct
class Params:
    gain: float

@wp.kernel
def through_module(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = {helper}.helper(float(i)) * SCALE

@wp.kernel
def through_name(a: wp.array(dtype=float), p: Params):
    i = wp.tid()
    a[i] = direct(float(i)) + p.gain

@wp.kernel
def makes_struct(a: wp.array(dtype=float)):
    p = Params()
    p.gain = 1.0
    a[0] = float(p.gain)

def rebound(x):
    return x

@wp.kernel
def calls_rebound(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = rebound(SCALE) + float(i)
"""


def _import(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _reexec(module):
    """Run the (edited) file of ``module`` again in the same module object, as importlib.reload."""
    module.__spec__.loader.exec_module(module)
    return module


@pytest.fixture
def mods(tmp_path, request):
    tag = request.node.name.replace("[", "_").replace("]", "")
    helper = _import(tmp_path, f"ri_helper_{tag}", HELPER.format(factor="3.0"))
    kernels = _import(tmp_path, f"ri_kernels_{tag}", KERNELS.format(helper=helper.__name__))
    yield kernels, helper, tmp_path
    sys.modules.pop(kernels.__name__, None)
    sys.modules.pop(helper.__name__, None)


def _key(kernel):
    cpu = target_for_kind("cpu")
    return kernel_hash(kernel, resolve_options(kernel, target=cpu, part="forward"), "fingerprint")


def _walked_key(kernel, monkeypatch):
    """The key from a full walk of every source (nothing remembered in memory or on disk)."""
    reads_index.forget()
    with monkeypatch.context() as m:
        m.setattr(wp.config, "cache_kernels", False)
        m.setattr(hashing.reads_index, "lookup", lambda *args: None)
        key = _key(kernel)
    reads_index.forget()  # what it remembered was never written: walk (and write) again
    return key


def _no_parse(monkeypatch, allowed=()):
    """Make parsing any function's source (other than ``allowed`` names) fail the test."""
    real = hashing.read_source

    def read_source(func):
        assert func.__name__ in allowed, f"parsed {func.__name__}"
        return real(func)

    monkeypatch.setattr(hashing, "read_source", read_source)


@pytest.mark.parametrize("name", ["through_module", "through_name", "calls_rebound"])
def test_the_remembered_key_is_the_walked_key(mods, monkeypatch, name):
    kernel = getattr(mods[0], name)
    walked = _walked_key(kernel, monkeypatch)
    _key(kernel)  # walks and remembers
    _no_parse(monkeypatch)
    assert _key(kernel) == walked
    reads_index.forget()  # a new process: read back from the index file
    assert _key(kernel) == walked


def test_the_index_is_written_beside_the_kernel_cache(mods):
    reads_index.forget()
    _key(mods[0].through_module)
    directory = os.path.join(wp.config.kernel_cache_dir, "reads")
    files = os.listdir(directory)
    assert files and all(f.endswith(".json") for f in files)
    entries = {}
    for f in files:
        with open(os.path.join(directory, f)) as fh:
            entries.update(json.load(fh))
    assert any(k.startswith("through_module:") for k in entries)


def test_a_constant_still_changes_the_remembered_key(mods, monkeypatch):
    kernels = mods[0]
    before = _key(kernels.through_module)
    _no_parse(monkeypatch)
    kernels.SCALE = 4.0
    after = _key(kernels.through_module)
    assert after != before
    monkeypatch.undo()
    assert after == _walked_key(kernels.through_module, monkeypatch)


def test_a_changed_function_in_another_module_changes_the_remembered_key(mods, monkeypatch):
    kernels, helper, tmp_path = mods
    before = {k: _key(getattr(kernels, k)) for k in ("through_module", "through_name")}
    (tmp_path / f"{helper.__name__}.py").write_text(HELPER.format(factor="5.0"))
    _reexec(helper)  # `helper.helper` is the new function; `direct` is still the old one
    kernels.direct = helper.helper
    _no_parse(monkeypatch, allowed={"helper"})  # the edited file is new text: walked once
    after = {k: _key(getattr(kernels, k)) for k in before}
    assert all(after[k] != before[k] for k in before)
    monkeypatch.undo()
    assert after == {k: _walked_key(getattr(kernels, k), monkeypatch) for k in before}


def test_a_changed_struct_changes_the_remembered_key(mods, monkeypatch, tmp_path):
    kernels = mods[0]
    before = _key(kernels.makes_struct)
    text = "import warp as wp\n@wp.struct\nclass Params:\n    gain: wp.float64\n"
    other = _import(tmp_path, "ri_struct_other", text)
    try:
        _no_parse(monkeypatch)
        kernels.Params = other.Params  # the name the body reads now means another layout
        after = _key(kernels.makes_struct)
        assert after != before
        monkeypatch.undo()
        assert after == _walked_key(kernels.makes_struct, monkeypatch)
    finally:
        sys.modules.pop("ri_struct_other", None)


def test_a_name_rebound_to_static_walks_the_source_again(mods, monkeypatch):
    kernels = mods[0]
    _key(kernels.calls_rebound)
    kernels.rebound = wp.static  # `rebound(SCALE)` is now a static: the walk hashes its value
    parsed = []
    real = hashing.read_source
    monkeypatch.setattr(hashing, "read_source", lambda f: parsed.append(f.__name__) or real(f))
    key = _key(kernels.calls_rebound)
    assert parsed == ["calls_rebound"]
    monkeypatch.undo()
    assert key == _walked_key(kernels.calls_rebound, monkeypatch)


def test_a_damaged_index_file_is_ignored(mods, monkeypatch):
    kernel = mods[0].through_module
    walked = _walked_key(kernel, monkeypatch)
    directory = os.path.join(wp.config.kernel_cache_dir, "reads")
    _key(kernel)
    for f in os.listdir(directory):
        with open(os.path.join(directory, f), "w") as fh:
            fh.write('{"through_module:1": [1, "x"], ')
    reads_index.forget()
    assert _key(kernel) == walked


def test_an_edited_kernel_file_misses_the_index(mods, monkeypatch, tmp_path):
    kernels, helper, _ = mods
    _key(kernels.through_module)
    text = KERNELS.format(helper=helper.__name__).replace("* SCALE", "+ SCALE")
    (tmp_path / f"{kernels.__name__}.py").write_text(text)
    edited = _reexec(kernels)
    parsed = []
    real = hashing.read_source
    monkeypatch.setattr(hashing, "read_source", lambda f: parsed.append(f.__name__) or real(f))
    key = _key(edited.through_module)
    assert "through_module" in parsed  # new text: walked, not cut from the old file's index
    monkeypatch.undo()
    assert key == _walked_key(edited.through_module, monkeypatch)
    assert "+ SCALE" in hashing.read_source(edited.through_module.func).source


def test_kernels_still_compute_from_the_remembered_key(mods):
    kernels = mods[0]
    _key(kernels.through_module)
    a = wp.zeros(3, dtype=float, device="cpu")
    wp.launch(kernels.through_module, dim=3, inputs=[a], device="cpu")
    assert a.numpy().tolist() == [0.0, 6.0, 12.0]  # helper(i) = 3 i, times SCALE = 2


def test_clear_kernel_cache_clears_the_index(mods, monkeypatch):
    kernel = mods[0].through_module
    _key(kernel)
    directory = os.path.join(wp.config.kernel_cache_dir, "reads")
    assert os.listdir(directory)
    wp.clear_kernel_cache()
    assert os.listdir(directory) == []
    parsed = []
    real = hashing.read_source
    monkeypatch.setattr(hashing, "read_source", lambda f: parsed.append(f.__name__) or real(f))
    _key(kernel)
    assert parsed == ["through_module", "helper"]  # walked again, and remembered again
    assert os.listdir(directory)


STATICS = """
import warp as wp

N = 3
SCALE = 2.0

@wp.kernel
def with_statics(a: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for j in range(wp.static(N)):
        s = s + wp.static(SCALE * 2.0)
    for k in range(2):
        a[k] = wp.static(SCALE + float(k))  # reads a local: walked as plain code
    a[i] = a[i] + s
"""


def test_statics_are_remembered_and_evaluated_as_the_walk_does(tmp_path, monkeypatch):
    names = ["ri_statics_a", "ri_statics_b", "ri_statics_c"]
    try:
        first = _import(tmp_path, names[0], STATICS)
        walked = _walked_key(first.with_statics, monkeypatch)
        _key(first.with_statics)  # remembered under the text of the file
        # the same text in other modules (as in a new process): no parse, statics evaluated anew
        same = _import(tmp_path, names[1], STATICS)
        other = _import(tmp_path, names[2], STATICS)
        other.SCALE = 5.0
        _no_parse(monkeypatch)
        assert _key(same.with_statics) == walked
        changed = _key(other.with_statics)
        assert changed != walked
        monkeypatch.undo()
        fresh = _import(tmp_path, names[2], STATICS)
        fresh.SCALE = 5.0
        assert _walked_key(fresh.with_statics, monkeypatch) == changed
        a = wp.zeros(4, dtype=float, device="cpu")
        wp.launch(same.with_statics, dim=1, inputs=[a], device="cpu")
        assert a.numpy().tolist() == [14.0, 3.0, 0.0, 0.0]  # a[k] = 2 + k, then a[0] += 3 * 4
    finally:
        for name in names:
            sys.modules.pop(name, None)
