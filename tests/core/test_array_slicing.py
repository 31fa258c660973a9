"""Array slices in kernels (``a[1:5]``, ``a[::-2]``, ``a[i, 1:3]``, ``a[::2, j]``) are views of
the same memory, with Python's slice semantics: each case compares with NumPy slicing of the same
data, for reads, writes through the view, shapes, and the compile-time error of a zero step."""

import itertools

import numpy as np
import pytest

import warp as wp


@wp.kernel
def slice_1d(a: wp.array(dtype=int), start: int, stop: int, step: int, out: wp.array(dtype=int)):
    v = a[start:stop:step]
    out[0] = v.shape[0]
    for k in range(v.shape[0]):
        out[1 + k] = v[k]


def test_runtime_bounds_match_numpy():
    data = np.arange(100, 110, dtype=np.int32)
    a = wp.array(data, dtype=int)
    starts, stops, steps = (-13, -4, -1, 0, 2, 9, 10, 14), (-12, -3, 0, 3, 10, 15), (-3, -1, 1, 2)
    for start, stop, step in itertools.product(starts, stops, steps):
        out = wp.full(12, -7, dtype=int)
        wp.launch(slice_1d, dim=1, inputs=[a, start, stop, step, out])
        ref = data[start:stop:step]
        got = out.numpy()
        assert got[0] == len(ref), (start, stop, step)
        assert got[1 : 1 + len(ref)].tolist() == ref.tolist(), (start, stop, step)


@wp.kernel
def omitted_bounds(a: wp.array(dtype=int), out: wp.array2d(dtype=int)):
    views = (a[:3], a[5:], a[3::-1], a[:-3:-1], a[::-3], a[::-3][::2], a[-2:], a[::4])
    for r in range(8):
        out[r, 0] = -1
    row = int(0)
    for v in views:  # tuple loop: unrolled
        out[row, 0] = v.shape[0]
        for k in range(v.shape[0]):
            out[row, 1 + k] = v[k]
        row += 1


def test_omitted_bounds_match_numpy():
    data = np.arange(16, dtype=np.int32)
    out = wp.full((8, 17), -9, dtype=int)
    wp.launch(omitted_bounds, dim=1, inputs=[wp.array(data, dtype=int), out])
    refs = (data[:3], data[5:], data[3::-1], data[:-3:-1], data[::-3], data[::-3][::2], data[-2:], data[::4])
    got = out.numpy()
    for row, ref in enumerate(refs):
        assert got[row, 0] == len(ref), row
        assert got[row, 1 : 1 + len(ref)].tolist() == ref.tolist(), row


@wp.kernel
def mixed_2d(
    a: wp.array2d(dtype=int), i: int, out_col: wp.array(dtype=int), out_block: wp.array2d(dtype=int),
    dims: wp.array(dtype=int),
):
    col = a[::2, i]  # integer index after a slice: drops dimension 1
    row = a[-i, 1:3]
    block = a[3:5, 3:1:-1]
    dims[0] = col.ndim
    dims[1] = col.shape[0]
    dims[2] = col.shape[1]  # past ndim: 0
    dims[3] = row.shape[0]
    dims[4] = block.ndim
    for k in range(col.shape[0]):
        out_col[k] = col[k]
    for k in range(row.shape[0]):
        out_col[4 + k] = row[k]
    for p in range(block.shape[0]):
        for q in range(block.shape[1]):
            out_block[p, q] = block[p, q]


def test_mixed_indices_2d_match_numpy():
    data = np.arange(32, dtype=np.int32).reshape(8, 4)
    out_col = wp.zeros(6, dtype=int)
    out_block = wp.zeros((2, 2), dtype=int)
    dims = wp.zeros(5, dtype=int)
    wp.launch(mixed_2d, dim=1, inputs=[wp.array(data, dtype=int), 1, out_col, out_block, dims])
    assert dims.numpy().tolist() == [1, 4, 0, 2, 2]
    assert out_col.numpy().tolist() == data[::2, 1].tolist() + data[-1, 1:3].tolist()
    assert out_block.numpy().tolist() == data[3:5, 3:1:-1].tolist()


@wp.kernel
def view_4d(a: wp.array4d(dtype=float), out: wp.array3d(dtype=float)):
    v = a[1:, :, ::-1, 2]  # 3-d view
    for p in range(v.shape[0]):
        for q in range(v.shape[1]):
            for r in range(v.shape[2]):
                out[p, q, r] = v[p, q, r]


@wp.kernel
def view_3d(a: wp.array3d(dtype=float), j: int, out: wp.array2d(dtype=float)):
    v = a[:, j, 1::2]
    for p in range(v.shape[0]):
        for q in range(v.shape[1]):
            out[p, q] = v[p, q]


