"""Slices of vectors, matrices, quaternions and transforms in kernels, and slice assignment.

``v[1:]``, ``v[::-1]``, ``m[0, :]``, ``m[:, 1]``, ``m[1:, :2]`` ... give vectors (one sliced
dimension) or matrices (two), compared here with the same NumPy slices of the same data. The
result types are checked by storing into arrays of exactly that type (typing is strict).
"""

import numpy as np
import pytest

import warp as wp

VEC_SLICES = [
    (slice(1, None), 3), (slice(None, 2), 2), (slice(None, None, -1), 4), (slice(None, None, 2), 2),
    (slice(-2, None), 2), (slice(1, -1), 2), (slice(3, 0, -1), 3), (slice(None, None, 3), 2),
]


@wp.kernel
def vec_slices(src: wp.array(dtype=wp.vec4), o3: wp.array(dtype=wp.vec3), o2: wp.array(dtype=wp.vec2),
               o4: wp.array(dtype=wp.vec4)):
    v = src[0]
    o3[0] = v[1:]
    o2[0] = v[:2]
    o4[0] = v[::-1]
    o2[1] = v[::2]
    o2[2] = v[-2:]
    o2[3] = v[1:-1]
    o3[1] = v[3:0:-1]
    o2[4] = v[::3]


def test_vector_slices_match_numpy():
    data = np.array([1.5, -2.0, 3.25, 8.0], dtype=np.float32)
    o3, o2, o4 = wp.zeros(2, dtype=wp.vec3), wp.zeros(5, dtype=wp.vec2), wp.zeros(1, dtype=wp.vec4)
    wp.launch(vec_slices, dim=1, inputs=[wp.array([data], dtype=wp.vec4), o3, o2, o4])
    got = [o3.numpy()[0], o2.numpy()[0], o4.numpy()[0], o2.numpy()[1], o2.numpy()[2], o2.numpy()[3],
           o3.numpy()[1], o2.numpy()[4]]
    for (s, n), g in zip(VEC_SLICES, got):
        assert len(data[s]) == n
        np.testing.assert_array_equal(g, data[s], err_msg=str(s))


@pytest.mark.needs_plugin("builtins")
def test_integer_vector_slice_keeps_dtype():
    @wp.kernel
    def ints(out: wp.array(dtype=wp.vec2i), out64: wp.array(dtype=wp.vector(length=3, dtype=wp.int64))):
        v = wp.vec3i(7, -8, 9)
        out[0] = v[1:]
        w = wp.vector(wp.int64(1), wp.int64(2), wp.int64(3), wp.int64(4), wp.int64(5))
        out64[0] = w[::2]

    out = wp.zeros(1, dtype=wp.vec2i)
    out64 = wp.zeros(1, dtype=wp.vector(length=3, dtype=wp.int64))
    wp.launch(ints, dim=1, inputs=[out, out64])
    assert out.numpy()[0].tolist() == [-8, 9]
    assert out64.numpy()[0].tolist() == [1, 3, 5]


@wp.kernel
def mat_slices(src: wp.array(dtype=wp.mat33), i: int, vec: wp.array(dtype=wp.vec3),
               vec2: wp.array(dtype=wp.vec2),
               m22: wp.array(dtype=wp.mat22), m33: wp.array(dtype=wp.mat33),
               m23: wp.array(dtype=wp.types.matrix(shape=(2, 3), dtype=float))):
    m = src[0]
    vec[0] = m[0, :]
    vec[1] = m[:, 1]
    vec[2] = m[:, -1]
    vec[3] = m[i, :]
    vec[4] = m[:, i]
    vec2[0] = m[i, 1:]
    vec2[1] = m[::2, i]
    m22[0] = m[1:, :2]
    m22[1] = m[::2, ::-2]
    m33[0] = m[::-1, ::-1]
    m33[1] = m[:]
    m23[0] = m[1:]
    m23[1] = m[:2, :]


