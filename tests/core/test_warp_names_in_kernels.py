"""Names a kernel's module does not define resolve as ``wp.<name>`` (NVIDIA Warp does this): bare
``vec3``, ``mat33``, ``length``, ``expect_eq``, ``tid`` in kernels; ``wp.float``/``wp.int`` convert
as ``float``/``int`` do. An unknown name still raises ``WarpCodegenNameError``."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.kernel(module="unique")
def _bare(x: wp.array(dtype=float)):
    v = vec3(1.0, 2.0, 2.0)  # noqa: F821 - resolved as wp.vec3
    m = mat33(2.0)  # noqa: F821
    expect_eq(v[0], 1.0)  # noqa: F821
    x[tid()] = length(v) + m[0, 0]  # noqa: F821


@wp.kernel(module="unique")
def _float_int(x: wp.array(dtype=wp.float16), y: wp.array(dtype=float)):
    y[0] = wp.float(x[0]) * 2.0 + wp.float(wp.int(2.7))


@pytest.mark.needs_plugin("builtins")
def test_bare_warp_names():
    x = wp.zeros(1, dtype=float)
    wp.launch(_bare, 1, inputs=[x])
    np.testing.assert_allclose(x.numpy(), [3.0 + 2.0])


def test_wp_float_and_int():
    y = wp.zeros(1, dtype=float)
    wp.launch(_float_int, 1, inputs=[wp.array([1.5], dtype=wp.float16), y])
    np.testing.assert_allclose(y.numpy(), [5.0])


def test_unknown_name_is_an_error():
    def body():
        y = undefined_name_here + 1.0  # noqa: F821, F841

    with pytest.raises(wp.WarpCodegenNameError, match="name 'undefined_name_here' is not defined"):
        wp.launch(wp.Kernel(body, module="unique"), 1)


def test_undefined_name_is_also_a_key_error():
    @wp.kernel
    def uses_undefined():
        i = wp.tid()
        _ = typez(i)(0)  # noqa: F821 - undefined on purpose

    with pytest.raises(KeyError, match=r"Referencing undefined symbol: typez") as info:
        wp.launch(uses_undefined, dim=1, device="cpu")
    assert isinstance(info.value, wp.WarpCodegenNameError)
    assert "name 'typez' is not defined" in str(info.value)
