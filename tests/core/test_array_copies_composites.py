"""Tests for warp.arrays: copies, clones and transfers, and arrays of composite element types."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from warp.arrays import (
    array,
    clone,
    copy,
    ones,
    zeros,
)
from warp.runtime.devices import ScopedDevice, get_device, is_cuda_available

from array_helpers import vec3

no_cuda = pytest.mark.skipif(is_cuda_available(), reason="machine has a CUDA device")


# -- copy / clone / to --------------------------------------------------------------------------


def test_copy_whole_and_offsets():
    src = array(np.arange(10, dtype=np.float32))
    dst = zeros(10)
    copy(dst, src)
    np.testing.assert_array_equal(dst.numpy(), np.arange(10))
    dst.zero_()
    copy(dst, src, dest_offset=2, src_offset=5, count=3)
    expected = np.zeros(10, dtype=np.float32)
    expected[2:5] = [5, 6, 7]
    np.testing.assert_array_equal(dst.numpy(), expected)
    small = zeros(4)
    copy(small, src, src_offset=6)
    assert small.list() == [6, 7, 8, 9]


def test_copy_errors():
    src = array(np.arange(10, dtype=np.float32))
    with pytest.raises(ValueError, match="destination range"):
        copy(zeros(5), src)
    with pytest.raises(ValueError, match="source range"):
        copy(zeros(10), src, src_offset=8, count=3)
    with pytest.raises(ValueError, match="non-negative"):
        copy(zeros(10), src, count=-1)
    with pytest.raises(TypeError, match="dest must be a warp array"):
        copy(np.zeros(10), src)


def test_copy_converts_dtype_and_multidim():
    src = array(np.arange(6, dtype=np.int32).reshape(2, 3))
    dst = zeros(6, dtype=wp.float64)
    copy(dst, src)
    assert dst.list() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_copy_non_contiguous():
    base = array(np.arange(24, dtype=np.int32).reshape(4, 6))
    src = base[:, ::2]
    dst = zeros((4, 3), dtype=int)
    copy(dst, src)
    np.testing.assert_array_equal(dst.numpy(), np.arange(24).reshape(4, 6)[:, ::2])
    with pytest.raises(RuntimeError, match="contiguous"):
        copy(dst, src, dest_offset=1)
    with pytest.raises(ValueError, match="same shape"):
        copy(zeros((3, 4), dtype=int), src)


def test_copy_overlapping():
    a = array(np.arange(8, dtype=np.int32))
    copy(a, a, dest_offset=2, src_offset=0, count=6)
    assert a.list() == [0, 1, 0, 1, 2, 3, 4, 5]


def test_clone_and_to():
    n = np.arange(12, dtype=np.float64).reshape(3, 4)
    a = array(n, requires_grad=True)
    c = clone(a)
    assert c.ptr != a.ptr and c.requires_grad and c.grad is not None
    np.testing.assert_array_equal(c.numpy(), n)
    c2 = clone(a[:, 1::2], requires_grad=False)
    assert c2.is_contiguous and not c2.requires_grad
    np.testing.assert_array_equal(c2.numpy(), n[:, 1::2])
    assert a.to("cpu") is a
    assert a.to(get_device("cpu")) is a


@no_cuda
def test_cuda_requests_raise_clear_error():
    msg = "CUDA device 'cuda:0' requested but CUDA is not available"
    a = zeros(3)
    with pytest.raises(RuntimeError, match=msg):
        a.to("cuda")
    with pytest.raises(RuntimeError, match=msg):
        zeros(3, device="cuda:0")
    with pytest.raises(RuntimeError, match=msg):
        array([1.0], dtype=float, device="cuda")
    with pytest.raises(RuntimeError, match=msg):
        clone(a, device="cuda")


def test_scoped_device_default_for_allocation():
    with ScopedDevice("cpu"):
        assert zeros(2).device == "cpu"


# -- composite element types --------------------------------------------------------------------


def test_composite_dtype_layout():
    n = np.arange(12, dtype=np.float32).reshape(4, 3)
    a = array(n, dtype=vec3)
    assert a.shape == (4,) and a.strides == (12,) and a.size == 4
    assert a.numpy().shape == (4, 3)
    np.testing.assert_array_equal(a.numpy(), n)
    assert a[1] == vec3(3, 4, 5)
    assert a.list()[2] == vec3(6, 7, 8)
    assert a.capacity == 48
    iface = a.__array_interface__
    assert iface["shape"] == (4, 3) and iface["strides"] == (12, 4)


def test_composite_zero_copy_and_flat_input():
    n = np.arange(12, dtype=np.float32).reshape(4, 3)
    a = array(n, dtype=vec3, copy=False)
    assert a.ptr == n.ctypes.data
    b = array(np.arange(6, dtype=np.float32), dtype=vec3)
    assert b.shape == (2,)
    with pytest.raises(ValueError, match="incompatible"):
        array(np.zeros((4, 2), dtype=np.float32), dtype=vec3)


def test_composite_fill_and_constructors():
    a = zeros((2, 2), dtype=vec3)
    assert a.numpy().shape == (2, 2, 3)
    a.fill_(vec3(1, 2, 3))
    np.testing.assert_array_equal(a.numpy(), np.tile([1, 2, 3], (2, 2, 1)))
    o = ones(3, dtype=vec3)
    assert o.numpy().tolist() == [[1, 1, 1]] * 3
    l = array([vec3(1, 2, 3), vec3(4, 5, 6)], dtype=vec3)
    assert l.shape == (2,) and l.list() == [vec3(1, 2, 3), vec3(4, 5, 6)]
    s = a[:, 1]
    s.zero_()
    assert a.numpy()[:, 1].sum() == 0 and a.numpy()[:, 0].sum() == 12


def test_out_of_range_python_ints_raise_instead_of_wrapping():
    with pytest.raises(OverflowError, match="array of int8: Python integer 300 out of bounds for int8"):
        wp.array([300, -129], dtype=wp.int8)
    with pytest.raises(OverflowError, match="array of vec3ub: Python integer 256 out of bounds for uint8"):
        wp.array([[1, 2, 256]], dtype=wp.vec3ub)
    with pytest.raises(OverflowError, match="array of int32"):
        wp.array([wp.int32(1), 2**31], dtype=wp.int32)
    edges = wp.array([127, -128], dtype=wp.int8)
    assert edges.numpy().tolist() == [127, -128]


def test_python_floats_beyond_float32_range_store_inf():
    with np.errstate(over="ignore"):
        a = wp.array([1e300, -1e300, 1.0], dtype=wp.float32)
    assert a.numpy().tolist() == [np.inf, -np.inf, 1.0]


def test_empty_arrays_have_no_pointer_but_a_numpy_view():
    a = wp.empty((0, 3), dtype=wp.vec2f, requires_grad=True)
    assert a.ptr is None and a.grad.ptr is None and a.size == 0
    a.zero_()
    a.fill_(wp.vec2f(1.0, 2.0))
    assert a.list() == [] and a.numpy().shape == (0, 3, 2)
    b = wp.clone(a)
    wp.copy(a, b)
    a.assign(b)
    z = wp.zeros((1, 0), dtype=wp.vec2f)
    assert z.__array_interface__["data"][0] != 0  # NumPy refuses a null pointer
    n = np.asarray(z)
    assert n.shape == (1, 0, 2) and n.strides == (0, 8, 4)


def test_allocation_with_strides_of_ones_own():
    shape = (2, 3, 4)
    strides = wp.types.strides_from_shape(shape, wp.vec3)
    assert strides == (144, 48, 12)
    a = wp.zeros(shape[::-1], dtype=wp.vec3, strides=strides[::-1])  # a transposed layout
    assert a.strides == strides[::-1] and not a.is_contiguous
    assert a.capacity == wp.zeros(shape, dtype=wp.vec3).capacity
    values = np.arange(72, dtype=np.float32).reshape(4, 3, 2, 3)
    a.assign(values)
    np.testing.assert_array_equal(a.numpy(), values)
    with pytest.raises(ValueError, match="Invalid number of strides, expected 2 strides, got 1"):
        wp.empty((2, 2), dtype=float, strides=(4,))
    with pytest.raises(NotImplementedError, match="Negative strides"):
        wp.empty((3, 3), dtype=wp.int32, strides=(16, -4))


def test_matrix_fill_from_flat_components():
    a = wp.zeros(3, dtype=wp.mat22)
    a.fill_(np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(a.numpy(), np.tile(np.arange(4.0), 3).reshape(3, 2, 2))
    b = wp.full(2, [1, 2, 3, 4], dtype=wp.mat22)
    np.testing.assert_array_equal(b.numpy()[1], [[1, 2], [3, 4]])


def test_composite_array_from_rows_of_components():
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    v = wp.array(data, dtype=wp.vec3)  # two vectors per row
    assert v.shape == (4, 2)
    np.testing.assert_array_equal(v.numpy(), data.reshape(4, 2, 3))
    m = wp.array(data[:, :4].copy(), dtype=wp.mat22)  # one matrix per row
    assert m.shape == (4,)
    np.testing.assert_array_equal(m.numpy(), data[:, :4].reshape(4, 2, 2))
    strided = wp.array(np.arange(14, dtype=np.float32).reshape(2, 7))[:, 1:]
    np.testing.assert_array_equal(wp.array(strided, dtype=wp.vec3).numpy(),
                                  np.arange(14, dtype=np.float32).reshape(2, 7)[:, 1:].reshape(2, 2, 3))
    with pytest.raises(ValueError, match="expected trailing dimensions"):
        wp.array(np.zeros((2, 5), dtype=np.float32), dtype=wp.vec3)


def test_composite_array_from_column_vectors():
    cols = np.arange(12, dtype=np.float64).reshape(4, 3, 1)  # NumPy column vectors (n, 3, 1)
    v = wp.array(cols, dtype=wp.vec3)
    assert v.shape == (4,)
    np.testing.assert_array_equal(v.numpy(), cols[:, :, 0])
    m = wp.array(np.arange(8.0).reshape(2, 4, 1), dtype=wp.mat22)  # four components as a column
    np.testing.assert_array_equal(m.numpy(), np.arange(8.0).reshape(2, 2, 2))
    with pytest.raises(ValueError, match="expected trailing dimensions"):
        wp.array(np.zeros((4, 2, 1), dtype=np.float32), dtype=wp.vec3)


def test_object_with_host_and_cuda_interfaces_makes_a_cpu_array():
    class BothInterfaces:
        def __init__(self, data):
            self.data = np.array(data, dtype=np.float32)
            self.__array_interface__ = self.data.__array_interface__
            self.__cuda_array_interface__ = self.data.__array_interface__

    a = wp.array(BothInterfaces([1, 2, 3, 4]), dtype=wp.mat22, device="cpu")
    assert a.shape == (1,) and a.ptr
    np.testing.assert_array_equal(a.numpy(), [[[1, 2], [3, 4]]])
