"""Python-scope API of ``warp.types`` values as NVIDIA Warp has it: composite indexing, slicing,
assignment checks and their errors, ``repr``, ``from_ptr``, integer wrap-around, ``%`` and ``/``,
zero-length composites, scalar comparisons, the NumPy dtype protocol, type codes and generic type
comparison, ``wp.constant`` checks and ``wp.config.log_level``. Values are checked against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


def test_vector_repr_names_the_type_and_non_native_components():
    assert repr(wp.vec2i(1, 2)) == "vec2i([1, 2])"
    assert repr(wp.vec3f(1.0, 2.0, 3.0)) == "vec3f([1.0, 2.0, 3.0])"
    assert repr(wp.vec2d(1.0, 2.5)) == "vec2d([float64(1.0), float64(2.5)])"
    assert str(wp.vec2d(1.0, 2.5)) == "[1.0, 2.5]"


def test_constructor_errors():
    with pytest.raises(ValueError, match=r"vector constructor, expected 3 elements, got 2$"):
        wp.vec3(1, 2)
    with pytest.raises(ValueError, match=r"matrix constructor, expected 4 elements, got 3$"):
        wp.mat22(1, 2, 3)
    with pytest.raises(TypeError, match=r"expected row of length 2, got \(1, 2, 3\)$"):
        wp.mat22((1, 2, 3), (3, 4, 5))


def test_copy_constructor_copies():
    v = wp.vec3i(2, 4, 6)
    c = wp.vec3i(v)
    c[0] = 123
    assert v == (2, 4, 6) and c == (123, 4, 6)
    m = wp.mat22(1, 2, 3, 4)
    mc = wp.mat22(m)
    mc[0, 0] = 9
    assert m[0, 0] == 1.0


def test_slices_are_lists_and_keys_are_checked():
    v = wp.vec4(1, 2, 3, 4)
    assert v[1:3] == (2.0, 3.0) and type(v[1:3]) is wp.vec2  # a slice is a vector
    w = wp.vec4(5.0, 6.0, 7.0, 8.0)
    w[1:] %= wp.vec3(4.0, 4.0, 4.0)
    assert w == (5.0, 2.0, 3.0, 0.0)
    v[1:3] = (-2, -3)
    assert v == (1, -2, -3, 4)
    with pytest.raises(KeyError, match="Invalid key None, expected int or slice"):
        v[None]
    with pytest.raises(ValueError, match="Can only assign sequence of same size"):
        v[:1] = (1, 2)
    with pytest.raises(TypeError, match="Expected to assign a `float32` value but got `str` instead"):
        v[0] = "1.0"
    with pytest.raises(TypeError, match="sequence of `float32` values but got `vec4f` instead"):
        v[:1] = (v,)
    m = wp.mat22(1, 2, 3, 4)
    with pytest.raises(KeyError, match="Invalid key None, expected int or pair of ints"):
        m[None]
    with pytest.raises(KeyError, match="expected one or two indices, got 3"):
        m[0, 1, 2]
    with pytest.raises(IndexError, match="Invalid row index"):
        m.set_row(2, (0, 0))
    m[1] = (7, 8)
    assert m == ((1, 2), (7, 8))


def test_values_take_attributes():
    v = wp.vec3()
    v.tag = 5
    assert v.tag == 5


def test_from_ptr_views_memory():
    data = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    v = wp.vec3.from_ptr(data.ctypes.data)
    assert v == (1.0, 2.0, 3.0)
    v[1] = 5.0
    assert data[1] == 5.0
    with pytest.raises(RuntimeError, match="NULL pointer exception"):
        wp.mat22.from_ptr(0)


def test_integer_components_wrap_and_divide_as_c():
    vub = wp.types.vector(3, wp.uint8)
    v = vub(1, -2, 3)
    assert v == (1, 254, 3)
    assert -v == tuple(np.negative(np.array([1, 254, 3], dtype=np.uint8)).tolist())
    a, b = np.array([-7, 7, 9], dtype=np.int32), np.array([2, -2, 4], dtype=np.int32)
    va, vb = wp.vec3i(*a), wp.vec3i(*b)
    assert va % vb == tuple(np.fmod(a, b).tolist())
    assert va / vb == tuple(np.trunc(a / b).astype(np.int32).tolist())
    f = np.array([5.5, -7.25, 3.0])
    vf = wp.vec3d(*f)
    assert vf % wp.vec3d(2.0, 2.0, 2.0) == tuple(np.fmod(f, 2.0).tolist())
    assert wp.float64(24.0) / wp.vec3d(2.0, 4.0, 6.0) == (12.0, 6.0, 4.0)
    assert 1.0 - wp.vec2(0.25, 0.5) == (0.75, 0.5)
    m = wp.mat22d(1.0, 2.0, 4.0, 8.0)
    np.testing.assert_allclose(np.array(wp.float64(8.0) / m), 8.0 / np.array([[1.0, 2.0], [4.0, 8.0]]))


def test_zero_length_composites():
    v0 = wp.types.vector(0, float)
    assert len(v0()) == 0 and v0().tolist() == []
    m0 = wp.types.matrix((0, 0), float)
    assert m0()._data.shape == (0, 0)


def test_scalar_comparisons_with_floats():
    for t in (wp.int8, wp.uint32, wp.int64):
        one, two = t(1), t(2)
        assert one != 1.5 and one == 1.0 and one < 1.5 and two > np.float16(1.5) and two >= 2.0
        assert len({one, 1.5}) == 2 and len({one, 1.0}) == 1
        assert one < float("inf")
    with pytest.raises(OverflowError):
        wp.float32(1.0) < 2**1024  # noqa: B015


def test_numpy_dtype_protocol():
    assert np.dtype(wp.float32) == np.float32 and np.dtype(wp.uint16(1)) == np.uint16
    assert np.zeros(3, dtype=wp.int8).dtype == np.int8
    assert np.dtype([("v", wp.float64), ("t", np.uint8)]) == np.dtype([("v", np.float64), ("t", np.uint8)])
    assert not hasattr(wp.bfloat16, "__numpy_dtype__")
    assert not hasattr(wp.types.scalar_base, "__numpy_dtype__")
    assert wp.dtype_to_numpy(wp.bfloat16) is np.uint16 and wp.dtype_to_numpy(wp.float16) is np.float16
    assert issubclass(wp.int8, wp.types.int_base) and issubclass(wp.float16, wp.types.float_base)


def test_type_codes_and_generic_comparison():
    code = wp.types.get_type_code
    assert code(tuple[float, wp.vec3f, wp.vec3f]) == "tpl3f4v3f4v3f4"
    assert code(tuple[wp.vec3f, ...]) == "tpl2v3f4?"
    assert code(tuple[wp.vec3f, wp.mat33f, wp.quatf]) == "tpl3v3f4m33f4qf4"
    with pytest.raises(TypeError, match="Unrecognized type"):
        code(tuple[int, str])
    eq = wp.types.types_equal_generic
    assert eq((wp.float32, Ellipsis), (wp.float32, wp.float32, float))
    assert not eq((wp.float32, Ellipsis), (wp.float32, wp.float64))
    assert eq(wp.types.vector(length=3, dtype=wp.types.Float), wp.vec3d)
    with pytest.raises(TypeError, match="one type followed by Ellipsis"):
        eq((wp.float32, wp.float64, Ellipsis), (wp.float32,))
    assert not wp.types.type_is_tile(wp.vec3) and not wp.types.is_tile(wp.vec3())
    assert not wp.types.is_composite(wp.vec3) and wp.types.is_composite(wp.vec3())


def test_constant_rejects_non_values():
    with pytest.raises(TypeError, match=r"Invalid constant type: <class 'tuple'>$"):
        wp.constant((1, 2, 3))
    assert wp.constant(wp.vec3i(1, 2, 3)) == wp.vec3i(1, 2, 3)


@wp.kernel(module="unique")
def _log_level_kernel(x: wp.array(dtype=float)):
    x[0] = 2.0


@wp.kernel(module="unique")
def _log_level_kernel_info(x: wp.array(dtype=float)):
    x[0] = 3.0


def test_log_level_warning_silences_module_load_line(capfd):
    assert (wp.LOG_DEBUG, wp.LOG_INFO, wp.LOG_WARNING, wp.LOG_ERROR) == (10, 20, 30, 40)
    old_level, old_quiet = wp.config.log_level, wp.config.quiet
    try:
        wp.config.quiet = False
        wp.config.log_level = wp.LOG_INFO
        capfd.readouterr()
        wp.launch(_log_level_kernel_info, dim=1, inputs=[wp.zeros(1, dtype=float)])
        assert "load on device" in capfd.readouterr().out
        wp.config.log_level = wp.LOG_WARNING
        capfd.readouterr()
        x = wp.zeros(1, dtype=float)
        wp.launch(_log_level_kernel, dim=1, inputs=[x])
        assert "load on device" not in capfd.readouterr().out
        assert x.numpy()[0] == 2.0
    finally:
        wp.config.log_level, wp.config.quiet = old_level, old_quiet


def test_scalar_arithmetic_keeps_the_type_and_wraps():
    for t in (wp.int8, wp.uint8, wp.int32, wp.uint64, wp.float16, wp.float32, wp.float64):
        np_t = t._np_dtype_.type
        with np.errstate(over="ignore"):
            for x, y in ((7, 2), (-7, 2), (1, 5), (24, 2)):
                a, b = t(x), t(y)
                xn, yn = np_t(a.value), np_t(b.value)  # the wrapped values (-7 is 249 in uint8)
                assert type(a + b) is t and (a + b) == np_t(xn + yn)
                assert (a - b) == np_t(xn - yn) and (a * b) == np_t(xn * yn)
                assert -a == np_t(-xn) and +a == a
                if t._kind_ == "float":
                    assert (a / b) == np_t(xn / yn) and (a % b) == np.fmod(xn, yn)
                else:
                    remainder = int(np.fmod(xn, yn))  # C's %: the sign of the dividend
                    assert (a % b) == remainder and (a / b) == (a.value - remainder) // b.value
    assert float(wp.float32(2.0) ** wp.float32(3.0)) == 8.0 and float(3.0 ** wp.float64(2.0)) == 9.0
    with pytest.raises(TypeError):
        wp.int32(2) ** wp.int32(3)
    with pytest.raises(TypeError, match="does not convert"):
        wp.float32(1.0) + wp.float64(1.0)
    assert wp.float64(2.0) * wp.vec2d(1.0, 2.0) == (2.0, 4.0)


def test_array_arithmetic_with_scalars():
    for t in (wp.uint8, wp.int32, wp.float32, wp.float64):
        host = np.array([1, 2, 3], dtype=t._np_dtype_)
        a, s = wp.array(host, dtype=t), t(5)
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal((a + s).numpy(), host + host.dtype.type(5))
            np.testing.assert_array_equal((s - a).numpy(), host.dtype.type(5) - host)
            np.testing.assert_array_equal((a - s).numpy(), host - host.dtype.type(5))
        np.testing.assert_array_equal((a * 2).numpy(), host * 2)
        np.testing.assert_array_equal((s % a).numpy(), np.fmod(host.dtype.type(5), host))
        assert (a + s).dtype is t and (a + s).device == a.device
        if t._kind_ == "float":
            np.testing.assert_allclose((s / a).numpy(), 5.0 / host.astype(np.float64), rtol=1e-6)
    with pytest.raises(TypeError, match="does not convert"):
        wp.array([1.0], dtype=wp.float32) + wp.float64(1.0)


def test_matrix_set_row_and_col_fill_with_a_scalar():
    m = wp.types.matrix((2, 3), float)(1, 2, 3, 4, 5, 6)
    m.set_row(0, 13.0)
    m.set_col(2, -1.0)
    np.testing.assert_array_equal(np.array(m), [[13.0, 13.0, -1.0], [4.0, 5.0, -1.0]])


def test_matrix_block_assignment():
    m = wp.mat44()
    m[1:3] = wp.types.matrix((2, 4), float)(*range(8))
    m[:, 3:] = [[9.0]] * 4
    expected = np.zeros((4, 4))
    expected[1:3] = np.arange(8).reshape(2, 4)
    expected[:, 3:] = 9.0
    np.testing.assert_array_equal(np.array(m), expected)
    with pytest.raises(ValueError, match="same size"):
        m[1:3] = (wp.vec3(), wp.vec3())


def test_python_scope_product_of_mixed_precision_composites_is_rejected():
    a = wp.mat22f(1.0, 2.0, 3.0, 4.0)
    b = wp.mat22d(1.0, 2.0, 3.0, 4.0)
    with pytest.raises(RuntimeError, match=r"^Couldn't find a function 'mul' compatible with the arguments "
                       r"'mat22f, mat22d'$"):
        a * b
    with pytest.raises(RuntimeError, match="compatible with the arguments 'mat22f, vec2d'"):
        a @ wp.vec2d(1.0, 1.0)
    np.testing.assert_allclose(np.array(a @ wp.vec2f(1.0, 1.0)), [3.0, 7.0])


def test_scalar_str_is_the_value_and_repr_names_the_type():
    expected = [
        (wp.bool(-1), ("True", "bool(True)")),
        (wp.int8(-1), ("-1", "int8(-1)")),
        (wp.uint16(-1), (str(2**16 - 1), f"uint16({2**16 - 1})")),
        (wp.uint64(-1), (str(2**64 - 1), f"uint64({2**64 - 1})")),
        # a float made from an integer it holds exactly shows that integer
        (wp.float16(-1), ("-1", "float16(-1)")),
        (wp.float32(np.int64(3)), ("3", "float32(3)")),
        (wp.float64(-1), ("-1", "float64(-1)")),
        (wp.float32(1.5), ("1.5", "float32(1.5)")),
        (wp.float32(-1.0), ("-1.0", "float32(-1.0)")),
        (wp.float16(70000), ("inf", "float16(inf)")),  # not held exactly: the float it holds
        (wp.float32(2) * wp.float32(3), ("6.0", "float32(6.0)")),  # computed: a float
    ]
    for value, (text, representation) in expected:
        assert (str(value), repr(value)) == (text, representation)
    assert wp.float16(-1).value == -1.0 and isinstance(wp.float16(-1).value, float)


def test_scalar_format_specs_format_the_value():
    assert f"{wp.float32(1.5):.2f}" == format(1.5, ".2f") == "1.50"
    assert f"{wp.uint8(7):03d}" == "007" and f"{wp.float64(0.125):e}" == format(0.125, "e")
    assert f"{wp.int32(5)}" == str(wp.int32(5)) == "5"  # no spec: as str()
    with pytest.raises(ValueError):
        f"{wp.int32(5):.2q}"
