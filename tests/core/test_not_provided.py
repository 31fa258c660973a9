"""Warp 1.19 names that warp-suite does not provide raise errors that say so and what to use."""

import importlib
import pathlib

import pytest

import warp as wp
from warp import not_provided
from warp.errors import WarpCodegenNameError

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "coming-from-warp.md"


@pytest.mark.parametrize("name", ["launch_tiled", "tile_load", "timing_begin", "timing_end",
                                  "get_cuda_kernel_properties", "fabricarray", "Texture2D",
                                  "map"])
def test_attribute_error_says_not_provided_and_what_instead(name):
    entry = not_provided.NAMES[name]
    with pytest.raises(AttributeError, match=rf"^wp\.{name} is not provided by warp-suite") as info:
        getattr(wp, name)
    assert entry.instead in str(info.value)
    assert info.value.name == name
    assert not hasattr(wp, name)


def test_unknown_name_keeps_the_plain_attribute_error():
    with pytest.raises(AttributeError, match=r"^module 'warp' has no attribute 'no_such_name_here'$"):
        wp.no_such_name_here  # noqa: B018


@pytest.mark.parametrize("module", ["warp.fem", "warp.sparse", "warp.fem.geometry",
                                    "warp.tests.unittest_utils"])
def test_submodule_import_error(module):
    head = ".".join(module.split(".")[:2])
    with pytest.raises(ModuleNotFoundError, match=rf"^{head} is not provided by warp-suite .*; instead: "):
        importlib.import_module(module)


def test_from_import_of_submodule():
    with pytest.raises(ImportError, match="warp.sparse is not provided"):
        from warp.sparse import bsr_mv  # noqa: F401


def test_kernel_builtin_not_provided_is_a_located_compile_error():
    @wp.kernel
    def uses_tiles(a: wp.array(dtype=float)):
        t = wp.tile_load(a, shape=4)  # noqa: F841

    expected = (r"'wp\.tile_load' is a kernel builtin of NVIDIA Warp that this implementation "
                r"does not provide \(tiles")
    with pytest.raises(WarpCodegenNameError, match=expected) as info:
        wp.launch(uses_tiles, dim=1, inputs=[wp.zeros(4, dtype=float)])
    assert "uses_tiles" in str(info.value)


def test_names_provided_here_are_not_in_the_table():
    provided = [name for name in not_provided.NAMES if name in vars(wp)]
    assert provided == []


def test_docs_list_every_name():
    text = DOC.read_text()
    for name in not_provided.NAMES:
        assert f"`wp.{name}`" in text, name
    for module in not_provided.MODULES:
        assert f"`{module}`" in text, module
    for name in not_provided.GEOMETRY_NAMES:
        assert f"`warp.geometry.{name}`" in text, name
    for attribute in not_provided.ATTRIBUTES:
        assert f"`wp.{attribute}`" in text, attribute


def test_geometry_names_not_provided():
    import warp.geometry

    expected = r"^warp\.geometry\.delaunay_edge_flip is not provided by warp-suite"
    with pytest.raises(AttributeError, match=expected):
        warp.geometry.delaunay_edge_flip  # noqa: B018
    assert callable(warp.geometry.sparse_marching_cubes)
    with pytest.raises(AttributeError, match=r"^module 'warp.geometry' has no attribute 'nothing_here'$"):
        warp.geometry.nothing_here  # noqa: B018


@pytest.mark.parametrize(
    "name", ["Logger", "ModuleBuildOptions", "from_ptr", "transform_expand"]
)
def test_more_warp_names_say_what_to_use(name):
    with pytest.raises(AttributeError, match=rf"^wp\.{name} is not provided by warp-suite .*; instead: "):
        getattr(wp, name)


def test_module_not_provided_as_attribute():
    with pytest.raises(AttributeError, match=r"^warp\.sparse is not provided by warp-suite .*; instead: "):
        wp.sparse  # noqa: B018
    assert not hasattr(wp, "fem")


def test_is_device_available():
    assert wp.is_device_available("cpu") is True
    assert wp.is_device_available(wp.get_device("cpu")) is True
    assert wp.is_device_available(f"cuda:{wp.get_cuda_device_count() + 3}") is False
