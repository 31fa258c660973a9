"""``warp._src``: Warp's spellings of public modules are aliases of ours, and nothing else."""

import importlib

import pytest

import warp as wp
import warp._src


def test_core_modules_are_aliases():
    assert importlib.import_module("warp._src.types") is wp.types
    assert importlib.import_module("warp._src.utils") is wp.utils


@pytest.mark.needs_plugin("autodiff")
def test_autograd_alias_when_warp_autodiff_is_installed():
    import warp.autograd

    assert importlib.import_module("warp._src.autograd") is warp.autograd
    assert warp._src.ALIASED_MODULES["autograd"] is warp.autograd


def test_private_machinery_is_missing():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("warp._src.context")
