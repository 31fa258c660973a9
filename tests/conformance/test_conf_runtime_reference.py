"""Conformance: every code example of the runtime reference (seeds/004: Kernels, Arrays, Data
Types, Constants, Operators, Differentiability, Graphs), written as a Warp user writes it and
checked against NumPy or hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

import warp as wp


def _quat_axis_angle(axis, angle):
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([axis * math.sin(angle / 2), [math.cos(angle / 2)]])


def _quat_rotate(q, v):
    x, y, z, w = q
    r = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    return r @ np.asarray(v, dtype=np.float64)


# -- Kernels ------------------------------------------------------------------------------------


@wp.kernel
def simple_kernel(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), c: wp.array(dtype=float)):
    tid = wp.tid()
    x = a[tid]
    y = b[tid]
    r = wp.dot(x, y)
    c[tid] = r


def test_simple_kernel_launch():
    rng = np.random.default_rng(1)
    an, bn = rng.random((1024, 3), dtype=np.float32), rng.random((1024, 3), dtype=np.float32)
    a = wp.array(an, dtype=wp.vec3, device="cpu")
    b = wp.array(bn, dtype=wp.vec3, device="cpu")
    c = wp.zeros(1024, dtype=float, device="cpu")
    wp.launch(simple_kernel, dim=1024, inputs=[a, b, c], device="cpu")
    np.testing.assert_allclose(c.numpy(), np.sum(an * bn, axis=1), rtol=1e-6)


@wp.kernel
def complex_kernel(out: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    out[i, j, k] = i * 10000 + j * 10 + k


def test_multidimensional_launch_tid():
    out = wp.zeros((128, 128, 3), dtype=int)
    wp.launch(complex_kernel, dim=(128, 128, 3), inputs=[out])
    i, j, k = np.meshgrid(np.arange(128), np.arange(128), np.arange(3), indexing="ij")
    np.testing.assert_array_equal(out.numpy(), i * 10000 + j * 10 + k)


def test_inputs_on_another_device_raise():
    """'all the kernel inputs must live on the target device': a foreign object is refused."""
    with pytest.raises((TypeError, ValueError, RuntimeError)):
        wp.launch(
            simple_kernel, dim=4, inputs=[np.zeros((4, 3)), np.zeros((4, 3)), np.zeros(4)], device="cpu"
        )


# -- Arrays -------------------------------------------------------------------------------------


def test_global_constructors():
    e = wp.empty(shape=1024, dtype=wp.vec3, device="cpu")
    assert e.shape == (1024,) and e.dtype is wp.vec3 and e.size == 1024
    z = wp.zeros(shape=1024, dtype=float, device="cpu")
    assert z.dtype is wp.float32
    np.testing.assert_array_equal(z.numpy(), np.zeros(1024, dtype=np.float32))


def test_array_from_numpy_copy_and_zero_copy():
    r = np.random.default_rng(2).random(1024)
    a = wp.array(r, dtype=float, device="cpu")
    np.testing.assert_array_equal(a.numpy(), r.astype(np.float32))
    r32 = r.astype(np.float32)
    b = wp.array(r32, dtype=float, copy=False, device="cpu")
    r32[7] = 123.0
    assert b.numpy()[7] == 123.0  # a wrapper around the NumPy data
    a2 = wp.array(r32, dtype=float, device="cpu")
    r32[8] = -5.0
    assert a2.numpy()[8] != -5.0  # a copy


def test_array_vec3_from_n_by_3():
    r = np.random.default_rng(3).random((1024, 3))
    a = wp.array(r, dtype=wp.vec3, device="cpu")
    assert a.shape == (1024,)
    np.testing.assert_allclose(a.numpy(), r.astype(np.float32))
    with pytest.raises(ValueError):
        wp.array(np.zeros((16, 2)), dtype=wp.vec3)  # incompatible shapes raise


def test_to_and_copy_between_arrays():
    a = np.arange(10, dtype=np.float32)
    host_array = wp.array(a, dtype=float, device="cpu")
    device_array = host_array.to("cpu")
    np.testing.assert_array_equal(device_array.numpy(), a)
    src_array = wp.array(a, dtype=float, device="cpu")
    dest_array = wp.empty_like(host_array)
    wp.copy(dest_array, src_array)
    np.testing.assert_array_equal(dest_array.numpy(), a)


@wp.kernel
def index_2d(input: wp.array(dtype=float, ndim=2), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    value = input[i, j]
    row = input[i]
    out[i, j] = value + 10.0 * row[j]


def test_multidimensional_arrays_and_row_slices():
    x = np.arange(1024 * 16, dtype=np.float32).reshape(1024, 16)
    inp = wp.array(x, dtype=float)
    out = wp.zeros(shape=(1024, 16), dtype=float, device="cpu")
    wp.launch(index_2d, dim=(1024, 16), inputs=[inp, out])
    np.testing.assert_array_equal(out.numpy(), 11.0 * x)


@wp.func
def sum_row(row: wp.array(dtype=float)) -> float:
    s = float(0.0)
    for j in range(row.shape[0]):
        s += row[j]
    return s


@wp.kernel
def chained_slices(a: wp.array3d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = a[i][1][2]
    out[i] = s + sum_row(a[i][0])


def test_concatenated_slices_and_slices_to_functions():
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    out = wp.zeros(2, dtype=float)
    wp.launch(chained_slices, dim=2, inputs=[wp.array(x, dtype=float), out])
    np.testing.assert_array_equal(out.numpy(), x[:, 1, 2] + x[:, 0, :].sum(axis=1))


def test_zeros_empty_like_clone():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=float)
    z = wp.zeros_like(a)
    assert z.shape == (2, 3) and z.dtype is wp.float32 and not z.numpy().any()
    e = wp.empty_like(a)
    assert e.shape == a.shape and e.dtype is a.dtype
    c = wp.clone(a)
    np.testing.assert_array_equal(c.numpy(), a.numpy())
    assert c.ptr != a.ptr


def test_arrays_limited_to_four_dimensions():
    assert wp.zeros((1, 2, 3, 4), dtype=wp.mat33).numpy().shape == (1, 2, 3, 4, 3, 3)
    with pytest.raises((ValueError, RuntimeError)):
        wp.zeros((1, 1, 1, 1, 1), dtype=float)


# -- Matrix multiplication ----------------------------------------------------------------------


@wp.kernel
def loss_kernel(d: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(loss, 0, d[i, j] * d[i, j])


def test_matmul_recorded_on_tape():
    rng = np.random.default_rng(6)
    m, k, n = 5, 7, 3
    an, bn, cn = (rng.random(s).astype(np.float32) for s in ((m, k), (k, n), (m, n)))
    A = wp.array(an, dtype=float, requires_grad=True)
    B = wp.array(bn, dtype=float, requires_grad=True)
    C = wp.array(cn, dtype=float, requires_grad=True)
    D = wp.zeros((m, n), dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.matmul(A, B, C, D, alpha=2.0, beta=0.5, device="cpu")
        wp.launch(loss_kernel, dim=(m, n), inputs=[D, loss], device="cpu")
    tape.backward(loss=loss)
    dn = 2.0 * an @ bn + 0.5 * cn
    np.testing.assert_allclose(D.numpy(), dn, rtol=1e-5)
    g = 2.0 * dn
    np.testing.assert_allclose(A.grad.numpy(), 2.0 * g @ bn.T, rtol=1e-5)
    np.testing.assert_allclose(B.grad.numpy(), 2.0 * an.T @ g, rtol=1e-5)
    np.testing.assert_allclose(C.grad.numpy(), 0.5 * g, rtol=1e-5)


def test_matmul_in_place_batched_and_operator():
    rng = np.random.default_rng(7)
    an, bn, cn = rng.random((3, 4)), rng.random((4, 2)), rng.random((3, 2))
    A, B = wp.array(an, dtype=wp.float64), wp.array(bn, dtype=wp.float64)
    C = wp.array(cn, dtype=wp.float64)
    wp.matmul(A, B, C, C, beta=3.0)  # d = a @ b + 3 c, written over c
    np.testing.assert_allclose(C.numpy(), an @ bn + 3.0 * cn, rtol=1e-12)
    D = A @ B
    assert D.shape == (3, 2) and D.dtype is wp.float64
    np.testing.assert_allclose(D.numpy(), an @ bn, rtol=1e-12)
    ab, bb = rng.random((2, 3, 4)).astype(np.float32), rng.random((2, 4, 5)).astype(np.float32)
    Db = wp.zeros((2, 3, 5), dtype=float)
    wp.batched_matmul(
        wp.array(ab, dtype=float), wp.array(bb, dtype=float), wp.zeros((2, 3, 5), dtype=float), Db
    )
    np.testing.assert_allclose(Db.numpy(), ab @ bb, rtol=1e-5)
    with pytest.raises(RuntimeError, match="incompatible dimensions"):
        wp.matmul(A, A, C, C)


# -- Data types ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "t,np_t",
    [
        (wp.int8, np.int8),
        (wp.uint8, np.uint8),
        (wp.int16, np.int16),
        (wp.uint16, np.uint16),
        (wp.int32, np.int32),
        (wp.uint32, np.uint32),
        (wp.int64, np.int64),
        (wp.uint64, np.uint64),
        (wp.float32, np.float32),
        (wp.float64, np.float64),
    ],
)
def test_scalar_storage_types(t, np_t):
    a = wp.array(np.arange(5).astype(np_t), dtype=t)
    assert a.dtype is t and a.numpy().dtype == np_t
    assert wp.types.type_size_in_bytes(t) == np.dtype(np_t).itemsize


def test_float_and_int_aliases():
    assert wp.zeros(1, dtype=float).dtype is wp.float32
    assert wp.zeros(1, dtype=int).dtype is wp.int32


@wp.kernel
def vector_ops(out: wp.array(dtype=float)):
    a = wp.vec3(1.0, 0.0, 0.0)
    b = wp.vec3(0.0, 1.0, 0.0)
    c = wp.cross(a, b)
    r = wp.dot(c, c)
    out[0] = r
    out[1] = c[2]


def test_vector_cross_dot():
    out = wp.zeros(2, dtype=float)
    wp.launch(vector_ops, dim=1, inputs=[out])
    assert out.numpy().tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    "names,n,np_t",
    [
        (("vec2", "vec3", "vec4"), None, np.float32),
        (("vec2f", "vec3f", "vec4f"), None, np.float32),
        (("vec2d", "vec3d", "vec4d"), None, np.float64),
        (("vec2h", "vec3h", "vec4h"), None, np.float16),
        (("vec2ub", "vec3ub", "vec4ub"), None, np.uint8),
    ],
)
def test_builtin_vector_types(names, n, np_t):
    for length, name in zip((2, 3, 4), names):
        t = getattr(wp, name)
        a = wp.zeros(3, dtype=t)
        assert a.numpy().shape == (3, length) and a.numpy().dtype == np_t


@pytest.mark.parametrize(
    "suffix,np_t", [("", np.float32), ("f", np.float32), ("d", np.float64), ("h", np.float16)]
)
def test_spatial_and_matrix_types(suffix, np_t):
    for name, shape in (
        (f"spatial_vector{suffix}", (6,)),
        (f"spatial_matrix{suffix}", (6, 6)),
        (f"mat22{suffix}", (2, 2)),
        (f"mat33{suffix}", (3, 3)),
        (f"mat44{suffix}", (4, 4)),
    ):
        a = wp.zeros(2, dtype=getattr(wp, name))
        assert a.numpy().shape == (2, *shape) and a.numpy().dtype == np_t, name


vec5d = wp.types.vector(length=5, dtype=wp.float64)


@wp.kernel
def custom_vector(out: wp.array(dtype=vec5d)):
    v = vec5d()
    out[0] = v
    v = vec5d(wp.float64(1.0), wp.float64(2.0), wp.float64(3.0), wp.float64(4.0), wp.float64(5.0))
    out[1] = v
    w = wp.vector(dtype=wp.float64, length=5)
    out[2] = w
    w = wp.vector(wp.float64(1.0), length=5)
    out[3] = w
    u = wp.vector(wp.float64(1.0), wp.float64(2.0), wp.float64(3.0), wp.float64(4.0), wp.float64(5.0))
    out[4] = u + v * wp.float64(2.0) - w


def test_custom_vector_types():
    arr = wp.zeros(10, dtype=vec5d)
    assert arr.numpy().shape == (10, 5) and arr.numpy().dtype == np.float64
    out = wp.zeros(5, dtype=vec5d)
    wp.launch(custom_vector, dim=1, inputs=[out])
    r = np.arange(1.0, 6.0)
    np.testing.assert_array_equal(out.numpy(), [np.zeros(5), r, np.zeros(5), np.ones(5), r + 2 * r - 1])


@wp.kernel
def matrix_inverse(out: wp.array(dtype=wp.vec2), mout: wp.array(dtype=wp.mat22)):
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    minv = wp.inverse(m)
    v = minv * wp.vec2(0.5, 0.3)
    out[0] = v
    mout[0] = minv


def test_matrix_row_major_and_inverse():
    out = wp.zeros(1, dtype=wp.vec2)
    mout = wp.zeros(1, dtype=wp.mat22)
    wp.launch(matrix_inverse, dim=1, inputs=[out, mout])
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(mout.numpy()[0], np.linalg.inv(m), rtol=1e-6)
    np.testing.assert_allclose(out.numpy()[0], np.linalg.inv(m) @ [0.5, 0.3], rtol=1e-5)


mat32h = wp.types.matrix(shape=(3, 2), dtype=wp.float16)
mat32d = wp.types.matrix(shape=(3, 2), dtype=wp.float64)


@wp.kernel
def custom_matrix(out: wp.array(dtype=wp.vec3h), ident: wp.array(dtype=wp.float64)):
    m = mat32h(
        wp.float16(1.0),
        wp.float16(2.0),
        wp.float16(3.0),
        wp.float16(4.0),
        wp.float16(5.0),
        wp.float16(6.0),
    )
    v2 = wp.vec2h(wp.float16(1.0), wp.float16(1.0))
    v3 = m * v2
    out[0] = v3
    m2 = wp.matrix(
        wp.float16(1.0),
        wp.float16(2.0),
        wp.float16(1.0),
        wp.float16(2.0),
        wp.float16(1.0),
        wp.float16(2.0),
        shape=(3, 2),
    )
    out[1] = m2 * v2
    m3 = wp.matrix(wp.float16(0.0), shape=(3, 2))
    out[2] = m3 * v2
    i5 = wp.identity(n=5, dtype=wp.float64)
    t = wp.float64(0.0)
    for r in range(5):
        for c in range(5):
            t += i5[r, c] * wp.float64(r * 5 + c)
    ident[0] = t


def test_custom_matrix_types():
    a = wp.zeros(10, dtype=mat32d)
    assert a.numpy().shape == (10, 3, 2) and a.numpy().dtype == np.float64
    out = wp.zeros(3, dtype=wp.vec3h)
    ident = wp.zeros(1, dtype=wp.float64)
    wp.launch(custom_matrix, dim=1, inputs=[out, ident])
    np.testing.assert_array_equal(out.numpy(), [[3.0, 7.0, 11.0], [3.0, 3.0, 3.0], [0.0, 0.0, 0.0]])
    assert ident.numpy()[0] == sum(r * 5 + r for r in range(5))


@wp.kernel
def quaternion_ops(
    out: wp.array(dtype=wp.vec3),
    q_out: wp.array(dtype=wp.quat),
    qd_out: wp.array(dtype=wp.quatd),
    qh_out: wp.array(dtype=wp.quath),
):
    q = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), wp.radians(30.0))
    v = wp.quat_rotate(q, wp.vec3(0.0, 1.0, 0.0))
    out[0] = v
    q_out[0] = q
    qd = wp.quat_identity(dtype=wp.float64)
    qd_out[0] = qd
    qf = wp.quat_identity()
    q_out[1] = qf
    qh = wp.quaternion(wp.float16(0.0), wp.float16(0.0), wp.float16(0.0), wp.float16(1.0))
    qh_out[0] = qh
    qh = wp.quaternion(wp.vector(wp.float16(0.0), wp.float16(0.0), wp.float16(1.0)), wp.float16(1.0))
    qh_out[1] = qh


def test_quaternions():
    out = wp.zeros(1, dtype=wp.vec3)
    q_out = wp.zeros(2, dtype=wp.quat)
    qd_out = wp.zeros(1, dtype=wp.quatd)
    qh_out = wp.zeros(2, dtype=wp.quath)
    wp.launch(quaternion_ops, dim=1, inputs=[out, q_out, qd_out, qh_out])
    q = _quat_axis_angle([1.0, 0.0, 0.0], math.radians(30.0))
    np.testing.assert_allclose(q_out.numpy()[0], q, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out.numpy()[0], _quat_rotate(q, [0.0, 1.0, 0.0]), atol=1e-6)
    np.testing.assert_array_equal(q_out.numpy()[1], [0, 0, 0, 1])
    np.testing.assert_array_equal(qd_out.numpy()[0], [0, 0, 0, 1])
    assert qd_out.numpy().dtype == np.float64
    np.testing.assert_array_equal(qh_out.numpy(), [[0, 0, 0, 1], [0, 0, 1, 1]])
    quatd = wp.types.quaternion(dtype=wp.float64)
    assert quatd is wp.quatd
    assert wp.zeros(1, dtype=quatd).numpy().dtype == np.float64


@wp.kernel
def transform_ops(out: wp.array(dtype=wp.vec3), td: wp.array(dtype=wp.transformd)):
    t = wp.transform(
        wp.vec3(1.0, 2.0, 3.0), wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), wp.radians(30.0))
    )
    p = wp.transform_point(t, wp.vec3(10.0, 0.5, 1.0))
    out[0] = p
    p = wp.transform_vector(t, wp.vec3(10.0, 0.5, 1.0))
    out[1] = p
    td[0] = wp.transform_identity(dtype=wp.float64)


def test_transforms():
    out = wp.zeros(2, dtype=wp.vec3)
    td = wp.zeros(1, dtype=wp.transformd)
    wp.launch(transform_ops, dim=1, inputs=[out, td])
    q = _quat_axis_angle([0.0, 1.0, 0.0], math.radians(30.0))
    rotated = _quat_rotate(q, [10.0, 0.5, 1.0])
    np.testing.assert_allclose(out.numpy()[0], rotated + [1.0, 2.0, 3.0], rtol=1e-5)
    np.testing.assert_allclose(out.numpy()[1], rotated, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(td.numpy()[0], [0, 0, 0, 0, 0, 0, 1])
    transformd = wp.types.transformation(dtype=wp.float64)
    assert transformd is wp.transformd


@wp.struct
class MyStruct:
    param1: int
    param2: float
    param3: wp.array(dtype=wp.vec3)


@wp.kernel
def compute_struct(args: MyStruct):
    tid = wp.tid()
    print(args.param1)
    print(args.param2)
    print(args.param3[tid])


@wp.kernel
def struct_sum(args: MyStruct, out: wp.array(dtype=float)):
    tid = wp.tid()
    out[tid] = float(args.param1) + args.param2 + wp.length(args.param3[tid])


def test_structs_in_python_and_kernels(capfd):
    s = MyStruct()
    s.param1 = 10
    s.param2 = 2.5
    s.param3 = wp.zeros(shape=10, dtype=wp.vec3)
    capfd.readouterr()
    wp.launch(compute_struct, dim=2, inputs=[s])
    wp.synchronize()
    assert capfd.readouterr().out.splitlines() == ["10", "2.5", "0 0 0 "] * 2
    s.param3 = wp.array(np.tile([3.0, 4.0, 0.0], (10, 1)), dtype=wp.vec3)
    out = wp.zeros(10, dtype=float)
    wp.launch(struct_sum, dim=10, inputs=[s, out])
    np.testing.assert_array_equal(out.numpy(), np.full(10, 17.5))


def test_struct_arrays():
    a = wp.zeros(shape=10, dtype=MyStruct)
    assert a.shape == (10,)
    assert a.numpy()["param1"].tolist() == [0] * 10
    s1 = MyStruct()
    s1.param1 = 3
    b = wp.array([MyStruct(), s1, MyStruct()], dtype=MyStruct)
    assert b.numpy()["param1"].tolist() == [0, 3, 0]
    assert [x.param1 for x in b.list()] == [0, 3, 0]


def test_no_implicit_conversions():
    @wp.kernel
    def bad(out: wp.array(dtype=float)):
        out[0] = float(0.0) + int(4)

    with pytest.raises(wp.WarpCodegenTypeError, match="add"):
        wp.launch(bad, dim=1, inputs=[wp.zeros(1, dtype=float)])

    @wp.kernel
    def good(out: wp.array(dtype=float), h: wp.array(dtype=wp.float16), u: wp.array(dtype=wp.uint8)):
        out[0] = float(0.0) + float(int(4))
        h[0] = wp.float16(2.5)
        u[0] = wp.uint8(300 - 100)

    out, h, u = wp.zeros(1, dtype=float), wp.zeros(1, dtype=wp.float16), wp.zeros(1, dtype=wp.uint8)
    wp.launch(good, dim=1, inputs=[out, h, u])
    assert (out.numpy()[0], h.numpy()[0], u.numpy()[0]) == (4.0, 2.5, 200)


# -- Constants ----------------------------------------------------------------------------------

TYPE_SPHERE = wp.constant(0)
TYPE_CUBE = wp.constant(1)
TYPE_CAPSULE = wp.constant(2)


@wp.kernel
def collide(geometry: wp.array(dtype=int)):
    t = geometry[wp.tid()]
    if t == TYPE_SPHERE:
        print("sphere")
    if t == TYPE_CUBE:
        print("cube")
    if t == TYPE_CAPSULE:
        print("capsule")


class Shapes:
    RADIUS = wp.constant(0.5)


@wp.kernel
def class_constant(out: wp.array(dtype=float)):
    out[0] = Shapes.RADIUS * 4.0


def test_constants(capfd):
    capfd.readouterr()
    wp.launch(collide, dim=4, inputs=[wp.array([1, 2, 0, 5], dtype=int)])
    wp.synchronize()
    assert capfd.readouterr().out.splitlines() == ["cube", "capsule", "sphere"]
    out = wp.zeros(1, dtype=float)
    wp.launch(class_constant, dim=1, inputs=[out])
    assert out.numpy()[0] == 2.0


# -- Operators ----------------------------------------------------------------------------------


@wp.kernel
def operators(ints: wp.array(dtype=int), floats: wp.array(dtype=float), a: int, b: int, x: float, y: float):
    ints[0] = (
        int(a > b) + 2 * int(a < b) + 4 * int(a >= b) + 8 * int(a <= b) + 16 * int(a == b) + 32 * int(a != b)
    )
    ints[1] = int((a > 0) and (b > 0)) + 2 * int((a > 0) or (b > 0)) + 4 * int(not (a > 0))
    ints[2] = a + b
    ints[3] = a - b
    ints[4] = a * b
    ints[5] = a // b
    ints[6] = a % b
    floats[0] = x / y
    floats[1] = x // y
    floats[2] = x**y
    floats[3] = x % y
    floats[4] = x * y - x + y


@pytest.mark.parametrize(
    "a,b,x,y", [(7, 2, 7.5, 2.0), (-7, 2, -7.5, 2.0), (3, 3, 2.0, 0.5), (0, -4, 1.5, -4.0)]
)
def test_operators(a, b, x, y):
    ints = wp.zeros(7, dtype=int)
    floats = wp.zeros(5, dtype=float)
    wp.launch(operators, dim=1, inputs=[ints, floats, a, b, x, y])
    cmp = (
        int(a > b) + 2 * int(a < b) + 4 * int(a >= b) + 8 * int(a <= b) + 16 * int(a == b) + 32 * int(a != b)
    )
    logic = int(a > 0 and b > 0) + 2 * int(a > 0 or b > 0) + 4 * int(not a > 0)
    assert ints.numpy().tolist() == [cmp, logic, a + b, a - b, a * b, a // b, int(math.fmod(a, b))]
    f = np.float32
    expected = [
        f(x) / f(y),
        np.floor_divide(f(x), f(y)),
        f(x) ** f(y),
        np.fmod(f(x), f(y)),
        f(x) * f(y) - f(x) + f(y),
    ]
    np.testing.assert_allclose(floats.numpy(), expected, rtol=1e-6)


# -- Differentiability --------------------------------------------------------------------------


@wp.kernel
def compute1(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=float)):
    tid = wp.tid()
    b[tid] = wp.dot(a[tid], a[tid])


@wp.kernel
def compute2(c: wp.array(dtype=float), d: wp.array(dtype=float)):
    tid = wp.tid()
    d[tid] = 3.0 * c[tid] + wp.sin(c[tid])


@wp.kernel
def loss(d: wp.array(dtype=float), l: wp.array(dtype=float)):  # noqa: E741 - the docs' name
    tid = wp.tid()
    wp.atomic_add(l, 0, d[tid])


def test_tape_backward_and_gradients():
    n = 16
    an = np.random.default_rng(4).random((n, 3)).astype(np.float32)
    a = wp.array(an, dtype=wp.vec3, requires_grad=True)
    b = wp.zeros(n, dtype=float, requires_grad=True)
    d = wp.zeros(n, dtype=float, requires_grad=True)
    l = wp.zeros(1, dtype=float, requires_grad=True)  # noqa: E741
    tape = wp.Tape()
    with tape:
        wp.launch(kernel=compute1, dim=n, inputs=[a, b], device="cpu")
        wp.launch(kernel=compute2, dim=n, inputs=[b, d], device="cpu")
        wp.launch(kernel=loss, dim=n, inputs=[d, l], device="cpu")
    tape.backward(l)
    s = np.sum(an * an, axis=1)
    expected = (3.0 + np.cos(s))[:, None] * 2.0 * an
    np.testing.assert_allclose(tape.gradients[a].numpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-5)
    # tape.zero() resets the gradients; a second pass then gives the same result
    tape.zero()
    assert not a.grad.numpy().any()
    assert not b.grad.numpy().any()
    tape.backward(l)
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-5)


def test_requires_grad_allocates_gradients():
    a = wp.zeros(1024, dtype=wp.vec3, device="cpu", requires_grad=True)
    assert a.grad is not None and a.grad.shape == a.shape and a.grad.dtype is wp.vec3
    assert wp.zeros(4, dtype=float).grad is None


@wp.kernel
def jac_kernel(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    env = wp.tid()
    x0 = x[env * 2 + 0]
    x1 = x[env * 2 + 1]
    y[env * 3 + 0] = x0 * x1
    y[env * 3 + 1] = wp.sin(x0)
    y[env * 3 + 2] = x1 * x1 * 2.0


def _jacobian_reference(xv):
    x0, x1 = xv
    return np.array([[x1, x0], [np.cos(x0), 0.0], [0.0, 4.0 * x1]])


def test_jacobian_rows_by_selection_vectors():
    input_dim, output_dim = 2, 3
    xn = np.array([0.3, -1.2], dtype=np.float32)
    input_buffer = wp.array(xn, dtype=float, requires_grad=True)
    output_buffer = wp.zeros(output_dim, dtype=float, requires_grad=True)
    jacobian = np.empty((output_dim, input_dim), dtype=np.float32)
    tape = wp.Tape()
    with tape:
        wp.launch(jac_kernel, dim=1, inputs=[input_buffer, output_buffer])
    for output_index in range(output_dim):
        select_index = np.zeros(output_dim)
        select_index[output_index] = 1.0
        e = wp.array(select_index, dtype=wp.float32)
        tape.backward(grads={output_buffer: e})
        q_grad_i = tape.gradients[input_buffer]
        jacobian[output_index, :] = q_grad_i.numpy()
        tape.zero()
    np.testing.assert_allclose(jacobian, _jacobian_reference(xn), rtol=1e-6)


def test_jacobian_over_environments_in_parallel():
    num_envs, input_dim, output_dim = 4, 2, 3
    xn = np.random.default_rng(5).standard_normal(num_envs * input_dim).astype(np.float32)
    input_buffer = wp.array(xn, dtype=float, requires_grad=True)
    output_buffer = wp.zeros(num_envs * output_dim, dtype=float, requires_grad=True)
    jacobians = np.empty((num_envs, output_dim, input_dim), dtype=np.float32)
    tape = wp.Tape()
    with tape:
        wp.launch(jac_kernel, dim=num_envs, inputs=[input_buffer, output_buffer])
    for output_index in range(output_dim):
        select_index = np.zeros(output_dim)
        select_index[output_index] = 1.0
        e = wp.array(np.tile(select_index, num_envs), dtype=wp.float32)
        tape.backward(grads={output_buffer: e})
        q_grad_i = tape.gradients[input_buffer]
        jacobians[:, output_index, :] = q_grad_i.numpy().reshape(num_envs, input_dim)
        tape.zero()
    for env in range(num_envs):
        ref = _jacobian_reference(xn[env * 2 : env * 2 + 2])
        np.testing.assert_allclose(jacobians[env], ref, rtol=1e-5, atol=1e-7)


# -- Graphs -------------------------------------------------------------------------------------


@wp.kernel
def increment(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    tid = wp.tid()
    a[tid] = a[tid] + b[tid]


def test_capture_and_replay():
    """capture_begin/end/launch as documented (CUDA graphs in Warp; also works on the CPU here)."""
    a = wp.zeros(8, dtype=float)
    b = wp.full(8, 1.0, dtype=float)
    wp.launch(increment, dim=8, inputs=[a, b])  # load the module before capturing
    a.zero_()
    wp.capture_begin(device="cpu")
    try:
        for _ in range(100):
            wp.launch(kernel=increment, dim=8, inputs=[a, b], device="cpu")
    finally:
        graph = wp.capture_end(device="cpu")
    assert not a.numpy().any()  # recording does not run the launches
    wp.capture_launch(graph)
    np.testing.assert_array_equal(a.numpy(), np.full(8, 100.0))
    wp.capture_launch(graph)
    np.testing.assert_array_equal(a.numpy(), np.full(8, 200.0))
