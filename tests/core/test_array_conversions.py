"""The array class's conversions, which sit in the modules below it (copying, DLPack export, CUDA
array interface) or reach it through a hook (``a @ b``): values against NumPy, errors by type."""

from __future__ import annotations

import numpy as np
import pytest
import warp as wp
from warp.plugins import hookimpl
from warp.plugins.manager import get_plugin_manager


def test_matmul_operator_matches_numpy():
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((3, 5)).astype(np.float32), rng.standard_normal((5, 2)).astype(np.float32)
    product = wp.array(x, device="cpu") @ wp.array(y, device="cpu")
    assert isinstance(product, wp.array) and product.shape == (3, 2)
    np.testing.assert_allclose(product.numpy(), x @ y, rtol=1e-5, atol=1e-6)


def test_matmul_operator_of_unsupported_operands_is_a_type_error():
    a = wp.zeros(4, dtype=float, device="cpu")
    with pytest.raises(TypeError, match="unsupported operand type"):
        a @ 3  # noqa: B018
    with pytest.raises(TypeError, match="unsupported operand type"):
        a @ a  # noqa: B018  (1-d arrays: no implementation takes them)


class _DotPlugin:
    """A plugin giving ``a @ b`` of two 1-d arrays (their dot product as a 1-element array)."""

    @hookimpl
    def warp_array_matmul(self, a, b):
        if isinstance(b, wp.array) and a.ndim == 1 and b.ndim == 1:
            return wp.array([float(np.dot(a.numpy(), b.numpy()))], dtype=float, device="cpu")
        return None


def test_matmul_operator_dispatches_through_the_hook():
    pm = get_plugin_manager()
    plugin = _DotPlugin()
    pm.register(plugin, name="test-dot")
    try:
        a = wp.array([1.0, 2.0, 3.0], dtype=float, device="cpu")
        assert (a @ a).numpy().tolist() == [14.0]
        two_d = wp.array(np.eye(2, dtype=np.float32), device="cpu")
        np.testing.assert_array_equal((two_d @ two_d).numpy(), np.eye(2))  # still wp.matmul's
    finally:
        pm.unregister(plugin)


def test_copies_the_array_makes_of_itself():
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = wp.array(values, device="cpu", requires_grad=True)
    t = a.transpose()
    c = t.contiguous()
    assert c.is_contiguous and c.ptr != a.ptr and c.requires_grad
    np.testing.assert_array_equal(c.numpy(), values.T)
    same = a.to("cpu")
    assert same is a
    clone = wp.clone(t, requires_grad=False)
    assert clone.is_contiguous and not clone.requires_grad
    np.testing.assert_array_equal(clone.numpy(), values.T)
    with pytest.raises(TypeError, match="copy: dest must be a warp array, got ndarray"):
        wp.copy(values, a)
    with pytest.raises(TypeError, match="expected a warp array, got list"):
        wp.clone([1.0])


def test_dlpack_copy_is_a_separate_contiguous_array():
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = wp.array(values, device="cpu")
    copied = np.from_dlpack(a.transpose(), copy=True)
    np.testing.assert_array_equal(copied, values.T)
    a.fill_(7.0)
    np.testing.assert_array_equal(copied, values.T)  # not a view of a
    assert a.__dlpack_device__() == (1, 0)
