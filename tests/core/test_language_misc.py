"""Smaller kernel-language rules: ``for x in vector``, ``len``, ``range`` argument types,
``wp.select`` / ``wp.where`` argument order, ``int()`` / ``float()`` casts and Python's
``min`` / ``max`` / ``abs`` in kernels; each compared with the same computation in Python."""

import math

import numpy as np
import pytest

import warp as wp


def test_for_over_vector_matrix_quaternion_transform():
    @wp.kernel
    def iterate(vs: wp.array(dtype=wp.vec4), ms: wp.array(dtype=wp.mat33), out: wp.array2d(dtype=float)):
        i = wp.tid()
        total = float(0.0)
        prod = float(1.0)
        for x in vs[i]:
            total += x
            prod *= x
        out[i, 0] = total
        out[i, 1] = prod
        col = float(0.0)
        for row in ms[i]:
            col += row[1]
            for y in row:
                out[i, 2] += y * y
        out[i, 3] = col
        first_negative = float(0.0)
        for x in vs[i]:
            if x < 0.0:
                first_negative = x
                break
        out[i, 4] = first_negative
        n = int(0)
        for x in vs[i]:
            if x == 0.0:
                continue
            n += 1
        out[i, 5] = float(n)
        q = wp.quat(1.0, 2.0, 3.0, 4.0)
        t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.0, 1.0))
        s = float(0.0)
        for c in q:
            s += c
        for c in t:
            s += c * 10.0
        out[i, 6] = s

    vd = np.array([[1.0, -2.0, 0.0, 4.0], [0.5, 0.5, -3.0, -4.0]], dtype=np.float32)
    md = np.arange(18, dtype=np.float32).reshape(2, 3, 3)
    out = wp.zeros((2, 7), dtype=float)
    wp.launch(iterate, dim=2, inputs=[wp.array(vd, dtype=wp.vec4), wp.array(md, dtype=wp.mat33), out])
    for i in range(2):
        v, m = vd[i], md[i]
        neg = next((x for x in v if x < 0), 0.0)
        exp = [v.sum(), np.prod(v), (m * m).sum(), m[:, 1].sum(), neg, np.count_nonzero(v), 10 + 10 * 7.0]
        np.testing.assert_allclose(out.numpy()[i], exp, rtol=1e-6)


MAT25 = wp.types.matrix(shape=(2, 5), dtype=float)


@pytest.mark.needs_plugin("builtins")
def test_len_of_composites_and_arrays():
    @wp.kernel
    def lengths(a: wp.array2d(dtype=float), out: wp.array(dtype=int)):
        out[0] = len(wp.vec3())
        out[1] = len(wp.mat33())
        out[2] = len(MAT25())
        out[3] = len(wp.quat())
        out[4] = len(wp.transform())
        out[5] = len(wp.spatial_vector())
        out[6] = len(a)
        out[7] = len(a[0])

    out = wp.zeros(8, dtype=int)
    wp.launch(lengths, dim=1, inputs=[wp.zeros((3, 5), dtype=float), out])
    assert out.numpy().tolist() == [3, 3, 2, 4, 7, 6, 3, 5]


def test_range_takes_integers_only():
    @wp.kernel
    def float_range(out: wp.array(dtype=float)):
        for _ in range(2.0):
            out[0] += 1.0

    with pytest.raises(wp.WarpCodegenTypeError, match=r"range\(\) arguments must be integers, got float32"):
        wp.launch(float_range, dim=1, inputs=[wp.zeros(1, dtype=float)])

    @wp.kernel
    def float_var(out: wp.array(dtype=float), n: float):
        for _ in range(n):
            out[0] += 1.0

    with pytest.raises(wp.WarpCodegenTypeError, match=r"range\(\) arguments must be integers, got float32"):
        wp.launch(float_var, dim=1, inputs=[wp.zeros(1, dtype=float), 3.0])


def test_range_literals_adopt_the_integer_type_of_other_arguments():
    @wp.kernel
    def long_range(out: wp.array(dtype=wp.int64), n: wp.int64):
        s = wp.int64(0)
        for k in range(2, n, 3):
            s += k
        out[0] = s

    out = wp.zeros(1, dtype=wp.int64)
    wp.launch(long_range, dim=1, inputs=[out, 20])
    assert out.numpy()[0] == sum(range(2, 20, 3))


@pytest.mark.needs_plugin("builtins")
def test_select_and_where_argument_order():
    """``wp.select(cond, value_if_false, value_if_true)``;
    ``wp.where(cond, value_if_true, value_if_false)``."""
    pytest.importorskip("warp_builtins")

    @wp.kernel
    def pick(c: wp.array(dtype=int), out: wp.array2d(dtype=float)):
        i = wp.tid()
        out[i, 0] = wp.select(c[i] > 0, 1.0, 2.0)
        out[i, 1] = wp.where(c[i] > 0, 1.0, 2.0)
        out[i, 2] = wp.select(c[i], 1.0, 2.0)  # integer condition: non-zero is true
        out[i, 3] = wp.where(c[i], 1.0, 2.0)
        v = wp.where(c[i] > 0, wp.vec2(5.0, 6.0), wp.vec2(7.0, 8.0))
        out[i, 4] = v[1]

    out = wp.zeros((3, 5), dtype=float)
    wp.launch(pick, dim=3, inputs=[wp.array([1, 0, -1], dtype=int), out])
    assert out.numpy().tolist() == [[2, 1, 2, 1, 6], [1, 2, 1, 2, 8], [1, 2, 2, 1, 8]]