def test_views_of_3d_and_4d_match_numpy():
    rng = np.random.default_rng(3)
    d4 = rng.standard_normal((3, 2, 5, 4)).astype(np.float32)
    ref4 = d4[1:, :, ::-1, 2]
    out4 = wp.zeros(ref4.shape, dtype=float)
    wp.launch(view_4d, dim=1, inputs=[wp.array(d4, dtype=float), out4])
    np.testing.assert_array_equal(out4.numpy(), ref4)
    d3 = rng.standard_normal((4, 3, 6)).astype(np.float32)
    ref3 = d3[:, -2, 1::2]
    out3 = wp.zeros(ref3.shape, dtype=float)
    wp.launch(view_3d, dim=1, inputs=[wp.array(d3, dtype=float), -2, out3])
    np.testing.assert_array_equal(out3.numpy(), ref3)


@wp.kernel
def write_through(a: wp.array2d(dtype=float)):
    i = wp.tid()
    v = a[::-2, 1:]
    v[i, 0] = 10.0 * float(i)
    v[i, 1] += 1.0


def test_writes_through_a_view_reach_the_array():
    data = np.zeros((6, 3), dtype=np.float32)
    a = wp.array(data, dtype=float)
    wp.launch(write_through, dim=3, inputs=[a])
    ref = data.copy()
    view = ref[::-2, 1:]
    for i in range(3):
        view[i, 0] = 10.0 * i
        view[i, 1] += 1.0
    np.testing.assert_array_equal(a.numpy(), ref)


def test_strided_argument_sliced_in_kernel():
    data = np.arange(40, dtype=np.int32)
    a = wp.array(data, dtype=int)[1::3]  # a non-contiguous argument
    out = wp.full(12, -7, dtype=int)
    wp.launch(slice_1d, dim=1, inputs=[a, 1, -1, 2, out])
    ref = data[1::3][1:-1:2]
    assert out.numpy()[0] == len(ref)
    assert out.numpy()[1 : 1 + len(ref)].tolist() == ref.tolist()


def test_runtime_zero_step_gives_an_empty_view():
    a = wp.array(np.arange(6, dtype=np.int32), dtype=int)
    out = wp.full(12, -7, dtype=int)
    wp.launch(slice_1d, dim=1, inputs=[a, 0, 6, 0, out])
    assert out.numpy()[0] == 0


def test_literal_zero_step_is_a_compile_error_with_location():
    @wp.kernel(module="unique")
    def zero_step(a: wp.array2d(dtype=int)):
        v = a[0:2:0]  # noqa: F841

    where = r"(?s)zero_step.*a\[0:2:0\].*Slice step cannot be zero"
    with pytest.raises(wp.WarpCodegenValueError, match=where):
        wp.launch(zero_step, dim=1, inputs=[wp.zeros((2, 2), dtype=int)])


def test_too_many_indices_with_a_slice():
    @wp.kernel(module="unique")
    def too_many(a: wp.array(dtype=int)):
        v = a[1:, 0]  # noqa: F841

    with pytest.raises(wp.WarpCodegenError, match=r"too many indices \(2\) for a 1-d array"):
        wp.launch(too_many, dim=1, inputs=[wp.zeros(4, dtype=int)])


def test_float_slice_bound_is_refused():
    @wp.kernel(module="unique")
    def float_bound(a: wp.array(dtype=int)):
        v = a[1.5:]  # noqa: F841

    with pytest.raises(wp.WarpCodegenTypeError, match="array indices must be integers"):
        wp.launch(float_bound, dim=1, inputs=[wp.zeros(4, dtype=int)])


@wp.func
def total(v: wp.array(dtype=float)):
    s = float(0.0)
    for k in range(v.shape[0]):
        s += v[k]
    return s


@wp.kernel
def views_passed_to_a_function(a: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = total(a[i, ::2]) + total(a[::-1, 0])


def test_views_passed_to_a_function():
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = wp.zeros(4, dtype=float)
    wp.launch(views_passed_to_a_function, dim=4, inputs=[wp.array(data, dtype=float), out])
    ref = [data[i, ::2].sum() + data[::-1, 0].sum() for i in range(4)]
    np.testing.assert_array_equal(out.numpy(), ref)


@wp.kernel
def slice_of_local_array(out: wp.array(dtype=float)):
    h = wp.zeros(8, dtype=float)
    for k in range(8):
        h[k] = float(k)
    v = h[::3]
    out[0] = v[2]
    out[1] = float(v.shape[0])


def test_slice_of_a_kernel_local_array():
    out = wp.zeros(2, dtype=float)
    wp.launch(slice_of_local_array, dim=1, inputs=[out])
    assert out.numpy().tolist() == [np.arange(8)[::3][2], len(np.arange(8)[::3])]


def test_debug_mode_checks_indices_against_the_view():
    @wp.kernel(module="unique", module_options={"mode": "debug"})
    def past_view_end(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        v = a[2:5]
        out[0] = v[3]

    with pytest.raises(IndexError, match=r"index \(3\) is out of range for array '\w+' with shape \(3,\)"):
        wp.launch(past_view_end, dim=1, inputs=[wp.zeros(8, dtype=float), wp.zeros(1, dtype=float)])
        wp.synchronize()
