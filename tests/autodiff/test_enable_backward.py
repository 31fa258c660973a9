"""Switching adjoint generation off: kernel flag, module option, global config."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from adutil import F, f64

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel(enable_backward=False)
def no_backward(a: wp.array(dtype=F), out: wp.array(dtype=F)):
    i = wp.tid()
    out[i] = a[i] * a[i]


@wp.kernel(enable_backward=True)
def with_backward(a: wp.array(dtype=F), out: wp.array(dtype=F)):
    i = wp.tid()
    out[i] = a[i] * a[i]


def _adjoint_launch(kernel):
    a, out = f64([1.0, 2.0]), wp.zeros(2, dtype=F)
    wp.launch(kernel, 2, inputs=[a], outputs=[out])  # the forward kernel works
    np.testing.assert_allclose(out.numpy(), [1.0, 4.0])
    adj_a = wp.zeros(2, dtype=F)
    wp.launch(
        kernel, 2, inputs=[a], outputs=[out], adj_inputs=[adj_a], adj_outputs=[f64([1.0, 1.0])], adjoint=True
    )
    return adj_a.numpy()


def test_kernel_flag_disables_the_adjoint():
    with pytest.raises(RuntimeError, match="no adjoint.*enable_backward=False"):
        _adjoint_launch(no_backward)


def test_tape_backward_through_a_kernel_without_adjoint_raises():
    a, out = f64([1.0], requires_grad=True), wp.zeros(1, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(no_backward, 1, inputs=[a], outputs=[out])
    with pytest.raises(RuntimeError, match="no_backward"):
        tape.backward(grads={out: f64([1.0])})


def test_kernel_flag_overrides_global_config():
    saved = wp.config.enable_backward
    wp.config.enable_backward = False
    try:
        np.testing.assert_allclose(_adjoint_launch(with_backward), [2.0, 4.0])
    finally:
        wp.config.enable_backward = saved


def test_global_config_and_module_option(tmp_path, monkeypatch):
    """Kernels of a module compiled with backward disabled (config or set_module_options) have no adjoint."""
    source = (
        "import warp as wp\n"
        "@wp.kernel\n"
        "def k(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):\n"
        "    i = wp.tid()\n"
        "    out[i] = a[i] * a[i]\n"
    )
    for name in ("ad_mod_config", "ad_mod_option", "ad_mod_enabled"):
        (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    import ad_mod_config
    import ad_mod_enabled
    import ad_mod_option

    saved = wp.config.enable_backward
    wp.config.enable_backward = False
    try:
        with pytest.raises(RuntimeError, match="no adjoint"):
            _adjoint_launch(ad_mod_config.k)
    finally:
        wp.config.enable_backward = saved
    wp.set_module_options({"enable_backward": False}, module=ad_mod_option)
    with pytest.raises(RuntimeError, match="no adjoint"):
        _adjoint_launch(ad_mod_option.k)
    np.testing.assert_allclose(_adjoint_launch(ad_mod_enabled.k), [2.0, 4.0])