def test_int_and_float_casts():
    @wp.kernel
    def casts(x: wp.array(dtype=float), d: wp.array(dtype=wp.float64), i: wp.array(dtype=int),
              out_i: wp.array2d(dtype=int), out_f: wp.array2d(dtype=float)):
        k = wp.tid()
        out_i[k, 0] = int(x[k])
        out_i[k, 1] = int(d[k])
        out_i[k, 2] = int(wp.int64(i[k]) * wp.int64(3))
        out_i[k, 3] = int(x[k] > 0.0)
        out_f[k, 0] = float(i[k])
        out_f[k, 1] = float(d[k])
        out_f[k, 2] = float(x[k] < 0.0)
        out_f[k, 3] = float(wp.uint8(i[k]))

    xs = np.array([2.7, -2.7, 0.5, -0.5, 3e9, -3e9, np.nan], dtype=np.float32)
    ds = xs.astype(np.float64)
    ints = np.array([1, -1, 7, 255, 256, -300, 2**31 - 1], dtype=np.int32)
    n = len(xs)
    out_i, out_f = wp.zeros((n, 4), dtype=int), wp.zeros((n, 4), dtype=float)
    wp.launch(casts, dim=n, inputs=[wp.array(xs, dtype=float), wp.array(ds, dtype=wp.float64),
                                    wp.array(ints, dtype=int), out_i, out_f])

    def to_int32(v):  # truncation toward zero, saturating, NaN -> 0
        if math.isnan(v):
            return 0
        return int(max(min(math.trunc(float(v)), 2**31 - 1), -(2**31)))

    for k in range(n):
        exp_i = [to_int32(xs[k]), to_int32(ds[k]), int(np.int32(np.int64(ints[k]) * 3)), int(xs[k] > 0)]
        assert out_i.numpy()[k].tolist() == exp_i, k
        exp_f = [np.float32(ints[k]), np.float32(ds[k]), float(xs[k] < 0), float(np.uint8(ints[k] & 0xFF))]
        np.testing.assert_array_equal(out_f.numpy()[k], np.array(exp_f, dtype=np.float32))


@pytest.mark.needs_plugin("builtins")
def test_python_min_max_abs():
    pytest.importorskip("warp_builtins")
    @wp.kernel
    def mm(a: wp.array(dtype=float), b: wp.array(dtype=float), ia: wp.array(dtype=int),
           out: wp.array2d(dtype=float), iout: wp.array2d(dtype=int)):
        k = wp.tid()
        out[k, 0] = min(a[k], b[k])
        out[k, 1] = max(a[k], b[k])
        out[k, 2] = abs(a[k])
        out[k, 3] = min(a[k], 0.5)
        iout[k, 0] = abs(ia[k])
        iout[k, 1] = max(ia[k], 0)
        v = wp.vec3(a[k], b[k], -1.0)
        out[k, 4] = max(v)
        out[k, 5] = min(v)
        out[k, 6] = abs(v)[2]

    av = np.array([1.5, -2.0, 0.0, 3.0], dtype=np.float32)
    bv = np.array([-1.0, 4.0, -0.0, 3.0], dtype=np.float32)
    iv = np.array([-5, 6, 0, -2**31 + 1], dtype=np.int32)
    out, iout = wp.zeros((4, 7), dtype=float), wp.zeros((4, 2), dtype=int)
    wp.launch(mm, dim=4, inputs=[wp.array(av, dtype=float), wp.array(bv, dtype=float),
                                 wp.array(iv, dtype=int), out, iout])
    for k in range(4):
        v = [av[k], bv[k], -1.0]
        exp = [min(av[k], bv[k]), max(av[k], bv[k]), abs(av[k]), min(av[k], 0.5), max(v), min(v), 1.0]
        np.testing.assert_array_equal(out.numpy()[k], np.array(exp, dtype=np.float32))
        assert iout.numpy()[k].tolist() == [abs(int(iv[k])), max(int(iv[k]), 0)]


def test_handle_is_a_uint64_object_id():
    """``wp.handle`` (type of Mesh/Volume/BVH ids) holds 64-bit ids in kernels and arrays."""
    assert wp.handle is wp.uint64

    @wp.kernel
    def ids(h: wp.handle, table: wp.array(dtype=wp.handle), out: wp.array(dtype=wp.handle)):
        out[0] = h
        out[1] = table[1] + h

    big = 2**63 + 12345
    out = wp.zeros(2, dtype=wp.handle)
    wp.launch(ids, dim=1, inputs=[big, wp.array(np.array([0, 7], dtype=np.uint64), dtype=wp.handle), out])
    assert out.numpy().tolist() == [big, big + 7]
