"""Conformance: ``wp.array`` as Warp users create, inspect, reshape, copy and index it, in Python
scope and in kernels; values checked against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

# -- construction ---------------------------------------------------------------------------------


def test_array_from_lists_infers_numpy_types():
    assert wp.array([1.0, 2.0]).dtype is wp.float64
    assert wp.array([1, 2]).dtype is wp.int64
    assert wp.array(np.array([True, False])).dtype is wp.bool
    assert wp.array(np.array([1, 2], dtype=np.uint8)).dtype is wp.uint8
    assert wp.array(np.array([1, 2], dtype=np.float16)).dtype is wp.float16


def test_array_constructor_argument_forms():
    data = np.arange(6, dtype=np.float32)
    np.testing.assert_array_equal(wp.array(data, dtype=float).numpy(), data)
    assert wp.array(data, shape=(2, 3)).shape == (2, 3)
    assert wp.array(shape=(2, 3), dtype=float).shape == (2, 3)
    assert wp.array(dtype=float).shape == (0,)
    np.testing.assert_array_equal(wp.array(range(3), dtype=float).numpy(), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(wp.array(np.array([1.7, -2.5]), dtype=int).numpy(), [1, -2])
    assert wp.array(np.ones(2), dtype=float).numpy().dtype == np.float32
    np.testing.assert_array_equal(wp.array([True, False], dtype=int).numpy(), [1, 0])
    np.testing.assert_array_equal(wp.array(wp.array([1.0, 2.0], dtype=float)).numpy(), [1.0, 2.0])
    src = np.arange(4, dtype=np.float32)
    alias = wp.array(ptr=src.ctypes.data, dtype=wp.float32, shape=(4,), device="cpu", copy=False)
    src[2] = 9.0
    assert alias.numpy()[2] == 9.0
    assert wp.array(data, dtype=float, device=wp.get_device("cpu")).device.is_cpu


def test_arrays_of_composites():
    a = wp.array([wp.vec3(1, 2, 3), wp.vec3(4, 5, 6)], dtype=wp.vec3)
    np.testing.assert_array_equal(a.numpy(), [[1, 2, 3], [4, 5, 6]])
    b = wp.array([(1, 2, 3), (4, 5, 6)], dtype=wp.vec3)
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    assert wp.array([1, 2, 3, 4, 5, 6], dtype=wp.vec3).shape == (2,)
    m = wp.array(np.ones((2, 3, 3)), dtype=wp.mat33)
    assert m.shape == (2,) and m.numpy().shape == (2, 3, 3)
    assert wp.array([wp.mat22(1, 2, 3, 4)], dtype=wp.mat22).numpy().tolist() == [[[1, 2], [3, 4]]]
    assert wp.array(np.zeros((2, 3, 4)), dtype=wp.vec4).shape == (2, 3)
    with pytest.raises(ValueError):
        wp.array(np.zeros((4, 2)), dtype=wp.vec3)


def test_from_numpy_infers_composite_dtypes():
    assert wp.from_numpy(np.ones((2, 3), dtype=np.float32), dtype=wp.vec3).dtype is wp.vec3
    v = wp.from_numpy(np.ones((5, 3), dtype=np.float32))
    assert v.shape == (5,) and v.dtype is wp.vec3
    s = wp.from_numpy(np.ones(5, dtype=np.float64))
    assert s.dtype is wp.float64


def test_global_constructors():
    assert wp.zeros(3).dtype is wp.float32 and wp.empty(3).dtype is wp.float32
    assert wp.zeros([2, 3], dtype=float).shape == (2, 3)
    assert wp.zeros(3, dtype=np.float32).dtype is wp.float32
    assert wp.zeros(3, dtype=bool).dtype is wp.bool
    np.testing.assert_array_equal(wp.ones(3, dtype=int).numpy(), [1, 1, 1])
    np.testing.assert_array_equal(wp.ones(2, dtype=wp.vec2).numpy(), np.ones((2, 2)))
    np.testing.assert_array_equal(wp.full(3, 2.5, dtype=float).numpy(), [2.5] * 3)
    np.testing.assert_array_equal(wp.full(2, wp.vec3(1, 2, 3), dtype=wp.vec3).numpy(), [[1, 2, 3]] * 2)
    assert wp.full(shape=(2,), value=wp.vec3(1, 2, 3)).dtype is wp.vec3
    assert wp.full(shape=(2,), value=3).dtype is wp.int32
    assert wp.full(shape=(2,), value=3.5).dtype is wp.float32
    base = wp.zeros((2, 3), dtype=wp.vec2)
    for like in (
        wp.zeros_like(base),
        wp.ones_like(base),
        wp.empty_like(base),
        wp.full_like(base, wp.vec2(1, 2)),
    ):
        assert like.shape == base.shape and like.dtype is base.dtype
    np.testing.assert_array_equal(wp.full_like(base, wp.vec2(1, 2)).numpy()[1, 2], [1, 2])
    np.testing.assert_array_equal(wp.ones_like(base).numpy(), np.ones((2, 3, 2)))


# -- attributes -----------------------------------------------------------------------------------


def test_array_attributes():
    a = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4), dtype=float)
    assert a.shape == (3, 4) and a.strides == (16, 4) and a.size == 12 and a.ndim == 2
    assert a.capacity == 48 and a.dtype is wp.float32 and a.ptr != 0 and len(a) == 3
    assert a.is_contiguous and not a[:, 1].is_contiguous
    assert a.device == wp.get_device("cpu") and str(a.device) == "cpu"
    assert a.grad is None and not a.requires_grad
    v = wp.zeros((2, 2), dtype=wp.vec3)
    assert v.strides == (24, 12) and v.capacity == 48


def test_string_forms():
    a = wp.array([1, 2, 3], dtype=float)
    assert str(a) == str(np.array([1, 2, 3], dtype=np.float32))


def test_requires_grad_and_grad():
    a = wp.zeros(3, dtype=float, requires_grad=True)
    assert a.requires_grad and a.grad.shape == (3,) and not a.grad.numpy().any()
    b = wp.zeros(3, dtype=wp.vec3)
    b.requires_grad = True
    assert b.grad is not None and b.grad.dtype is wp.vec3
    c = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    assert c.grad.numpy().tolist() == [0.0, 0.0]


# -- data movement --------------------------------------------------------------------------------


def test_numpy_round_trip_and_zero_copy_view():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=float)
    view = a.numpy()
    view[1, 2] = 42.0
    assert a.numpy()[1, 2] == 42.0  # numpy() of a CPU array aliases its memory
    np.testing.assert_array_equal(np.asarray(a), view)
    assert wp.zeros((2, 3), dtype=wp.mat33).numpy().shape == (2, 3, 3, 3)


def test_list():
    assert wp.array([1, 2, 3], dtype=float).list() == [1.0, 2.0, 3.0]
    vs = wp.array([(1, 2, 3), (4, 5, 6)], dtype=wp.vec3).list()
    assert vs == [wp.vec3(1, 2, 3), wp.vec3(4, 5, 6)] and isinstance(vs[0], wp.vec3)
    assert wp.array(np.arange(4).reshape(2, 2), dtype=int).list() == [0, 1, 2, 3]


@wp.struct
class Body:
    mass: float
    pos: wp.vec3


def test_struct_arrays_in_python():
    a = wp.array([Body(mass=1.0), Body(mass=2.0, pos=wp.vec3(1, 2, 3))], dtype=Body)
    items = a.list()
    assert [type(b) for b in items] == [Body, Body]
    assert items[1].mass == 2.0 and items[1].pos == wp.vec3(1, 2, 3)
    assert a.numpy()["mass"].tolist() == [1.0, 2.0]
    z = wp.zeros(3, dtype=Body)
    assert [b.mass for b in z.list()] == [0.0, 0.0, 0.0]


def test_fill_zero_assign():
    a = wp.zeros(3, dtype=float)
    a.fill_(3.0)
    np.testing.assert_array_equal(a.numpy(), [3.0] * 3)
    a.fill_(2)
    np.testing.assert_array_equal(a.numpy(), [2.0] * 3)
    a.zero_()
    assert not a.numpy().any()
    v = wp.zeros(2, dtype=wp.vec3)
    v.fill_(wp.vec3(1, 2, 3))
    np.testing.assert_array_equal(v.numpy(), [[1, 2, 3]] * 2)
    v.fill_((4, 5, 6))
    np.testing.assert_array_equal(v.numpy(), [[4, 5, 6]] * 2)
    a.assign(np.array([1, 2, 3], dtype=np.float32))
    np.testing.assert_array_equal(a.numpy(), [1, 2, 3])
    a.assign([4.0, 5.0, 6.0])
    np.testing.assert_array_equal(a.numpy(), [4, 5, 6])
    a.assign(wp.ones(3, dtype=float))
    np.testing.assert_array_equal(a.numpy(), [1, 1, 1])
    m = wp.zeros((2, 3), dtype=float)
    m[:, 1].fill_(7.0)  # a strided view
    np.testing.assert_array_equal(m.numpy(), [[0, 7, 0], [0, 7, 0]])


def test_copy_with_offsets_and_count():
    dest = wp.zeros(6, dtype=float)
    src = wp.array([1, 2, 3, 4, 5], dtype=float)
    wp.copy(dest, src, dest_offset=2, src_offset=1, count=3)
    np.testing.assert_array_equal(dest.numpy(), [0, 0, 2, 3, 4, 0])
    full = wp.zeros(5, dtype=float)
    wp.copy(full, src)
    np.testing.assert_array_equal(full.numpy(), [1, 2, 3, 4, 5])
    c = wp.clone(src)
    assert c.ptr != src.ptr and c.numpy().tolist() == src.numpy().tolist()
    np.testing.assert_array_equal(src.to("cpu").numpy(), src.numpy())


# -- views ----------------------------------------------------------------------------------------


def test_reshape_flatten_transpose_view():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = wp.array(x, dtype=float)
    np.testing.assert_array_equal(a.reshape((4, 3)).numpy(), x.reshape(4, 3))
    assert a.reshape(-1).shape == (12,) and a.reshape(12).shape == (12,)
    assert a.reshape((2, -1)).shape == (2, 6)
    np.testing.assert_array_equal(a.flatten().numpy(), x.reshape(-1))
    np.testing.assert_array_equal(a.transpose().numpy(), x.T)
    np.testing.assert_array_equal(a.transpose((1, 0)).numpy(), x.T)
    np.testing.assert_array_equal(a.view(wp.uint32).numpy(), x.view(np.uint32))
    assert a.view(dtype=wp.int32).dtype is wp.int32
    r = a.reshape((4, 3))
    r.numpy()[0, 0] = -1.0
    assert a.numpy()[0, 0] == -1.0  # reshape is a view
    with pytest.raises((ValueError, RuntimeError)):
        a.reshape((5, 3))


def test_python_indexing_and_slicing():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = wp.array(x, dtype=float)
    np.testing.assert_array_equal(a[1].numpy(), x[1])
    np.testing.assert_array_equal(a[:, 1].numpy(), x[:, 1])
    np.testing.assert_array_equal(a[1:3].numpy(), x[1:3])
    np.testing.assert_array_equal(a[:, ::2].numpy(), x[:, ::2])
    np.testing.assert_array_equal(a[-1].numpy(), x[-1])
    np.testing.assert_array_equal(a[:, 1].contiguous().numpy(), x[:, 1])
    assert a[1, 2] == x[1, 2]
    v = a[1:3]
    v.numpy()[0, 0] = 100.0
    assert a.numpy()[1, 0] == 100.0  # slices are views


@wp.kernel
def scale_rows(a: wp.array2d(dtype=float), s: float):
    i, j = wp.tid()
    a[i, j] = a[i, j] * s


@wp.kernel
def sum_1d(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, a[i])


def test_views_passed_to_kernels():
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    a = wp.array(x, dtype=float)
    t = a.transpose()
    wp.launch(scale_rows, dim=t.shape, inputs=[t, 2.0])
    np.testing.assert_array_equal(a.numpy(), 2 * x)
    col = a[:, 3]
    out = wp.zeros(1, dtype=float)
    wp.launch(sum_1d, dim=col.shape[0], inputs=[col, out])
    assert out.numpy()[0] == 2 * x[:, 3].sum()
    out.zero_()
    flat = a.flatten()
    wp.launch(sum_1d, dim=flat.size, inputs=[flat, out])
    assert out.numpy()[0] == 2 * x.sum()


@wp.kernel
def index_forms(a: wp.array3d(dtype=float), b: wp.array4d(dtype=int), out: wp.array(dtype=float)):
    out[0] = a[1, 2, 3]
    out[1] = a[1][2][3]
    out[2] = a[-1, -1, -1]
    sub = a[1]
    out[3] = sub[2, 3]
    out[4] = float(b[1, 0, 1, 2])
    out[5] = float(a.shape[0] * 100 + a.shape[1] * 10 + a.shape[2])
    out[6] = float(b.shape[3])


def test_multidimensional_indexing_in_kernels():
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    y = np.arange(2 * 2 * 2 * 3, dtype=np.int32).reshape(2, 2, 2, 3)
    out = wp.zeros(7, dtype=float)
    wp.launch(index_forms, dim=1, inputs=[wp.array(x, dtype=float), wp.array(y, dtype=int), out])
    assert out.numpy().tolist() == [
        x[1, 2, 3],
        x[1, 2, 3],
        x[-1, -1, -1],
        x[1, 2, 3],
        y[1, 0, 1, 2],
        234.0,
        3.0,
    ]


@wp.kernel
def write_vec_components(a: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    a[i][0] = float(i)
    a[i].y = 2.0 * float(i)
    m[i][1, 0] = 5.0
    v = a[i]
    v.z = -1.0
    a[i] = v


def test_component_writes_through_arrays():
    a = wp.zeros(3, dtype=wp.vec3)
    m = wp.zeros(3, dtype=wp.mat22)
    wp.launch(write_vec_components, dim=3, inputs=[a, m])
    np.testing.assert_array_equal(a.numpy(), [[i, 2 * i, -1] for i in range(3)])
    np.testing.assert_array_equal(m.numpy()[:, 1, 0], [5, 5, 5])


# -- wp.utils -------------------------------------------------------------------------------------


def test_utils_array_sum_and_inner():
    x = np.random.default_rng(0).random((4, 5)).astype(np.float32)
    a = wp.array(x, dtype=float)
    assert wp.utils.array_sum(a) == pytest.approx(float(x.sum()), rel=1e-5)
    out = wp.zeros(1, dtype=float)
    assert wp.utils.array_sum(a, out=out) is out
    assert out.numpy()[0] == pytest.approx(float(x.sum()), rel=1e-5)
    by_rows = wp.utils.array_sum(a, axis=1)
    assert by_rows.shape == (4, 1)
    np.testing.assert_allclose(by_rows.numpy()[:, 0], x.sum(axis=1), rtol=1e-5)
    assert wp.utils.array_sum(a, value_count=3) == pytest.approx(float(x.reshape(-1)[:3].sum()), rel=1e-6)
    v = wp.array([wp.vec3(1, 2, 3), wp.vec3(1, 1, 1)], dtype=wp.vec3)
    assert wp.utils.array_sum(v) == wp.vec3(2, 3, 4)
    b = wp.array(x[::-1].copy(), dtype=float)
    assert wp.utils.array_inner(a, b) == pytest.approx(float((x * x[::-1]).sum()), rel=1e-5)
    inner_rows = wp.utils.array_inner(a, b, axis=1)
    np.testing.assert_allclose(inner_rows.numpy()[:, 0], (x * x[::-1]).sum(axis=1), rtol=1e-5)
    assert wp.utils.array_inner(v, v) == pytest.approx(14.0 + 3.0)
    with pytest.raises(RuntimeError):
        wp.utils.array_sum(wp.zeros(2, dtype=int))


def test_utils_scan_sort_encode_cast():
    values = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int32)
    out = wp.zeros(8, dtype=int)
    wp.utils.array_scan(wp.array(values, dtype=int), out, inclusive=True)
    np.testing.assert_array_equal(out.numpy(), np.cumsum(values))
    wp.utils.array_scan(wp.array(values, dtype=int), out, inclusive=False)
    np.testing.assert_array_equal(out.numpy(), np.concatenate([[0], np.cumsum(values)[:-1]]))
    fout = wp.zeros(8, dtype=float)
    wp.utils.array_scan(wp.array(values.astype(np.float32), dtype=float), fout)
    np.testing.assert_array_equal(fout.numpy(), np.cumsum(values))

    n = len(values)
    keys = wp.array(np.concatenate([values, np.zeros(n, np.int32)]), dtype=int)
    vals = wp.array(np.arange(2 * n, dtype=np.int32), dtype=int)
    wp.utils.radix_sort_pairs(keys, vals, n)
    order = np.argsort(values, kind="stable")
    np.testing.assert_array_equal(keys.numpy()[:n], values[order])
    np.testing.assert_array_equal(vals.numpy()[:n], order)
    with pytest.raises(RuntimeError):
        wp.utils.radix_sort_pairs(wp.zeros(n, dtype=int), wp.zeros(n, dtype=int), n)  # no scratch space

    keys = wp.array(np.concatenate([values, np.zeros(n, np.int32)]), dtype=int)
    vals = wp.array(np.arange(2 * n, dtype=np.int32), dtype=int)
    wp.utils.segmented_sort_pairs(keys, vals, n, wp.array([0, 3, 8], dtype=int))
    np.testing.assert_array_equal(
        keys.numpy()[:n], np.concatenate([np.sort(values[:3]), np.sort(values[3:])])
    )

    run_values, run_lengths = wp.zeros(6, dtype=int), wp.zeros(6, dtype=int)
    count = wp.utils.runlength_encode(wp.array([1, 1, 1, 2, 2, 3], dtype=int), run_values, run_lengths)
    assert count == 3
    assert run_values.numpy()[:3].tolist() == [1, 2, 3] and run_lengths.numpy()[:3].tolist() == [3, 2, 1]
    run_count = wp.zeros(1, dtype=int)
    wp.utils.runlength_encode(wp.array([7, 7, 8], dtype=int), run_values, run_lengths, run_count=run_count)
    assert run_count.numpy()[0] == 2

    ints = wp.zeros(3, dtype=int)
    wp.utils.array_cast(wp.array([1.7, -2.5, 3.0], dtype=float), ints)
    assert ints.numpy().tolist() == [1, -2, 3]
    flat = wp.zeros(6, dtype=float)
    wp.utils.array_cast(wp.array([wp.vec3i(1, 2, 3), wp.vec3i(4, 5, 6)], dtype=wp.vec3i), flat)
    assert flat.numpy().tolist() == [1, 2, 3, 4, 5, 6]
