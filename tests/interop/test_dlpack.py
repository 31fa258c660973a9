"""DLPack: ``wp.array.__dlpack__`` capsules, ``wp.from_dlpack`` / ``wp.to_dlpack`` (NumPy as the peer)."""

from __future__ import annotations

import ctypes
import gc
import sys
import weakref

import numpy as np
import pytest

import warp as wp

_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def capsule_name(capsule) -> bytes:
    return _api.PyCapsule_GetName(capsule)


@wp.kernel
def increment(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] + 1.0


def test_dlpack_device_of_cpu_arrays():
    assert wp.zeros(3).__dlpack_device__() == (1, 0)


def test_legacy_and_versioned_capsules():
    a = wp.array(np.arange(4, dtype=np.float32))
    assert capsule_name(a.__dlpack__()) == b"dltensor"
    assert capsule_name(wp.to_dlpack(a)) == b"dltensor"
    versioned = a.__dlpack__(max_version=(1, 0))
    assert capsule_name(versioned) == b"dltensor_versioned"
    raw = ctypes.string_at(_api.PyCapsule_GetPointer(versioned, b"dltensor_versioned"), 8)
    assert np.frombuffer(raw, dtype=np.uint32).tolist() == [1, 0]  # never newer than asked
    newest = a.__dlpack__(max_version=(1, 5))
    raw = ctypes.string_at(_api.PyCapsule_GetPointer(newest, b"dltensor_versioned"), 8)
    assert np.frombuffer(raw, dtype=np.uint32).tolist() == [1, 1]


def test_numpy_consumes_warp_arrays_zero_copy():
    a = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    n = np.from_dlpack(a)
    assert n.ctypes.data == a.ptr and n.shape == (3, 4)
    wp.launch(increment, dim=12, inputs=[a.reshape(-1)])
    np.testing.assert_array_equal(n, np.arange(12, dtype=np.float32).reshape(3, 4) + 1)
    t = a.transpose()
    nt = np.from_dlpack(t)
    assert nt.strides == (4, 16)
    np.testing.assert_array_equal(nt, a.numpy().T)


def test_bfloat16_exports_as_dlpack_bfloat_and_imports_back():
    a = wp.array([1.0, -2.5, 1 / 3], dtype=wp.bfloat16)
    capsule = a.__dlpack__()
    tensor = ctypes.string_at(_api.PyCapsule_GetPointer(capsule, b"dltensor"), 24)
    code, bits, lanes = tensor[20], tensor[21], int.from_bytes(tensor[22:24], "little")
    assert (code, bits, lanes) == (4, 16, 1)  # kDLBfloat, 16 bits
    b = wp.from_dlpack(a)
    assert b.dtype is wp.bfloat16 and b.ptr == a.ptr and b.list() == [1.0, -2.5, 0.333984375]
    vec3bf = wp.types.vector(3, wp.bfloat16)
    v = wp.array([vec3bf(1.0, 2.0, 3.0)], dtype=vec3bf)
    assert wp.from_dlpack(v, dtype=vec3bf).list()[0].tolist() == [1.0, 2.0, 3.0]


def test_vectors_export_as_trailing_dimensions_and_fold_back():
    v = wp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=wp.vec3)
    n = np.from_dlpack(v)
    assert n.shape == (2, 3) and n.ctypes.data == v.ptr
    back = wp.from_dlpack(v, dtype=wp.vec3)
    assert back.dtype is wp.vec3 and back.shape == (2,) and back.ptr == v.ptr
    assert wp.from_dlpack(v).dtype is wp.float32


@pytest.mark.parametrize("np_dtype", ["float16", "float32", "float64", "int8", "int16", "int32", "int64",
                                      "uint8", "uint16", "uint32", "uint64", "bool"])
def test_scalar_types_round_trip_through_numpy(np_dtype):
    src = (np.arange(5) % 2).astype(np_dtype)
    a = wp.from_dlpack(src)
    assert a.dtype is wp.dtype_from_numpy(np.dtype(np_dtype)) and a.ptr == src.ctypes.data
    back = np.from_dlpack(a)
    assert back.dtype == src.dtype and back.ctypes.data == src.ctypes.data


