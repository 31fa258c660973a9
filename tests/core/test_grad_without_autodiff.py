"""``wp.grad(f)(x)`` in a kernel when warp-autodiff is not loaded (``WARP_DISABLE_PLUGINS=all``):
a compile error naming the missing package (with autodiff loaded, see
tests/autodiff/test_grad_in_kernels.py)."""

from __future__ import annotations

import pytest

import warp as wp
from warp.plugins.manager import get_plugin_manager

pytestmark = pytest.mark.skipif(
    bool(get_plugin_manager().hook.warp_function_gradient.get_hookimpls()),
    reason="warp-autodiff is loaded: wp.grad works",
)


@wp.func
def cube(x: float):
    return x * x * x


@wp.kernel(enable_backward=False)
def uses_grad(x: wp.array(dtype=float)):
    x[0] = wp.grad(cube)(x[0])


def test_grad_without_autodiff_names_the_package():
    with pytest.raises(wp.errors.WarpCodegenError, match=r"wp.grad\(cube\) needs the 'warp-autodiff'"):
        wp.launch(uses_grad, 1, inputs=[wp.zeros(1)])
