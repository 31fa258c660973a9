"""Tests for warp.arrays: construction, zero-copy interop, views, copies and kernel descriptors."""

from __future__ import annotations

import gc
import typing

import numpy as np
import pytest

import warp as wp
from warp.arrays import (
    array,
    array1d,
    array2d,
    array3d,
    array4d,
    as_array,
    clone,
    empty,
    empty_like,
    from_numpy,
    full,
    full_like,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from warp.runtime.devices import get_device, is_cuda_available
from warp.types.array_type import ArrayType

from array_helpers import unpack_desc, vec3

no_cuda = pytest.mark.skipif(is_cuda_available(), reason="machine has a CUDA device")


# -- construction ---------------------------------------------------------------------------------


def test_from_list_values_and_default_inference():
    a = array([1.0, 2.0, 3.0], dtype=float)
    assert a.dtype is wp.float32
    np.testing.assert_array_equal(a.numpy(), np.array([1, 2, 3], dtype=np.float32))
    # lists without dtype follow NumPy's inference
    assert array([1.0, 2.0]).dtype is wp.float64
    assert array([1, 2]).dtype is wp.int64
    assert array([True, False]).dtype is wp.bool
    assert array([wp.float32(1.0), wp.float32(2.0)]).dtype is wp.float32


def test_from_nested_list_2d():
    a = array([[1, 2, 3], [4, 5, 6]], dtype=int)
    assert a.dtype is wp.int32
    assert a.shape == (2, 3) and a.ndim == 2 and a.size == 6
    assert a.strides == (12, 4)
    np.testing.assert_array_equal(a.numpy(), [[1, 2, 3], [4, 5, 6]])


def test_from_numpy_keeps_dtype():
    n = np.random.rand(5)
    a = array(n)
    assert a.dtype is wp.float64
    np.testing.assert_array_equal(a.numpy(), n)
    assert a.ptr != n.ctypes.data  # copy=True by default
    b = array(n, dtype=wp.float32)
    assert b.dtype is wp.float32
    np.testing.assert_allclose(b.numpy(), n.astype(np.float32))


def test_canonical_dtypes():
    assert zeros(2, dtype=float).dtype is wp.float32
    assert zeros(2, dtype=int).dtype is wp.int32
    assert zeros(2, dtype=bool).dtype is wp.bool
    assert zeros(2, dtype=np.float64).dtype is wp.float64
    assert array(dtype=int).dtype is wp.int32


def test_allocations_are_aligned():
    for n in (1, 3, 17, 1000):
        assert zeros(n, dtype=wp.int8).ptr % 64 == 0
        assert empty((n, 3), dtype=wp.float64).ptr % 64 == 0
        assert array([i % 100 for i in range(n)], dtype=wp.int8).ptr % 64 == 0


def test_shape_from_ptr_and_shape_only():
    a = array(shape=(2, 3), dtype=wp.float32)
    assert a.shape == (2, 3) and a.capacity == 24
    src = np.arange(6, dtype=np.int32)
    b = array(ptr=src.ctypes.data, dtype=wp.int32, shape=(2, 3), device="cpu")
    np.testing.assert_array_equal(b.numpy(), src.reshape(2, 3))
    b.numpy()[1, 2] = 42
    assert src[5] == 42


def test_ptr_deleter_called():
    src = np.arange(4, dtype=np.int32)
    calls = []
    free = lambda p, n: calls.append((p, n))  # noqa: E731
    b = array(ptr=src.ctypes.data, dtype=wp.int32, shape=4, deleter=free)
    assert b.deleter is free  # NVIDIA Warp's attribute; None for memory warp allocates
    assert zeros(3).deleter is None and b[1:].deleter is None
    ptr = b.ptr
    del b
    gc.collect()
    assert calls == [(ptr, 16)]


def test_too_many_dims_and_bad_shapes():
    with pytest.raises(ValueError, match=r"\(1, 1, 1, 1, 1\).*1 to 4 dimensions"):
        zeros((1, 1, 1, 1, 1))
    with pytest.raises(ValueError, match="Array shapes must be non-negative"):
        zeros((2, -1))
    with pytest.raises(ValueError, match="1 to 4 dimensions"):
        array(np.zeros((1, 1, 1, 1, 2)))
    with pytest.raises(ValueError, match="1 to 4 dimensions, not 5"):
        array(dtype=float, ndim=5)
    with pytest.raises(TypeError, match="cannot create an array from float"):
        array(1.5)
    with pytest.raises(TypeError, match="unsupported input data dtype"):
        array(np.array(["a", "b"]))


def test_zero_size_arrays():
    a = zeros(0)
    assert a.shape == (0,) and a.size == 0 and len(a) == 0
    assert a.numpy().shape == (0,)
    assert a.list() == []
    b = zeros((3, 0), dtype=int)
    assert b.size == 0 and b.numpy().shape == (3, 0)
    b.fill_(1)
    b.zero_()
    assert clone(b).shape == (3, 0)
    _, _, shape, _ = unpack_desc(b)
    assert shape == (3, 0, 0, 0)


def test_array_from_warp_array():
    a = array([1, 2, 3], dtype=int)
    b = array(a)
    assert b.dtype is wp.int32 and b.ptr != a.ptr
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    c = array(a, copy=False)
    assert c.ptr == a.ptr
    d = array(a, dtype=float)
    assert d.dtype is wp.float32
    np.testing.assert_array_equal(d.numpy(), [1.0, 2.0, 3.0])


def test_array_interface_object_input():
    class Holder:
        def __init__(self, arr):
            self.arr = arr
            self.__array_interface__ = arr.__array_interface__

    n = np.arange(4, dtype=np.float32)
    a = array(Holder(n), copy=False)
    assert a.ptr == n.ctypes.data and a.dtype is wp.float32

    class ArrayLike:
        def __array__(self, dtype=None, copy=None):
            return np.array([1, 2, 3], dtype=np.int16)

    b = array(ArrayLike())
    assert b.dtype is wp.int16
    assert b.list() == [1, 2, 3]


def test_shape_argument_reshapes_data():
    a = array(np.arange(6), dtype=int, shape=(2, 3))
    assert a.shape == (2, 3)
    np.testing.assert_array_equal(a.numpy(), np.arange(6).reshape(2, 3))
    with pytest.raises(ValueError, match="incompatible"):
        array(np.arange(5), dtype=int, shape=(2, 3))


# -- zero-copy ----------------------------------------------------------------------------------


def test_zero_copy_numpy_wrap():
    n = np.arange(8, dtype=np.float32)
    a = array(n, dtype=wp.float32, copy=False)
    assert a.ptr == n.ctypes.data
    n[3] = 100.0
    assert a.numpy()[3] == 100.0
    a.numpy()[4] = -1.0
    assert n[4] == -1.0
    # the wrapper keeps the NumPy memory alive
    del n
    gc.collect()
    assert a.numpy()[3] == 100.0


def test_zero_copy_with_mismatched_dtype_copies():
    n = np.arange(4, dtype=np.float64)
    a = array(n, dtype=wp.float32, copy=False)
    assert a.ptr != n.ctypes.data
    np.testing.assert_array_equal(a.numpy(), n)


def test_zero_copy_strided_numpy():
    n = np.arange(20, dtype=np.int32).reshape(4, 5)
    v = n[:, 1::2]
    a = array(v, copy=False)
    assert a.shape == (4, 2) and a.strides == v.strides and not a.is_contiguous
    assert a.ptr == v.__array_interface__["data"][0]
    np.testing.assert_array_equal(a.numpy(), v)


def test_numpy_view_is_zero_copy():
    a = zeros((3, 4), dtype=float)
    v = a.numpy()
    assert v.__array_interface__["data"][0] == a.ptr
    v[1, 2] = 5.0
    assert a.numpy()[1, 2] == 5.0
    del a
    gc.collect()
    assert v[1, 2] == 5.0  # the view keeps the array alive


def test_array_interface_round_trip():
    a = array(np.arange(12, dtype=np.float64).reshape(3, 4))
    iface = a.__array_interface__
    assert iface["version"] == 3
    assert iface["typestr"] == np.dtype(np.float64).str
    assert iface["shape"] == (3, 4) and iface["strides"] == (32, 8)
    assert iface["data"] == (a.ptr, False)
    n = np.asarray(a)
    np.testing.assert_array_equal(n, np.arange(12).reshape(3, 4))
    s = a[:, 1::2]
    ns = np.asarray(s)
    assert ns.strides == (32, 16)
    np.testing.assert_array_equal(ns, np.arange(12).reshape(3, 4)[:, 1::2])
    for dt, np_dt in [
        (wp.bool, np.bool_),
        (wp.uint8, np.uint8),
        (wp.int64, np.int64),
        (wp.float16, np.float16),
    ]:
        assert np.asarray(zeros(2, dtype=dt)).dtype == np_dt
    assert not hasattr(array(dtype=float), "__array_interface__")


# -- attributes ---------------------------------------------------------------------------------


def test_basic_attributes():
    a = zeros((2, 3, 4), dtype=wp.float64, device="cpu")
    assert a.shape == (2, 3, 4)
    assert a.strides == (96, 32, 8)
    assert a.ndim == 3 and a.size == 24 and len(a) == 2
    assert a.capacity == 24 * 8
    assert a.device == "cpu" and a.device is get_device("cpu")
    assert a.is_contiguous
    assert a.array_type == ArrayType(wp.float64, 3)
    assert not a.requires_grad and a.grad is None
    assert not a.pinned


def test_attributes_are_read_only():
    a = zeros(3)
    for name in ("ptr", "shape", "strides", "dtype", "ndim", "size", "device"):
        with pytest.raises(AttributeError):
            setattr(a, name, None)


def test_repr_and_str():
    a = array([1.0, 2.0], dtype=float)
    assert str(a) == str(np.array([1.0, 2.0], dtype=np.float32))
    assert repr(a) == "array([1., 2.], dtype=float32)"
    assert repr(array(dtype=float, ndim=2)) == "array(dtype=float32, ndim=2)"


# -- annotations --------------------------------------------------------------------------------


def test_annotation_instances():
    t = array(dtype=float, ndim=2)
    assert t.array_type == ArrayType(wp.float32, 2)
    assert t.ndim == 2 and t.dtype is wp.float32 and t.ptr is None and t.device is None
    assert t._desc is None
    assert array(dtype=float).array_type == ArrayType(wp.float32, 1)
    assert array().array_type == ArrayType(typing.Any, 1)
    assert array1d(dtype=int).array_type == ArrayType(wp.int32, 1)
    assert array2d(dtype=float).array_type == ArrayType(wp.float32, 2)
    assert array3d(dtype=float).array_type == ArrayType(wp.float32, 3)
    assert array4d(dtype=wp.float64).array_type == ArrayType(wp.float64, 4)
    assert isinstance(array2d(dtype=float), array)
    with pytest.raises(TypeError, match="annotation"):
        t.numpy()
    with pytest.raises(ValueError, match="ndim=2"):
        array2d(dtype=float, ndim=3)


def test_class_getitem():
    assert array[float].array_type == ArrayType(wp.float32, 1)
    assert array[wp.int8, 3].array_type == ArrayType(wp.int8, 3)
    assert array2d[wp.float64].array_type == ArrayType(wp.float64, 2)
    assert array3d[vec3].array_type == ArrayType(vec3, 3)


def test_fixed_ndim_classes_allocate():
    a = array2d(np.zeros((2, 2)), dtype=float)
    assert a.shape == (2, 2)
    with pytest.raises(ValueError, match="ndim=2"):
        array2d(np.zeros(3), dtype=float)


# -- indexing and views -------------------------------------------------------------------------


def test_integer_index_returns_python_scalar():
    a = array(np.arange(12, dtype=np.float32).reshape(3, 4))
    v = a[1, 2]
    assert v == 6.0 and isinstance(v, float)
    assert a[-1, -1] == 11.0
    b = array([1, 2, 3], dtype=int)
    assert b[0] == 1 and isinstance(b[0], int)
    assert isinstance(array([True], dtype=bool)[0], bool)


def test_index_errors():
    a = zeros((3, 4))
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        a[3]
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        a[0, -5]
    with pytest.raises(
        IndexError, match="too many indices for array: array is 2-dimensional, but 3 were indexed"
    ):
        a[0, 0, 0]
    with pytest.raises(TypeError, match="array indices must be integers"):
        a[[0, 1]]


def test_row_view_shares_memory():
    n = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = array(n)
    row = a[1]
    assert row.shape == (4,) and row.strides == (4,)
    assert row.ptr == a.ptr + 16
    np.testing.assert_array_equal(row.numpy(), n[1])
    row.numpy()[0] = -7
    assert a.numpy()[1, 0] == -7
    a.numpy()[1, 3] = 99
    assert row[3] == 99


@pytest.mark.parametrize(
    "key",
    [
        (slice(1, 3),),
        (slice(None), slice(1, None, 2)),
        (slice(None, None, 3), 2),
        (1, slice(0, 4, 2)),
        (slice(-2, None), slice(None, -1)),
        (Ellipsis, 1),
        (slice(5, 10),),
        (slice(None, None, -1),),
    ],
)
def test_slices_match_numpy(key):
    n = np.arange(5 * 6, dtype=np.int32).reshape(5, 6)
    a = array(n)
    v = a[key]
    expected = n[key]
    assert v.shape == expected.shape
    assert v.strides == expected.strides
    np.testing.assert_array_equal(v.numpy(), expected)
    if v.size:
        assert v.ptr == expected.__array_interface__["data"][0] - n.ctypes.data + a.ptr


def test_slice_views_write_through():
    a = zeros((4, 6), dtype=int)
    s = a[1:3, ::2]
    assert not s.is_contiguous
    s.fill_(5)
    expected = np.zeros((4, 6), dtype=np.int32)
    expected[1:3, ::2] = 5
    np.testing.assert_array_equal(a.numpy(), expected)
    s.zero_()
    assert a.numpy().sum() == 0
    s[0, 1] = 3
    assert a.numpy()[1, 2] == 3
    a[2] = 4
    np.testing.assert_array_equal(a.numpy()[2], [4] * 6)


def test_4d_slicing():
    n = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
    a = array(n)
    v = a[1, :, 1::2, 3]
    np.testing.assert_array_equal(v.numpy(), n[1, :, 1::2, 3])
    assert a[1, 2, 3, 4] == n[1, 2, 3, 4]


def test_iteration_yields_rows():
    a = array(np.arange(6).reshape(2, 3), dtype=int)
    rows = [r.list() for r in a]
    assert rows == [[0, 1, 2], [3, 4, 5]]


# -- descriptor ---------------------------------------------------------------------------------


def test_desc_packing():
    a = zeros((3, 5), dtype=wp.float32)
    ptr, gptr, shape, strides = unpack_desc(a)
    assert ptr == a.ptr and gptr == 0
    assert shape == (3, 5, 0, 0)
    assert strides == (20, 4, 0, 0)
    s = a[1:, ::2]
    ptr, _, shape, strides = unpack_desc(s)
    assert ptr == a.ptr + 20 and shape == (2, 3, 0, 0) and strides == (20, 8, 0, 0)
    b = zeros((2, 2, 2, 2), dtype=wp.int8)
    assert unpack_desc(b)[2:] == ((2, 2, 2, 2), (8, 4, 2, 1))


def test_desc_tracks_grad():
    a = zeros(4)
    assert unpack_desc(a)[1] == 0
    a.requires_grad = True
    assert unpack_desc(a)[1] == a.grad.ptr != 0
    a.requires_grad = False
    assert a.grad is None and unpack_desc(a)[1] == 0
    g = ones(4)
    a.grad = g
    assert a.requires_grad and unpack_desc(a)[1] == g.ptr
    a.grad = None
    assert not a.requires_grad and unpack_desc(a)[1] == 0


# -- gradients ----------------------------------------------------------------------------------


def test_requires_grad_allocates_zeroed_grad():
    a = ones((2, 3), dtype=wp.float64, requires_grad=True)
    assert a.requires_grad
    g = a.grad
    assert isinstance(g, array) and g.shape == (2, 3) and g.dtype is wp.float64
    np.testing.assert_array_equal(g.numpy(), np.zeros((2, 3)))
    assert g.ptr != a.ptr
    b = zeros(3)
    b.requires_grad = True
    np.testing.assert_array_equal(b.grad.numpy(), np.zeros(3))
    c = array([1.0, 2.0], dtype=float, requires_grad=True)
    assert c.grad.list() == [0.0, 0.0]


def test_grad_setter_validates():
    a = zeros(3)
    with pytest.raises(ValueError, match="grad must match"):
        a.grad = zeros(4)
    with pytest.raises(TypeError, match="grad must be a warp array"):
        a.grad = np.zeros(3)


def test_views_carry_grad_views():
    a = zeros((4, 4), requires_grad=True)
    v = a[1:3, 2]
    assert v.requires_grad
    assert v.grad.ptr == a.grad.ptr + v.ptr - a.ptr
    v.grad.fill_(1.0)
    assert a.grad.numpy()[1:3, 2].tolist() == [1.0, 1.0]
    r = a.reshape(16)
    assert r.grad.shape == (16,) and r.grad.ptr == a.grad.ptr


# -- in-place operations ------------------------------------------------------------------------


def test_fill_and_zero():
    a = empty((3, 2), dtype=wp.int16)
    a.fill_(7)
    np.testing.assert_array_equal(a.numpy(), np.full((3, 2), 7, dtype=np.int16))
    a.fill_(wp.int16(-2))
    assert a.list() == [-2] * 6
    a.zero_()
    assert a.list() == [0] * 6
    b = zeros(3, dtype=bool)
    b.fill_(True)
    assert b.list() == [True, True, True]


def test_assign():
    a = zeros((2, 3), dtype=float)
    a.assign(np.arange(6, dtype=np.float64).reshape(2, 3))
    np.testing.assert_array_equal(a.numpy(), np.arange(6).reshape(2, 3))
    a.assign([[1, 1, 1], [2, 2, 2]])
    assert a.list() == [1, 1, 1, 2, 2, 2]
    b = array(np.full((2, 3), 9.0), dtype=float)
    a.assign(b)
    assert a.list() == [9.0] * 6
    with pytest.raises(ValueError, match=r"shape mismatch.*\(2, 3\).*\(4,\)"):
        a.assign(zeros(4))
    v = a[:, 1]
    v.assign([5.0, 6.0])
    assert a.numpy()[:, 1].tolist() == [5.0, 6.0]


def test_list_returns_python_scalars():
    a = array(np.arange(4).reshape(2, 2), dtype=wp.int64)
    values = a.list()
    assert values == [0, 1, 2, 3]
    assert all(type(v) is int for v in values)
    assert all(type(v) is float for v in array([0.5], dtype=float).list())


# -- reshape, flatten, view, transpose, contiguous -----------------------------------------------


def test_reshape_and_flatten():
    a = array(np.arange(12, dtype=np.float32))
    r = a.reshape((3, 4))
    assert r.shape == (3, 4) and r.ptr == a.ptr and r.strides == (16, 4)
    r2 = a.reshape((2, -1))
    assert r2.shape == (2, 6)
    np.testing.assert_array_equal(r2.numpy(), np.arange(12).reshape(2, 6))
    f = r.flatten()
    assert f.shape == (12,) and f.ptr == a.ptr
    reshape_error = r"cannot reshape array of shape \(12,\) \(size 12\) into shape \(5, 3\) \(size 15\)"
    with pytest.raises(ValueError, match=reshape_error):
        a.reshape((5, 3))
    with pytest.raises(RuntimeError, match="cannot reshape"):  # NVIDIA Warp's exception type
        a.reshape((5, -1))
    with pytest.raises(ValueError, match="1 to 4 dimensions"):
        a.reshape((1, 1, 1, 2, 6))
    with pytest.raises(RuntimeError, match="non-contiguous"):
        r[:, ::2].reshape(6)
    with pytest.raises(RuntimeError, match="non-contiguous"):
        r[:, ::2].flatten()


def test_view_dtype():
    a = array([1.0, 2.0], dtype=wp.float32)
    v = a.view(wp.uint32)
    assert v.ptr == a.ptr and v.dtype is wp.uint32
    assert v.list() == np.array([1.0, 2.0], dtype=np.float32).view(np.uint32).tolist()
    view_error = ("cannot create an array view with dtype float64 from source dtype float32: "
                  "source dtype has size 4 bytes, but target dtype has size 8 bytes")
    with pytest.raises(TypeError, match=view_error):
        a.view(wp.float64)


def test_view_between_composites_and_scalars():
    n = np.arange(16, dtype=np.float32).reshape(4, 2, 2)
    m = array(n, dtype=wp.mat22)
    s = m.view(wp.float32)  # the components become dimensions
    assert s.shape == (4, 2, 2) and s.ptr == m.ptr
    np.testing.assert_array_equal(s.numpy(), n)
    v = array(n.reshape(4, 4), dtype=wp.float32).view(wp.vec4)  # trailing dimension folded
    assert v.shape == (4,)
    np.testing.assert_array_equal(v.numpy(), n.reshape(4, 4))
    np.testing.assert_array_equal(m.view(wp.quat).numpy(), n.reshape(4, 4))  # same size
    with pytest.raises(TypeError, match="source scalar dtype float32 has size 4 bytes, but target dtype"):
        m.view(wp.float64)
    with pytest.raises(TypeError, match="target scalar dtype float64 has size 8 bytes"):
        array(n.reshape(4, 4), dtype=wp.float32).view(wp.vec4d)
    one = array(np.arange(4, dtype=np.float32)).view(wp.vec4)  # a single vector: shape (1,)
    assert one.shape == (1,)
    np.testing.assert_array_equal(one.numpy(), [[0, 1, 2, 3]])
    with pytest.raises(TypeError, match="trailing dimensions must be contiguous and of shape"):
        array(n.reshape(8, 2), dtype=wp.float32).view(wp.vec4)


def test_transpose_and_contiguous():
    n = np.arange(6, dtype=np.int32).reshape(2, 3)
    a = array(n)
    t = a.transpose()
    assert t.shape == (3, 2) and t.strides == (4, 12) and not t.is_contiguous
    np.testing.assert_array_equal(t.numpy(), n.T)
    c = t.contiguous()
    assert c.is_contiguous and c.ptr != a.ptr
    np.testing.assert_array_equal(c.numpy(), n.T)
    assert a.contiguous() is a


# -- constructors -------------------------------------------------------------------------------


def test_constructors():
    z = zeros((2, 3), dtype=wp.int32)
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3), dtype=np.int32))
    o = ones(4, dtype=wp.float64)
    np.testing.assert_array_equal(o.numpy(), np.ones(4))
    assert zeros(5).dtype is wp.float32 and zeros(5).shape == (5,)
    e = empty((2, 2), dtype=wp.uint8)
    assert e.shape == (2, 2) and e.dtype is wp.uint8