@pytest.mark.parametrize("i", [0, 2, -1, -3])
def test_matrix_slices_match_numpy(i):
    data = np.arange(1.0, 10.0, dtype=np.float32).reshape(3, 3) ** 1.5
    vec, vec2 = wp.zeros(5, dtype=wp.vec3), wp.zeros(2, dtype=wp.vec2)
    m22, m33 = wp.zeros(2, dtype=wp.mat22), wp.zeros(2, dtype=wp.mat33)
    m23 = wp.zeros(2, dtype=wp.types.matrix(shape=(2, 3), dtype=float))
    wp.launch(mat_slices, dim=1, inputs=[wp.array([data], dtype=wp.mat33), i, vec, vec2, m22, m33, m23])
    expected = [
        (vec.numpy()[0], data[0, :]), (vec.numpy()[1], data[:, 1]), (vec.numpy()[2], data[:, -1]),
        (vec.numpy()[3], data[i, :]), (vec.numpy()[4], data[:, i]), (vec2.numpy()[0], data[i, 1:]),
        (vec2.numpy()[1], data[::2, i]), (m22.numpy()[0], data[1:, :2]), (m22.numpy()[1], data[::2, ::-2]),
        (m33.numpy()[0], data[::-1, ::-1]), (m33.numpy()[1], data[:]), (m23.numpy()[0], data[1:]),
        (m23.numpy()[1], data[:2, :]),
    ]
    for k, (got, ref) in enumerate(expected):
        np.testing.assert_array_equal(got, ref, err_msg=f"case {k}")


def test_quaternion_transform_and_spatial_slices_are_vectors():
    @wp.kernel
    def others(q_in: wp.array(dtype=wp.quat), t_in: wp.array(dtype=wp.transform),
               s_in: wp.array(dtype=wp.spatial_vector), o3: wp.array(dtype=wp.vec3),
               o4: wp.array(dtype=wp.vec4)):
        q = q_in[0]
        t = t_in[0]
        s = s_in[0]
        o3[0] = q[:3]
        o4[0] = q[::-1]
        o3[1] = t[:3]
        o4[1] = t[3:]
        o3[2] = s[:3]
        o3[3] = s[3:]
        o3[4] = t[-3:]

    q = np.array([0.1, 0.2, 0.3, 0.9], dtype=np.float32)
    t = np.array([1, 2, 3, 0.5, 0.5, 0.5, 0.5], dtype=np.float32)
    s = np.arange(6, dtype=np.float32) * 1.5
    o3, o4 = wp.zeros(5, dtype=wp.vec3), wp.zeros(2, dtype=wp.vec4)
    wp.launch(others, dim=1, inputs=[wp.array([q], dtype=wp.quat), wp.array([t], dtype=wp.transform),
                                     wp.array([s], dtype=wp.spatial_vector), o3, o4])
    np.testing.assert_array_equal(o3.numpy(), np.array([q[:3], t[:3], s[:3], s[3:], t[-3:]]))
    np.testing.assert_array_equal(o4.numpy(), np.array([q[::-1], t[3:]]))


@wp.kernel
def slice_assign(vin: wp.array(dtype=wp.vec4), min_: wp.array(dtype=wp.mat33), vout: wp.array(dtype=wp.vec4),
                 mout: wp.array(dtype=wp.mat33), j: int):
    v = vin[0]
    v[1:3] = wp.vec2(20.0, 30.0)
    vout[0] = v
    v = vin[0]
    v[::-1] = v
    vout[1] = v
    v = vin[0]
    v[::2] += wp.vec2(100.0, 200.0)
    v[-1:] = wp.vector(-1.0, length=1)
    vout[2] = v
    m = min_[0]
    m[:, 1] = wp.vec3(-1.0, -2.0, -3.0)
    mout[0] = m
    m = min_[0]
    m[2, :] = wp.vec3(0.5, 0.25, 0.125)
    m[1:, :2] = wp.mat22(7.0, 8.0, 9.0, 10.0)
    mout[1] = m
    m = min_[0]
    m[:, j] -= wp.vec3(1.0, 1.0, 1.0)
    m[j, ::-1] = m[j, :]
    mout[2] = m