def test_from_dlpack_wraps_numpy_zero_copy_and_keeps_it_alive():
    src = np.arange(10, dtype=np.float32)
    ref = weakref.ref(src) if hasattr(src, "__weakref__") else None
    before = sys.getrefcount(src)
    a = wp.from_dlpack(src)
    assert sys.getrefcount(src) > before  # the DLPack context references the producer
    wp.launch(increment, dim=10, inputs=[a])
    np.testing.assert_array_equal(src, np.arange(10, dtype=np.float32) + 1)
    del a
    gc.collect()
    assert sys.getrefcount(src) == before  # the producer's deleter ran
    del ref


def test_from_dlpack_of_strided_and_scalar_data():
    src = np.arange(24, dtype=np.float64).reshape(4, 6)[::2, 1::2]
    a = wp.from_dlpack(src)
    assert a.shape == (2, 3) and a.strides == src.strides
    np.testing.assert_array_equal(a.numpy(), src)
    s = wp.from_dlpack(np.array(2.5, dtype=np.float32))
    assert s.shape == (1,) and s.numpy().tolist() == [2.5]


def test_capsules_are_released_when_dropped_or_consumed():
    a = wp.array(np.arange(3, dtype=np.float32))
    baseline = sys.getrefcount(a)
    capsule = a.__dlpack__()
    assert sys.getrefcount(a) == baseline + 1
    del capsule
    gc.collect()
    assert sys.getrefcount(a) == baseline
    versioned = a.__dlpack__(max_version=(1, 0))
    del versioned
    assert sys.getrefcount(a) == baseline
    n = np.from_dlpack(a)
    assert sys.getrefcount(a) == baseline + 1
    del n
    gc.collect()
    assert sys.getrefcount(a) == baseline


def test_capsule_can_be_consumed_once():
    capsule = wp.to_dlpack(wp.zeros(2))
    wp.from_dlpack(capsule)
    assert capsule_name(capsule) == b"used_dltensor"
    with pytest.raises(BufferError, match="already consumed"):
        wp.from_dlpack(capsule)


def test_export_options():
    a = wp.array(np.arange(4, dtype=np.float32))
    for bad in (0, 1, 2, 5, -2, "nope"):  # a CPU array has no stream to order
        with pytest.raises(TypeError, match="DLPack stream must be None or -1 for CPU device 'cpu'"):
            a.__dlpack__(stream=bad)
    for fine in (None, -1, np.int64(-1)):
        assert wp.from_dlpack(a.__dlpack__(stream=fine)).numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(BufferError, match="cannot export"):
        a.__dlpack__(dl_device=(2, 0))
    assert capsule_name(a.__dlpack__(dl_device=(1, 0))) == b"dltensor"
    copied = wp.from_dlpack(a.__dlpack__(max_version=(1, 0), copy=True))
    assert copied.ptr != a.ptr and copied.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    capsule = a.__dlpack__(max_version=(1, 0), copy=True)
    flags_at = _api.PyCapsule_GetPointer(capsule, b"dltensor_versioned") + 24
    assert int.from_bytes(ctypes.string_at(flags_at, 8), "little") & 2  # DLPACK_FLAG_BITMASK_IS_COPIED
    with pytest.raises(BufferError, match="copy=True needs a versioned capsule"):
        a.__dlpack__(copy=True)
    n = np.from_dlpack(a, copy=True)
    assert n.ctypes.data != a.ptr


def test_errors():
    with pytest.raises(TypeError, match="expected an object implementing __dlpack__"):
        wp.from_dlpack([1, 2, 3])
    with pytest.raises(TypeError, match="to_dlpack expects a warp array"):
        wp.to_dlpack(np.zeros(3))
    with pytest.raises(BufferError, match="cannot be exported through DLPack"):
        vals = wp.zeros(2, dtype=Pair)
        vals.__dlpack__()
    with pytest.raises(TypeError, match="component types differ"):
        wp.from_dlpack(np.zeros((2, 3), dtype=np.float64), dtype=wp.vec3)
    with pytest.raises(BufferError, match="not available on an array annotation"):
        wp.array(dtype=float).__dlpack__()


