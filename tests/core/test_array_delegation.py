"""The array methods that delegate to arrays/inplace.py, views.py, staging.py, printing.py,
numpy_interface.py and the ArithmeticOperators mixin, checked against NumPy on strided views."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


def test_inplace_ops_on_a_strided_view_leave_the_gaps():
    values = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = wp.array(values.copy(), dtype=float, device="cpu")
    expected = values.copy()
    a[:, ::2].fill_(7.0)
    expected[:, ::2] = 7.0
    np.testing.assert_array_equal(a.numpy(), expected)
    a.transpose()[1:3].zero_()
    expected.T[1:3] = 0.0
    np.testing.assert_array_equal(a.numpy(), expected)
    a[::2].assign(np.full((2, 6), -1.0))
    expected[::2] = -1.0
    np.testing.assert_array_equal(a.numpy(), expected)


def test_inplace_errors_name_the_operation():
    a = wp.zeros(3, dtype=wp.vec2)
    with pytest.raises(ValueError, match="cannot fill an array of dtype vec2"):
        a.fill_("x")
    with pytest.raises(ValueError, match=r"assign: shape mismatch, destination has shape \(3,\)"):
        a.assign(np.zeros((4, 2)))
    with pytest.raises(TypeError, match=r"zero_\(\) is not available on an array annotation"):
        wp.array(dtype=float).zero_()


def test_views_match_numpy_and_share_memory():
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = wp.array(values, dtype=float, device="cpu")
    np.testing.assert_array_equal(a.reshape((4, -1)).numpy(), values.reshape(4, -1))
    np.testing.assert_array_equal(a.transpose().numpy(), values.T)
    np.testing.assert_array_equal(a.flatten().numpy(), values.ravel())
    np.testing.assert_array_equal(a.view(wp.int32).numpy(), values.view(np.int32))
    c = a.transpose().contiguous()
    assert c.is_contiguous and c.ptr != a.ptr
    np.testing.assert_array_equal(c.numpy(), values.T)
    assert a.contiguous() is a and a.to("cpu") is a
    a.reshape(-1).fill_(1.0)
    assert a.numpy().sum() == 12.0
    with pytest.raises(RuntimeError, match="reshaping non-contiguous arrays is unsupported"):
        a.transpose().reshape(-1)
    with pytest.raises(ValueError, match="are not a permutation"):
        a.transpose((0, 0))


def test_text_numpy_ctypes_and_operators():
    a = wp.array([1.0, 2.0], dtype=float)
    assert repr(a) == "array([1., 2.], dtype=float32)" and str(a) == "[1. 2.]"
    assert np.asarray(a, dtype=np.float64).dtype == np.float64
    with pytest.raises(ValueError, match="without a copy"):
        a.__array__(np.float64, copy=False)
    assert a.cptr()[1] == 2.0
    np.testing.assert_array_equal((3.0 - a).numpy(), [2.0, 1.0])
    np.testing.assert_array_equal((a * 2.0 % 3.0).numpy(), np.fmod(np.array([2.0, 4.0]), 3.0))
    assert isinstance(a + 1.0, wp.array)
