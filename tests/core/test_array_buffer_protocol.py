"""wp.array from objects that expose only the buffer protocol (memoryview, array.array, USD's Vt arrays)."""

import array as pyarray

import numpy as np
import pytest

import warp as wp


def test_memoryview_of_floats():
    data = np.arange(6, dtype=np.float32)
    a = wp.array(memoryview(data.tobytes()).cast("f"), dtype=wp.float32)
    np.testing.assert_array_equal(a.numpy(), data)


def test_memoryview_with_shape_to_vectors():
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    view = memoryview(data.tobytes()).cast("f", shape=[4, 3])
    a = wp.array(view, dtype=wp.vec3)
    assert a.shape == (4,)
    np.testing.assert_array_equal(a.numpy(), data)


def test_python_array_infers_dtype():
    a = wp.array(pyarray.array("i", [3, -1, 7]))
    assert a.dtype == wp.int32
    assert a.numpy().tolist() == [3, -1, 7]
    d = wp.array(pyarray.array("d", [0.5, 1.5]))
    assert d.dtype == wp.float64 and d.numpy().tolist() == [0.5, 1.5]


def test_read_only_buffer_is_copied():
    source = bytes(np.array([1.0, 2.0], dtype=np.float32).tobytes())
    a = wp.array(memoryview(source).cast("f"), dtype=float)
    a.fill_(5.0)  # writing must not touch the immutable bytes
    assert np.frombuffer(source, dtype=np.float32).tolist() == [1.0, 2.0]
    assert a.numpy().tolist() == [5.0, 5.0]


def test_usd_vec3f_array():
    Vt = pytest.importorskip("pxr.Vt")
    Gf = pytest.importorskip("pxr.Gf")
    points = Vt.Vec3fArray([Gf.Vec3f(1, 2, 3), Gf.Vec3f(4, 5, 6)])
    a = wp.array(points, dtype=wp.vec3)
    np.testing.assert_array_equal(a.numpy(), [[1, 2, 3], [4, 5, 6]])
    indices = Vt.IntArray([0, 1, 2])
    assert wp.array(indices, dtype=wp.int32).numpy().tolist() == [0, 1, 2]


def test_objects_without_any_protocol_are_rejected():
    with pytest.raises(TypeError, match="cannot create an array from object: expected .* buffer protocol"):
        wp.array(object())
