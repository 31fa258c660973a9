"""Conformance: data types as Warp users handle them in Python scope (constructors, operators,
indexing, conversions) and the ``wp.types`` introspection helpers."""

from __future__ import annotations

import ctypes
import math
from typing import Any

import numpy as np
import pytest

import warp as wp


# -- scalars ------------------------------------------------------------------------------------


def test_scalar_values_and_conversions():
    assert wp.float32(1.5).value == 1.5
    assert wp.int8(-3).value == -3
    assert wp.uint8(255).value == 255
    assert float(wp.float64(2.25)) == 2.25
    assert int(wp.int64(-7)) == -7
    assert wp.float16(1.5).value == 1.5
    assert wp.bool(True).value is True


def test_scalar_type_attributes():
    assert wp.float32._type_ is ctypes.c_float
    assert wp.float64._type_ is ctypes.c_double
    assert wp.int16._type_ is ctypes.c_int16
    assert wp.uint64._type_ is ctypes.c_uint64


def test_math_constants():
    assert wp.pi == math.pi and wp.PI == math.pi
    assert wp.e == math.e and wp.E == math.e
    assert wp.tau == 2 * math.pi and wp.half_pi == math.pi / 2
    assert wp.ln2 == math.log(2) and wp.ln10 == math.log(10)
    assert wp.log2e == pytest.approx(1 / math.log(2)) and wp.log10e == pytest.approx(1 / math.log(10))
    assert wp.phi == pytest.approx((1 + 5**0.5) / 2)
    assert math.isinf(wp.inf) and math.isnan(wp.nan)


@wp.kernel
def use_constants(out: wp.array(dtype=float), out64: wp.array(dtype=wp.float64)):
    out[0] = wp.pi
    out[1] = wp.degrees(wp.pi)
    out[2] = 2.0 * wp.pi
    out[3] = wp.tau - wp.e
    out[4] = wp.half_pi
    out64[0] = wp.float64(2.0) * wp.pi


def test_math_constants_in_kernels():
    out = wp.zeros(5, dtype=float)
    out64 = wp.zeros(1, dtype=wp.float64)
    wp.launch(use_constants, dim=1, inputs=[out, out64])
    f = np.float32
    np.testing.assert_allclose(
        out.numpy(), [f(math.pi), 180.0, 2 * f(math.pi), f(math.tau) - f(math.e), f(math.pi / 2)], rtol=1e-6
    )
    assert out64.numpy()[0] == 2.0 * math.pi


# -- vectors and matrices in Python scope ---------------------------------------------------------


def test_vector_construction_forms():
    assert wp.vec3(1.0, 2.0, 3.0) == wp.vec3([1, 2, 3]) == wp.vec3(np.array([1.0, 2.0, 3.0]))
    assert list(wp.vec3(2.0)) == [2.0, 2.0, 2.0]
    assert list(wp.vec3()) == [0.0, 0.0, 0.0]
    assert list(wp.vec3(wp.vec3d(1.0, 2.0, 3.0))) == [1.0, 2.0, 3.0]
    assert list(wp.vec4ub(1, 2, 3, 255)) == [1, 2, 3, 255]
    with pytest.raises(ValueError):
        wp.vec3(1.0, 2.0)


def test_vector_components_and_operators():
    v = wp.vec3(1.0, 2.0, 3.0)
    assert (v.x, v.y, v.z) == (1.0, 2.0, 3.0)
    assert (v[0], v[-1], len(v)) == (1.0, 3.0, 3)
    assert v * 2.0 == wp.vec3(2.0, 4.0, 6.0) == 2.0 * v
    assert v + wp.vec3(1.0) == wp.vec3(2.0, 3.0, 4.0)
    assert v - wp.vec3(1.0) == wp.vec3(0.0, 1.0, 2.0)
    assert -v == wp.vec3(-1.0, -2.0, -3.0)
    assert v / 2.0 == wp.vec3(0.5, 1.0, 1.5)
    assert v == (1.0, 2.0, 3.0) and v != wp.vec3(1.0, 2.0, 4.0)
    w = wp.vec3()
    w[0] = 5.0
    w.y = 6.0
    assert w == wp.vec3(5.0, 6.0, 0.0)
    np.testing.assert_array_equal(np.array(v), [1.0, 2.0, 3.0])
    assert np.array(v).dtype == np.float32
    assert str(v) == "[1.0, 2.0, 3.0]"


