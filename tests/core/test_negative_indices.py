"""Negative indices count from the end (``a[-1]`` is the last element), in every access form.

Each case compares with NumPy's negative indexing on the same data; debug mode checks that an
index below ``-size`` is still reported (with the index as written) and never touches memory.
"""

import re

import numpy as np
import pytest

import warp as wp


@wp.kernel
def read_write_1d(a: wp.array(dtype=int), k: int, out: wp.array(dtype=int)):
    out[0] = a[-1]
    out[1] = a[k]
    a[-2] = 100
    a[k] += 5


def test_read_write_1d_constant_and_dynamic():
    for k in (-1, -3, -6, 2):
        data = np.arange(10, 16, dtype=np.int32)
        a = wp.array(data, dtype=int)
        out = wp.zeros(2, dtype=int)
        wp.launch(read_write_1d, dim=1, inputs=[a, k, out])
        ref = data.copy()
        assert out.numpy().tolist() == [ref[-1], ref[k]]
        ref[-2] = 100
        ref[k] += 5
        assert a.numpy().tolist() == ref.tolist(), k


@wp.kernel
def every_form_2d(a: wp.array2d(dtype=float), i: int, j: int, out: wp.array(dtype=float)):
    out[0] = a[i, j]
    out[1] = a[i][j]  # row view, then element
    row = a[i]
    out[2] = row[-1]
    out[3] = float(row.shape[0])
    a[i, j] = 7.0
    a[i][0] = 8.0
    a[-1, -1] -= 0.5
    out[4] = wp.atomic_add(a, i, -2, 1.0)
    out[5] = wp.atomic_max(a, -1, 0, 50.0)


@pytest.mark.parametrize("i,j", [(-1, -1), (-3, 1), (1, -4), (0, 3), (-2, -3)])
def test_every_access_form_2d(i, j):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = wp.array(data, dtype=float)
    out = wp.zeros(6, dtype=float)
    wp.launch(every_form_2d, dim=1, inputs=[a, i, j, out])
    ref = data.copy()
    exp = [ref[i, j], ref[i, j], ref[i, -1], 4.0]
    ref[i, j] = 7.0
    ref[i, 0] = 8.0
    ref[-1, -1] -= 0.5
    exp.append(ref[i, -2])
    ref[i, -2] += 1.0
    exp.append(ref[-1, 0])
    ref[-1, 0] = max(ref[-1, 0], 50.0)
    np.testing.assert_array_equal(out.numpy(), np.array(exp, dtype=np.float32))
    np.testing.assert_array_equal(a.numpy(), ref)


@wp.kernel
def read_3d(a: wp.array3d(dtype=int), i: int, j: int, k: int, out: wp.array(dtype=int)):
    out[0] = a[i, j, k]
    out[1] = a[i][j][k]
    out[2] = a[i, j][k]


def test_3d_mixed_signs():
    data = np.arange(2 * 3 * 4, dtype=np.int32).reshape(2, 3, 4)
    a = wp.array(data, dtype=int)
    for idx in [(-1, -1, -1), (-2, 0, -4), (1, -3, 2), (0, 2, -1)]:
        out = wp.zeros(3, dtype=int)
        wp.launch(read_3d, dim=1, inputs=[a, *idx, out])
        assert out.numpy().tolist() == [data[idx]] * 3, idx