@pytest.mark.parametrize(
    "value,dtype",
    [
        (1.5, wp.float32),
        (3, wp.int32),
        (True, wp.bool),
        (wp.float64(2.0), wp.float64),
        (np.int16(4), wp.int16),
    ],
)
def test_full_infers_dtype(value, dtype):
    a = full((2, 2), value)
    assert a.dtype is dtype
    expected = value.value if isinstance(value, wp.float64) else value
    assert a.list() == [expected] * 4


def test_full_explicit_dtype():
    a = full(3, 2, dtype=wp.float64)
    assert a.dtype is wp.float64 and a.list() == [2.0, 2.0, 2.0]


def test_like_constructors():
    src = array(np.arange(6, dtype=np.float64).reshape(2, 3), requires_grad=True)
    for fn, expected in [(zeros_like, 0.0), (ones_like, 1.0)]:
        b = fn(src)
        assert b.shape == src.shape and b.dtype is src.dtype and b.requires_grad
        assert b.list() == [expected] * 6
    f = full_like(src, 4.0, requires_grad=False)
    assert f.list() == [4.0] * 6 and not f.requires_grad
    e = empty_like(src)
    assert e.shape == (2, 3) and e.ptr != src.ptr


def test_from_numpy_copies():
    n = np.arange(4, dtype=np.int32)
    a = from_numpy(n)
    assert a.dtype is wp.int32 and a.ptr != n.ctypes.data
    assert a.list() == [0, 1, 2, 3]
    b = from_numpy(n, dtype=wp.float32, shape=(2, 2), requires_grad=True)
    assert b.shape == (2, 2) and b.dtype is wp.float32 and b.requires_grad


def test_as_array():
    a = zeros(3)
    assert as_array(a) is a
    n = np.arange(5, dtype=np.float32)
    w = as_array(n)
    assert w.ptr == n.ctypes.data and w.dtype is wp.float32
    n[0] = 42
    assert w[0] == 42
    l = as_array([1, 2, 3], dtype=wp.int8)
    assert l.dtype is wp.int8 and l.list() == [1, 2, 3]
    ro = np.arange(3, dtype=np.float32)
    ro.flags.writeable = False
    r = as_array(ro)
    assert r.ptr != ro.ctypes.data and r.list() == [0.0, 1.0, 2.0]