def test_matrix_construction_and_indexing():
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    assert m == wp.mat22([[1.0, 2.0], [3.0, 4.0]]) == wp.mat22(wp.vec2(1.0, 2.0), wp.vec2(3.0, 4.0))
    assert m[0, 1] == 2.0 and m[1][0] == 3.0
    assert m[1] == wp.vec2(3.0, 4.0)
    assert m[-1] == wp.vec2(3.0, 4.0)
    m[0, 1] = 7.0
    m[1] = wp.vec2(5.0, 6.0)
    assert m == wp.mat22(1.0, 7.0, 5.0, 6.0)
    np.testing.assert_array_equal(np.array(wp.mat22(np.eye(2))), np.eye(2))
    assert wp.mat22(3.0) == wp.mat22(3.0, 3.0, 3.0, 3.0)
    assert wp.mat22(1.0, 2.0, 3.0, 4.0) * wp.vec2(1.0, 1.0) == wp.vec2(3.0, 7.0)
    assert wp.mat22(1.0, 2.0, 3.0, 4.0) @ wp.mat22(1.0, 2.0, 3.0, 4.0) == wp.mat22(7.0, 10.0, 15.0, 22.0)
    assert len(wp.mat33()) == 3


def test_quaternion_and_transform_values():
    q = wp.quat_identity()
    assert list(q) == [0.0, 0.0, 0.0, 1.0]
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), q)
    assert t.p == wp.vec3(1.0, 2.0, 3.0) and t.q == q
    assert list(wp.transform_identity()) == [0, 0, 0, 0, 0, 0, 1]
    r = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), math.pi / 2)
    np.testing.assert_allclose(np.array(wp.quat_rotate(r, wp.vec3(1.0, 0.0, 0.0))), [0, 1, 0], atol=1e-6)


def test_named_types_are_the_same_classes():
    assert (
        wp.vec3 is wp.vec3f
        and wp.mat33 is wp.mat33f
        and wp.quat is wp.quatf
        and wp.transform is wp.transformf
    )
    assert wp.types.vector(length=3, dtype=wp.float32) is wp.vec3
    assert wp.types.matrix(shape=(2, 2), dtype=wp.float64) is wp.mat22d
    assert wp.types.quaternion(dtype=wp.float64) is wp.quatd
    assert wp.types.transformation(dtype=wp.float16) is wp.transformh
    assert isinstance(wp.vec3(), wp.vec3)


def test_composite_type_attributes():
    assert wp.vec3._length_ == 3 and wp.mat33._length_ == 9 and wp.mat33._shape_ == (3, 3)
    assert wp.vec3._wp_scalar_type_ is wp.float32 and wp.vec3d._wp_scalar_type_ is wp.float64
    assert wp.vec3._type_ is ctypes.c_float and wp.mat22d._type_ is ctypes.c_double


def test_custom_vector_type_arithmetic():
    vec5d = wp.types.vector(length=5, dtype=wp.float64)
    v = vec5d(1.0, 2.0, 3.0, 4.0, 5.0) + vec5d(1.0)
    assert list(v) == [2.0, 3.0, 4.0, 5.0, 6.0]
    assert np.array(v).dtype == np.float64


# -- wp.types helpers -----------------------------------------------------------------------------


def test_type_predicates():
    t = wp.types
    assert t.type_is_vector(wp.vec3) and not t.type_is_vector(wp.mat22)
    assert t.type_is_matrix(wp.mat22) and t.type_is_matrix(wp.spatial_matrix)
    assert t.type_is_quaternion(wp.quatd) and t.type_is_transformation(wp.transformh)
    assert t.type_is_int(wp.int8) and t.type_is_int(int) and not t.type_is_int(wp.float32)
    assert t.type_is_float(wp.float16) and t.type_is_float(float) and not t.type_is_float(wp.int64)
    assert t.type_is_value(float) and t.type_is_value(wp.vec3) and not t.type_is_value(wp.array(dtype=float))
    assert t.type_is_array(wp.array(dtype=float)) and not t.type_is_array(wp.vec3)


def test_value_predicates():
    t = wp.types
    assert t.is_array(wp.zeros(2, dtype=float)) and not t.is_array(np.zeros(2))
    assert t.is_vector(wp.vec3()) and not t.is_vector(wp.vec3)
    assert t.is_matrix(wp.mat22()) and t.is_quaternion(wp.quat()) and t.is_transformation(wp.transform())
    assert t.is_int(3) and t.is_int(wp.int8(3)) and not t.is_int(3.0)
    assert t.is_float(3.0) and t.is_float(wp.float16(1.0)) and not t.is_float(3)
    assert t.is_value(1.0) and t.is_value(wp.vec2()) and not t.is_value("x")

    @wp.struct
    class S:
        x: float

    assert t.is_struct(S()) and t.type_is_struct(S) and not t.is_struct(S)


