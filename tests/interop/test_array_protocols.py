"""NumPy protocols (the guide's NumPy section) and the CUDA array interface as API on the CPU."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

from interop_kernels import saxpy


def test_saxpy_with_numpy_arrays():
    n = 16
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    wp.launch(saxpy, dim=n, inputs=[x, y, 1.0], device="cpu")
    np.testing.assert_array_equal(y, np.arange(n, dtype=np.float32) + 1.0)


def test_numpy_array_from_warp_array():
    w = wp.array([1.0, 2.0, 3.0], dtype=float, device="cpu")
    a = np.array(w)
    assert a.tolist() == [1.0, 2.0, 3.0] and a.dtype == np.float32
    a[0] = 9.0  # np.array copies
    assert w.numpy()[0] == 1.0
    view = np.asarray(w)
    view[0] = 9.0  # np.asarray views
    assert w.numpy()[0] == 9.0


def test_array_dunder_array_dtype_and_copy():
    w = wp.array([1.0, 2.5], dtype=float)
    assert w.__array__().ctypes.data == w.ptr
    assert w.__array__(copy=True).ctypes.data != w.ptr
    converted = w.__array__(np.float64)
    assert converted.dtype == np.float64 and converted.tolist() == [1.0, 2.5]
    with pytest.raises(ValueError, match="without a copy"):
        w.__array__(np.float64, copy=False)
    assert w.__array_interface__["data"][0] == w.ptr


def test_dtype_conversion_utilities():
    n = 4
    warp_type = wp.float32
    numpy_type = wp.dtype_to_numpy(warp_type)
    a = wp.zeros(n, dtype=warp_type)
    b = np.zeros(n, dtype=numpy_type)
    assert a.numpy().dtype == b.dtype == np.float32
    assert wp.dtype_from_numpy(np.float64) is wp.float64
    assert wp.dtype_from_numpy(np.dtype("int16")) is wp.int16


def test_from_numpy_and_array_constructor():
    src = np.arange(6, dtype=np.float32).reshape(3, 2)
    a = wp.from_numpy(src, dtype=wp.vec2)
    assert a.shape == (3,) and a.dtype is wp.vec2
    b = wp.array(src, dtype=float)
    np.testing.assert_array_equal(b.numpy(), src)


def test_cpu_arrays_do_not_pretend_to_be_cuda():
    w = wp.zeros(3)
    assert not hasattr(w, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="only available for arrays on CUDA devices"):
        w.__cuda_array_interface__  # noqa: B018


class FakeCudaArray:
    """An object exposing CUDA memory through the CUDA array interface (nothing is dereferenced)."""

    def __init__(self, shape=(4,), typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0xDEAD0000, False),
                                         "strides": strides, "version": 3}


def test_cuda_array_interface_objects_are_refused_on_the_cpu():
    with pytest.raises(ValueError, match="holds CUDA memory.*cannot be used on device 'cpu'"):
        wp.array(FakeCudaArray(), device="cpu")
    y = np.zeros(4, dtype=np.float32)
    with pytest.raises(ValueError, match="cannot be used on device 'cpu'"):
        wp.launch(saxpy, dim=4, inputs=[FakeCudaArray(), y, 1.0], device="cpu")


@pytest.mark.skipif(wp.is_cuda_available(), reason="checks the CPU-only error")
def test_cuda_array_interface_without_cuda():
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        wp.array(FakeCudaArray(), copy=False)