def test_failed_import_releases_the_producer():
    src = np.zeros((1, 1, 1, 1, 1), dtype=np.float32)
    before = sys.getrefcount(src)
    with pytest.raises(ValueError, match="1 to 4 dimensions"):
        wp.from_dlpack(src)
    gc.collect()
    assert sys.getrefcount(src) == before


@wp.struct
class Pair:
    a: float
    b: int


def test_export_survives_other_libraries_retyping_pythonapi():
    """jax.ffi.pycapsule reassigns ctypes.pythonapi.PyCapsule_New.argtypes process-wide."""
    shared = ctypes.pythonapi.PyCapsule_New
    saved = (shared.argtypes, shared.restype)
    destructor = ctypes.CFUNCTYPE(None, ctypes.py_object)
    shared.argtypes = (ctypes.c_void_p, ctypes.c_char_p, destructor)
    shared.restype = ctypes.py_object
    try:
        a = wp.array(np.arange(3, dtype=np.float32))
        assert np.from_dlpack(a).tolist() == [0.0, 1.0, 2.0]
        assert wp.from_dlpack(a.__dlpack__(max_version=(1, 0))).ptr == a.ptr
    finally:
        shared.argtypes, shared.restype = saved


@pytest.mark.parametrize(
    "source, target",
    [(wp.bool, wp.int8), (wp.bool, wp.uint8), (wp.int8, wp.uint8), (wp.int32, wp.uint32),
     (wp.uint32, wp.int32), (wp.int64, wp.uint64), (wp.uint16, wp.int16)],
)
def test_same_size_integer_views(source, target):
    rng = np.random.default_rng(1)
    np_src = wp.dtype_to_numpy(source)
    values = (rng.integers(0, 2, 7) if source is wp.bool else rng.integers(-100, 100, 7)).astype(np_src)
    a = wp.array(values, dtype=source)
    view = wp.from_dlpack(wp.to_dlpack(a), dtype=target)
    assert view.ptr == a.ptr and view.dtype is target and view.strides == a.strides
    np.testing.assert_array_equal(view.numpy(), values.view(wp.dtype_to_numpy(target)))
    # vectors of one component size view each other too
    vecs = wp.array(values[:6].reshape(2, 3), dtype=wp.types.vector(3, source))
    vview = wp.from_dlpack(wp.to_dlpack(vecs), dtype=wp.types.vector(3, target))
    np.testing.assert_array_equal(vview.numpy(), values[:6].reshape(2, 3).view(wp.dtype_to_numpy(target)))


def test_float_and_integer_components_do_not_view_each_other():
    for source, target in ((wp.int32, wp.float32), (wp.bool, wp.float32), (wp.float64, wp.int64)):
        with pytest.raises(TypeError, match="component types differ"):
            wp.from_dlpack(wp.to_dlpack(wp.zeros(2, dtype=source)), dtype=target)


def test_producer_errors_are_reported_before_wrapping():
    class OtherDevice:
        def __dlpack_device__(self):
            return (123, 7)

        def __dlpack__(self, stream=None):
            raise AssertionError("not called for an unsupported device")

    class NotACapsule:
        def __dlpack_device__(self):
            return (1, 0)

        def __dlpack__(self, stream=None):
            return object()

    with pytest.raises(TypeError, match="Unsupported source device for DLPack: device_type=123, device_id=7"):
        wp.from_dlpack(OtherDevice())
    with pytest.raises(TypeError, match="Expected a valid DLPack capsule, got object"):
        wp.from_dlpack(NotACapsule())


def test_incompatible_component_type_is_a_type_and_runtime_error_naming_both_types():
    source = wp.zeros(1, dtype=wp.bool)
    with pytest.raises(wp.errors.IncompatibleDataTypeError) as info:
        wp.from_dlpack(wp.to_dlpack(source), dtype=wp.float32)
    assert isinstance(info.value, TypeError) and isinstance(info.value, RuntimeError)
    assert "Incompatible data types: DLPack bool8 and Warp float32" in str(info.value)
    with pytest.raises(RuntimeError, match="DLPack float64 and Warp vec3f"):
        wp.from_dlpack(np.zeros((2, 3), dtype=np.float64), dtype=wp.vec3)