@wp.kernel
def last_of(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[0] = a[-1]
    out[1] = a[-a.shape[0]]


def test_strided_views_count_from_their_own_end():
    data = np.arange(20, dtype=np.float32)
    base = wp.array(data, dtype=float)
    out = wp.zeros(2, dtype=float)
    for view, ref in ((base[::3], data[::3]), (base[5:12], data[5:12]), (base[1::2], data[1::2])):
        wp.launch(last_of, dim=1, inputs=[view, out])
        assert out.numpy().tolist() == [ref[-1], ref[0]]


def test_column_of_2d_array_view():
    """A non-contiguous 2-d view (every other column): a[-1, -1] is its last element."""

    @wp.kernel
    def corner(a: wp.array2d(dtype=float), out: wp.array(dtype=float)):
        out[0] = a[-1, -1]
        out[1] = a[0, -2]

    data = np.arange(30, dtype=np.float32).reshape(5, 6)
    view = wp.array(data, dtype=float)[:, ::2]
    out = wp.zeros(2, dtype=float)
    wp.launch(corner, dim=1, inputs=[view, out])
    ref = data[:, ::2]
    assert out.numpy().tolist() == [ref[-1, -1], ref[0, -2]]


def test_unsigned_and_int64_indices():
    @wp.kernel
    def idx_types(a: wp.array(dtype=int), out: wp.array(dtype=int)):
        out[0] = a[wp.int64(-2)]
        out[1] = a[wp.uint32(1)]
        out[2] = a[wp.int8(-4)]

    a = wp.array([1, 2, 3, 4], dtype=int)
    out = wp.zeros(3, dtype=int)
    wp.launch(idx_types, dim=1, inputs=[a, out])
    assert out.numpy().tolist() == [3, 2, 1]


def test_thread_index_arithmetic_reverses_an_array():
    @wp.kernel
    def reverse(src: wp.array(dtype=int), dst: wp.array(dtype=int)):
        i = wp.tid()
        dst[i] = src[-1 - i]

    n = 1000
    src = wp.array(np.arange(n, dtype=np.int32), dtype=int)
    dst = wp.zeros(n, dtype=int)
    wp.launch(reverse, dim=n, inputs=[src, dst])
    assert dst.numpy().tolist() == list(range(n))[::-1]


def test_vector_and_matrix_negative_indices():
    @wp.kernel
    def comps(k: int, out: wp.array(dtype=float)):
        v = wp.vec4(1.0, 2.0, 3.0, 4.0)
        m = wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
        out[0] = v[-1]
        out[1] = v[k]
        out[2] = m[-1, -2]
        out[3] = m[k, -1]
        out[4] = m[-3][k]
        v[-2] = 30.0
        v[k] += 100.0
        m[-1, k] = 90.0
        out[5] = v[2]
        out[6] = v[3 + k + 1]
        out[7] = m[2, 2 + k + 1]

    for k in (-1, -2, -3):
        out = wp.zeros(8, dtype=float)
        wp.launch(comps, dim=1, inputs=[k, out])
        v = np.array([1.0, 2.0, 3.0, 4.0])
        m = np.arange(1.0, 10.0).reshape(3, 3)
        exp = [v[-1], v[k], m[-1, -2], m[k, -1], m[-3][k]]
        v[-2] = 30.0
        v[k] += 100.0
        m[-1, k] = 90.0
        exp += [v[2], v[3 + k + 1], m[2, 2 + k + 1]]
        assert out.numpy().tolist() == exp, k


def test_constant_component_index_out_of_range_is_a_compile_error():
    @wp.kernel
    def bad(out: wp.array(dtype=float)):
        v = wp.vec3(1.0, 2.0, 3.0)
        out[0] = v[-4]

    with pytest.raises(IndexError, match=r"index -4 is out of range for dimension 0 of vec3f"):
        wp.launch(bad, dim=1, inputs=[wp.zeros(1, dtype=float)])


def test_debug_mode_reports_index_below_minus_size(debug_mode):
    a = wp.zeros((3, 4), dtype=float)
    out = wp.zeros(6, dtype=float)
    wp.launch(every_form_2d, dim=1, inputs=[a, -3, -4, out])  # in range
    with pytest.raises(IndexError) as info:
        wp.launch(every_form_2d, dim=1, inputs=[a, -4, 0, out])
    msg = str(info.value)
    assert "every_form_2d" in msg and "'a'" in msg
    assert re.search(r"\(-4, 0\)|\(-4\)", msg), msg
    assert re.search(r"\(3, 4\)|\(3,\)", msg), msg
    with pytest.raises(IndexError, match="every_form_2d"):
        wp.launch(every_form_2d, dim=1, inputs=[a, 0, -5, out])


def test_debug_mode_atomic_and_negative_in_range(debug_mode):
    @wp.kernel
    def bump_last(a: wp.array(dtype=int), k: int):
        wp.atomic_add(a, k, 1)

    a = wp.zeros(5, dtype=int)
    wp.launch(bump_last, dim=10, inputs=[a, -1])
    assert a.numpy().tolist() == [0, 0, 0, 0, 10]
    with pytest.raises(IndexError, match=r"bump_last[\s\S]*\(-6\)"):
        wp.launch(bump_last, dim=1, inputs=[a, -6])
    assert a.numpy().tolist() == [0, 0, 0, 0, 10]
