"""``wp.cast(x, dtype)`` (the same bits read as another type of the same size) and ``wp.copy(x)``
(a value copy) in kernels. Expected bit patterns come from NumPy views of the same bytes."""

import numpy as np
import pytest

import warp as wp


@wp.struct
class HalfAndShort:
    f: wp.float16
    i: wp.int16


@wp.kernel
def documented_example(out: wp.array(dtype=wp.int32), outf: wp.array(dtype=float)):
    x = wp.int32(0x40000000)
    outf[0] = wp.cast(x, wp.float32)
    s = HalfAndShort()
    s.f = wp.float16(2.0)  # 0x4000
    s.i = wp.int16(4096)  # 0x1000
    out[0] = wp.cast(s, wp.int32)


def test_documented_example_int_to_float_and_struct_to_int():
    out = wp.zeros(1, dtype=wp.int32)
    outf = wp.zeros(1, dtype=float)
    wp.launch(documented_example, dim=1, inputs=[out, outf])
    assert outf.numpy()[0] == 2.0
    assert out.numpy()[0] == 0x10004000


@wp.kernel
def float_bits(x: wp.array(dtype=float), bits: wp.array(dtype=wp.uint32), back: wp.array(dtype=float)):
    t = wp.tid()
    b = wp.cast(x[t], wp.uint32)
    bits[t] = b
    back[t] = wp.cast(b, float)


def test_float_bits_round_trip_match_numpy_view():
    data = np.array([0.0, -0.0, 1.0, -2.5, 3.4e38, 1e-45, np.inf, np.nan], dtype=np.float32)
    bits = wp.zeros(len(data), dtype=wp.uint32)
    back = wp.zeros(len(data), dtype=float)
    wp.launch(float_bits, dim=len(data), inputs=[wp.array(data, dtype=float), bits, back])
    np.testing.assert_array_equal(bits.numpy(), data.view(np.uint32))
    np.testing.assert_array_equal(back.numpy().view(np.uint32), data.view(np.uint32))


@wp.kernel
def composite_casts(
    v: wp.array(dtype=wp.vec2h),
    d: wp.array(dtype=wp.float64),
    out_u: wp.array(dtype=wp.uint32),
    out_v: wp.array(dtype=wp.vec2i),
):
    t = wp.tid()
    out_u[t] = wp.cast(v[t], wp.uint32)  # two halves -> 32 bits
    out_v[t] = wp.cast(d[t], wp.vec2i)  # 64 bits -> two int32


def test_vector_casts_match_numpy_views():
    vh = np.array([[1.0, -2.0], [0.5, 65504.0], [0.0, -0.0]], dtype=np.float16)
    dd = np.array([1.0, -3.75, 1e300], dtype=np.float64)
    out_u = wp.zeros(3, dtype=wp.uint32)
    out_v = wp.zeros(3, dtype=wp.vec2i)
    wp.launch(
        composite_casts,
        dim=3,
        inputs=[wp.array(vh, dtype=wp.vec2h), wp.array(dd, dtype=wp.float64), out_u, out_v],
    )
    np.testing.assert_array_equal(out_u.numpy(), vh.view(np.uint32).ravel())
    np.testing.assert_array_equal(out_v.numpy(), dd.view(np.int32).reshape(3, 2))


def test_cast_bool_and_int8():
    @wp.kernel
    def small(out: wp.array(dtype=wp.uint8)):
        out[0] = wp.cast(True, wp.uint8)
        out[1] = wp.cast(wp.int8(-1), wp.uint8)

    out = wp.zeros(2, dtype=wp.uint8)
    wp.launch(small, dim=1, inputs=[out])
    assert out.numpy().tolist() == [1, 255]


def test_cast_size_mismatch_is_an_error():
    @wp.kernel
    def mismatch(out: wp.array(dtype=wp.int64)):
        out[0] = wp.cast(wp.int32(1), wp.int64)

    with pytest.raises(wp.WarpCodegenTypeError, match=r"same size: int32 has 4 bytes, int64 has 8"):
        wp.launch(mismatch, dim=1, inputs=[wp.zeros(1, dtype=wp.int64)])


def test_cast_is_kernel_only():
    with pytest.raises(TypeError, match="kernel builtin"):
        wp.cast(1, wp.float32)


@wp.struct
class Body:
    pos: wp.vec3
    mass: float


@wp.kernel
def copies(bodies: wp.array(dtype=Body), out: wp.array(dtype=float)):
    t = wp.tid()
    b = bodies[t]
    c = wp.copy(b)
    c.pos = wp.vec3(9.0, 9.0, 9.0)  # the copy changes, the original does not
    c.mass = c.mass * 2.0
    v = wp.copy(b.pos)
    v[0] = -1.0
    m = wp.copy(wp.mat22(1.0, 2.0, 3.0, 4.0))
    out[t] = b.pos[0] + 10.0 * b.mass + 100.0 * c.mass + 1000.0 * v[0] + c.pos[1] + m[1, 0]


def test_copy_is_a_value_copy():
    host = [Body(), Body()]
    for k, b in enumerate(host):
        b.pos = wp.vec3(float(k + 1), 0.0, 0.0)
        b.mass = float(k + 3)
    bodies = wp.array(host, dtype=Body)
    out = wp.zeros(2, dtype=float)
    wp.launch(copies, dim=2, inputs=[bodies, out])
    ref = [(k + 1) + 10.0 * (k + 3) + 100.0 * 2 * (k + 3) - 1000.0 + 9.0 + 3.0 for k in range(2)]
    np.testing.assert_allclose(out.numpy(), ref)


def test_cast_of_bfloat16_bits():
    @wp.kernel
    def bf16_bits(out: wp.array(dtype=wp.uint16), outf: wp.array(dtype=float)):
        out[0] = wp.cast(wp.bfloat16(1.0), wp.uint16)
        outf[0] = float(wp.cast(wp.uint16(0x4040), wp.bfloat16))

    out = wp.zeros(1, dtype=wp.uint16)
    outf = wp.zeros(1, dtype=float)
    wp.launch(bf16_bits, dim=1, inputs=[out, outf])
    assert out.numpy()[0] == np.array([1.0], dtype=np.float32).view(np.uint32)[0] >> 16
    assert outf.numpy()[0] == np.array([0x40400000], dtype=np.uint32).view(np.float32)[0]
