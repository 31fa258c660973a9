"""``Module.hash_module()``: a content hash of a module's kernels, independent of module names."""

from __future__ import annotations

import importlib.util
import sys

import pytest

import warp as wp

TEMPLATE = """
import warp as wp

@wp.struct
class S:
    x: float

C = S()
C.x = {value}

@wp.func
def f():
    return {value}

@wp.kernel
def k(a: wp.array(dtype=float)):
    a[0] = wp.static(f)() + wp.static(C).x
"""


def load(tmp_path, source: str, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return wp.get_module(name)


def test_same_content_same_hash_different_content_different_hash(tmp_path):
    h1 = load(tmp_path, TEMPLATE.format(value=17.0), "cb2_hash_mod_a").hash_module()
    h2 = load(tmp_path, TEMPLATE.format(value=42.0), "cb2_hash_mod_b").hash_module()
    h3 = load(tmp_path, TEMPLATE.format(value=17.0), "cb2_hash_mod_c").hash_module()
    assert len(h1) == 64 and int(h1, 16) >= 0
    assert h1 == h3
    assert h1 != h2


def test_hash_follows_struct_layout_not_identity():
    module = wp.get_module("cb2_hash_struct_module")

    def define(dtype):
        S = wp.struct(type("S", (), {"__annotations__": {"i": dtype}, "__module__": __name__}))

        def dummy(a: wp.array(dtype=S)):
            wp.tid()

        dummy.__annotations__["a"] = wp.array(dtype=S)
        wp.Kernel(dummy, module=module)
        return module.hash_module()

    h0 = define(int)
    assert define(int) == h0
    assert define(float) != h0


def test_hash_follows_module_options():
    module = wp.get_module("cb2_hash_options_module")

    def dummy(a: wp.array(dtype=float)):
        a[0] = 1.0

    wp.Kernel(dummy, module=module)
    before = module.hash_module()
    module.options["max_unroll"] = 3
    assert module.hash_module() != before


@pytest.mark.parametrize("t", [*wp.types.scalar_types, *wp.types.vector_types])
def test_vector_types_and_lengths(t):
    if t in wp.types.scalar_types:
        assert t._length_ == 1
    else:
        assert t._length_ == int(__import__("math").prod(t._shape_))
    assert t.__name__.isidentifier()


def test_spatial_type_names():
    assert wp.spatial_vectorf.__name__ == "spatial_vectorf"
    assert wp.types.vector(6, wp.float64) is wp.spatial_vectord
    assert wp.spatial_matrixh.__name__ == "spatial_matrixh"
    assert wp.types.vector(6, wp.int32).__name__ == "vector(length=6, dtype=int32)"


def make_unique_kernel(v: float):
    @wp.kernel(module="unique")
    def scaled(a: wp.array(dtype=wp.float32)):
        tid = wp.tid()
        a[tid] = wp.static(v * 2.0)

    return scaled


def test_unique_kernel_redeclared_with_same_content_is_the_same_kernel():
    k1, k2 = make_unique_kernel(1.0), make_unique_kernel(2.0)
    assert k1 is not k2
    a = wp.zeros(2, dtype=float, device="cpu")
    wp.launch(k1, dim=2, inputs=[a], device="cpu")
    assert a.numpy()[0] == 2.0
    wp.launch(k2, dim=2, inputs=[a], device="cpu")
    assert a.numpy()[0] == 4.0
    assert make_unique_kernel(1.0) is k1


def test_content_hash_ignores_globals_named_like_locals(tmp_path):
    source = TEMPLATE.format(value=5.0)
    m1 = load(tmp_path, source, "cb2_hash_locals_a")
    before = m1.hash_module()
    sys.modules["cb2_hash_locals_a"].a = wp.zeros(3, dtype=float)  # a global named like k's parameter
    assert m1.hash_module() == before


def test_hash_follows_launch_bounds():
    def make(bounds):
        @wp.kernel(launch_bounds=bounds, module="unique")
        def bounded(a: wp.array(dtype=int)):
            a[wp.tid()] = 1

        return bounded.module.hash_module()

    assert make(64) != make(128)  # the CUDA entry's .maxntid differs
    assert make(64) == make(64) != make(None)


def test_unique_kernels_differing_in_launch_bounds_stay_apart():
    def make(bounds):
        @wp.kernel(launch_bounds=bounds, module="unique")
        def bounded_twice(a: wp.array(dtype=int)):
            a[wp.tid()] = 1

        return bounded_twice

    k64, k128 = make(64), make(128)
    assert k64 is not k128 and (k64.launch_bounds, k128.launch_bounds) == (64, 128)
    assert make(64) is k64  # an identical redeclaration is the same kernel