def test_type_lengths_sizes_and_scalar_types():
    t = wp.types
    assert [t.type_length(x) for x in (float, wp.vec3, wp.mat33, wp.quat, wp.transform)] == [1, 3, 9, 4, 7]
    assert t.type_size_in_bytes(wp.vec3) == 12 and t.type_size_in_bytes(wp.float16) == 2
    assert t.type_size_in_bytes(wp.mat44d) == 128
    assert t.type_scalar_type(wp.vec3d) is wp.float64 and t.type_scalar_type(wp.float16) is wp.float16
    assert t.type_ctype(wp.vec3) is ctypes.c_float and t.type_ctype(float) is ctypes.c_float
    assert t.type_typestr(wp.float32) == "<f4" and t.type_typestr(wp.vec3d) == "<f8"
    assert t.type_to_warp(float) is wp.float32 and t.type_to_warp(int) is wp.int32


def test_types_equal():
    t = wp.types
    assert t.types_equal(wp.vec3, wp.vec3f) and t.types_equal(float, wp.float32)
    assert not t.types_equal(wp.vec3, wp.vec3d) and not t.types_equal(wp.int32, wp.uint32)
    assert t.types_equal(wp.array(dtype=float), wp.array(dtype=wp.float32))
    assert not t.types_equal(wp.array(dtype=float), wp.array(dtype=float, ndim=2))
    assert t.types_equal(Any, wp.vec3, match_generic=True)
    assert not t.types_equal(Any, wp.vec3)
    assert t.types_equal(wp.types.vector(length=Any, dtype=Any), wp.vec4d, match_generic=True)
    assert t.types_equal(wp.Float, wp.float16, match_generic=True) and not t.types_equal(
        wp.Float, wp.int8, True
    )


def test_numpy_dtype_maps():
    t = wp.types
    assert t.np_dtype_to_warp_type[np.dtype(np.float32)] is wp.float32
    assert t.np_dtype_to_warp_type[np.dtype(np.uint16)] is wp.uint16
    assert t.warp_type_to_np_dtype[wp.float64] == np.float64
    assert wp.dtype_to_numpy(wp.float16) == np.float16
    assert wp.dtype_from_numpy(np.int8) is wp.int8
    # bfloat16 (Warp 1.13) is a float type; NumPy sees its bit pattern as uint16
    # as in Warp, scalar_types are the numeric types; scalar_and_bool_types add bool
    assert len(t.scalar_types) == 12 and len(t.int_types) == 8 and len(t.float_types) == 4
    assert wp.bool not in t.scalar_types and t.scalar_and_bool_types == (*t.scalar_types, wp.bool)
    assert wp.bfloat16 in t.float_types and t.warp_type_to_np_dtype[wp.bfloat16] == np.uint16


def test_types_array_alias():
    a = wp.types.array(dtype=float)
    assert wp.types.type_is_array(a)
    assert isinstance(wp.zeros(1, dtype=float), wp.types.array)


mat32 = wp.types.matrix(shape=(3, 2), dtype=float)


@wp.kernel
def matrices_from_vectors(out: wp.array(dtype=wp.mat33), rect: wp.array(dtype=mat32), v: wp.vec3):
    a = wp.vec3(1.0, 2.0, 3.0)
    b = wp.vec3(4.0, 5.0, 6.0)
    out[0] = wp.mat33(a, b, v)  # in kernels the vectors are columns (NVIDIA Warp; deprecated form)
    out[1] = wp.matrix_from_cols(a, b, v)
    out[2] = wp.matrix_from_rows(a, b, v)
    rect[0] = mat32(a, b)


@pytest.mark.filterwarnings("ignore:constructing:DeprecationWarning")
def test_matrices_from_vectors_in_kernels_and_python():
    out, rect = wp.zeros(3, dtype=wp.mat33), wp.zeros(1, dtype=mat32)
    wp.launch(matrices_from_vectors, dim=1, inputs=[out, rect, wp.vec3(7.0, 8.0, 9.0)])
    rows = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=np.float32)
    np.testing.assert_array_equal(out.numpy()[0], rows.T)
    np.testing.assert_array_equal(out.numpy()[1], rows.T)
    np.testing.assert_array_equal(out.numpy()[2], rows)
    np.testing.assert_array_equal(rect.numpy()[0], rows[:2].T)
    # in Python scope the same constructor takes rows
    m = wp.mat33(wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0), wp.vec3(7.0, 8.0, 9.0))
    np.testing.assert_array_equal(np.array(m), rows)


def test_matrix_row_and_column_methods():
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    assert m.get_row(1) == wp.vec2(3.0, 4.0) and m.get_col(0) == wp.vec2(1.0, 3.0)
    m.set_row(0, wp.vec2(5.0, 6.0))
    m.set_col(1, wp.vec2(7.0, 8.0))
    assert m == wp.mat22(5.0, 7.0, 3.0, 8.0)
    r = wp.types.matrix(shape=(2, 3), dtype=wp.float64)(1, 2, 3, 4, 5, 6)
    assert r.get_col(2) == wp.vec2d(3.0, 6.0) and r.get_row(0) == wp.vec3d(1.0, 2.0, 3.0)