@pytest.mark.needs_plugin("builtins")
@pytest.mark.parametrize("j", [0, 2, -1])
def test_slice_assignment_matches_numpy(j):
    vdata = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    mdata = np.arange(9, dtype=np.float32).reshape(3, 3)
    vout, mout = wp.zeros(3, dtype=wp.vec4), wp.zeros(3, dtype=wp.mat33)
    wp.launch(slice_assign, dim=1, inputs=[wp.array([vdata], dtype=wp.vec4),
                                           wp.array([mdata], dtype=wp.mat33),
                                           vout, mout, j])
    v = vdata.copy()
    v[1:3] = [20.0, 30.0]
    exp_v = [v]
    v = vdata.copy()
    v[::-1] = v.copy()
    exp_v.append(v)
    v = vdata.copy()
    v[::2] += [100.0, 200.0]
    v[-1:] = [-1.0]
    exp_v.append(v)
    np.testing.assert_array_equal(vout.numpy(), np.array(exp_v))
    m = mdata.copy()
    m[:, 1] = [-1, -2, -3]
    exp_m = [m]
    m = mdata.copy()
    m[2, :] = [0.5, 0.25, 0.125]
    m[1:, :2] = [[7, 8], [9, 10]]
    exp_m.append(m)
    m = mdata.copy()
    m[:, j] -= 1.0
    m[j, ::-1] = m[j, :].copy()
    exp_m.append(m)
    np.testing.assert_array_equal(mout.numpy(), np.array(exp_m))


def _compile_error(body_kernel, exc, match):
    with pytest.raises(exc, match=match):
        wp.launch(body_kernel, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3)])


def test_slice_errors():
    @wp.kernel
    def wrong_length(o: wp.array(dtype=wp.vec3)):
        v = wp.vec3(1.0, 2.0, 3.0)
        v[1:] = wp.vec3(0.0, 0.0, 0.0)
        o[0] = v

    _compile_error(wrong_length, wp.WarpCodegenValueError,
                   r"cannot assign vec3f to a slice of vec3f holding vec2f: "
                   r"The length of the provided vector \(3\) isn't compatible with the given slice "
                   r"\(expected 2\)\.$")

    @wp.kernel
    def dynamic_bound(o: wp.array(dtype=wp.vec3)):
        k = wp.tid()
        v = wp.vec3(1.0, 2.0, 3.0)
        o[0] = wp.vec3(v[k:][0])

    _compile_error(dynamic_bound, wp.WarpCodegenValueError,
                   r"slice bounds .* must be integer constants, got 'k'")

    @wp.kernel
    def empty(o: wp.array(dtype=wp.vec3)):
        v = wp.vec3(1.0, 2.0, 3.0)
        o[0] = wp.vec3(v[2:1][0])

    # an empty slice is a zero-length vector (as in NVIDIA Warp); indexing it is out of range
    _compile_error(empty, IndexError, r"out of range")

    @wp.kernel
    def zero_step(o: wp.array(dtype=wp.vec3)):
        v = wp.vec3(1.0, 2.0, 3.0)
        o[0] = wp.vec3(v[::0][0])

    _compile_error(zero_step, wp.WarpCodegenValueError, r"slice step cannot be zero")

    @wp.kernel
    def too_many(o: wp.array(dtype=wp.vec3)):
        v = wp.vec3(1.0, 2.0, 3.0)
        o[0] = wp.vec3(v[1:, 0][0])

    _compile_error(too_many, wp.WarpCodegenTypeError, r"too many indices for vec3f")

    @wp.kernel
    def wrong_dtype(o: wp.array(dtype=wp.vec3)):
        m = wp.mat22(1.0, 2.0, 3.0, 4.0)
        m[0, :] = wp.vec2d(1.0, 2.0)
        o[0] = wp.vec3(m[0, 0])

    _compile_error(wrong_dtype, wp.WarpCodegenValueError,
                   r"cannot assign vec2d to a slice of mat22f holding vec2f")


_vec0 = wp.types.vector(0, float)
_vec1 = wp.types.vector(1, float)
_mat00 = wp.types.matrix((0, 0), float)


@wp.kernel(module="unique")
def _empty_slices_ok(out: wp.array(dtype=int)):
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    out[0] = int(v[123:] == _vec0())
    out[1] = int(v[:-123] == _vec0())
    out[2] = int(v[::123] == _vec1(1.0))
    out[3] = len(v[5:])
    out[4] = wp.static(len(v))
    m = wp.mat44()
    out[5] = int(m[123:] == _mat00())


@pytest.mark.needs_plugin("builtins")
def test_empty_slices_compare_equal_and_static_len_of_runtime_values():
    out = wp.zeros(6, dtype=int)
    wp.launch(_empty_slices_ok, 1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [1, 1, 1, 0, 4, 1])
    assert len(_vec0()) == 0
