"""Kernel language: wp.tid() for 1-4D launches, multi-dimensional indexing, a.shape[k],
non-contiguous (strided) arrays, atomics (also under parallel execution), ``a[i] += x``."""

from typing import Any

import numpy as np
import pytest

import warp as wp


# -- wp.tid() ------------------------------------------------------------------------------------

@wp.kernel
def tid_linear(out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = i * 10 + 1


@wp.kernel
def tid_2d(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    out[i, j] = i * 100 + j


@wp.kernel
def tid_3d(out: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    out[i, j, k] = i * 10000 + j * 100 + k


@wp.kernel
def tid_4d(out: wp.array4d(dtype=int)):
    i, j, k, l = wp.tid()
    out[i, j, k, l] = i * 1000000 + j * 10000 + k * 100 + l


def test_tid_1d():
    for dim in (7, (7,)):
        out = wp.zeros(7, dtype=int)
        wp.launch(tid_linear, dim=dim, inputs=[out])
        assert out.numpy().tolist() == [i * 10 + 1 for i in range(7)]


@pytest.mark.parametrize("dim", [(3, 4), (2, 3, 4), (2, 3, 2, 3)])
def test_single_tid_is_the_first_coordinate_in_nd_launch(dim):
    # as in NVIDIA Warp 1.19 (issue 20): not the linear index
    n = int(np.prod(dim))
    out = wp.zeros(n, dtype=int)
    wp.launch(tid_linear, dim=dim, inputs=[out])
    assert out.numpy().tolist() == [i * 10 + 1 for i in range(dim[0])] + [0] * (n - dim[0])


def test_tid_2d_3d_4d():
    out2 = wp.zeros((5, 7), dtype=int)
    wp.launch(tid_2d, dim=(5, 7), inputs=[out2])
    i, j = np.indices((5, 7))
    np.testing.assert_array_equal(out2.numpy(), i * 100 + j)

    out3 = wp.zeros((3, 4, 5), dtype=int)
    wp.launch(tid_3d, dim=(3, 4, 5), inputs=[out3])
    i, j, k = np.indices((3, 4, 5))
    np.testing.assert_array_equal(out3.numpy(), i * 10000 + j * 100 + k)

    out4 = wp.zeros((2, 3, 4, 5), dtype=int)
    wp.launch(tid_4d, dim=(2, 3, 4, 5), inputs=[out4])
    i, j, k, l = np.indices((2, 3, 4, 5))
    np.testing.assert_array_equal(out4.numpy(), i * 1000000 + j * 10000 + k * 100 + l)


def test_tid_nd_parallel(force_parallel):
    dim = (64, 50, 70)  # 224000 threads: runs on the thread pool
    out = wp.zeros(dim, dtype=int)
    wp.launch(tid_3d, dim=dim, inputs=[out])
    i, j, k = np.indices(dim)
    np.testing.assert_array_equal(out.numpy(), i * 10000 + j * 100 + k)


# -- indexing and shapes ---------------------------------------------------------------------------

def test_multidimensional_indexing_and_shape():
    @wp.kernel
    def nd_index(a2: wp.array2d(dtype=float), a3: wp.array3d(dtype=float), a4: wp.array(dtype=float, ndim=4),
                 out2: wp.array2d(dtype=float), out3: wp.array3d(dtype=float), out4: wp.array4d(dtype=float),
                 shapes: wp.array(dtype=int)):
        i, j = wp.tid()
        out2[i, j] = a2[i, j] * 2.0 + a2[a2.shape[0] - 1 - i, j]
        for k in range(a3.shape[2]):
            out3[i, j, k] = a3[i, j, k] + 1.0
            for l in range(a4.shape[3]):
                out4[i, j, k, l] = a4[i, j, k, l] - a3[i, j, k]
        if i == 0 and j == 0:
            shapes[0] = a2.shape[0]
            shapes[1] = a2.shape[1]
            shapes[2] = a3.shape[0]
            shapes[3] = a3.shape[1]
            shapes[4] = a3.shape[2]
            shapes[5] = a4.shape[0]
            shapes[6] = a4.shape[1]
            shapes[7] = a4.shape[2]
            shapes[8] = a4.shape[3]

    rng = np.random.default_rng(0)
    d2 = rng.random((3, 4), dtype=np.float32)
    d3 = rng.random((3, 4, 5), dtype=np.float32)
    d4 = rng.random((3, 4, 5, 2), dtype=np.float32)
    out2, out3, out4 = (
        wp.zeros((3, 4), dtype=float),
        wp.zeros((3, 4, 5), dtype=float),
        wp.zeros((3, 4, 5, 2), dtype=float),
    )
    shapes = wp.zeros(9, dtype=int)
    wp.launch(nd_index, dim=(3, 4), inputs=[wp.array(d2, dtype=float), wp.array(d3, dtype=float),
                                            wp.array(d4, dtype=float), out2, out3, out4, shapes])
    np.testing.assert_array_equal(out2.numpy(), d2 * np.float32(2.0) + d2[::-1])
    np.testing.assert_array_equal(out3.numpy(), d3 + np.float32(1.0))
    np.testing.assert_array_equal(out4.numpy(), d4 - d3[..., None])
    assert shapes.numpy().tolist() == [3, 4, 3, 4, 5, 3, 4, 5, 2]


def test_chained_row_indexing():
    @wp.kernel
    def chained(a: wp.array3d(dtype=int), out: wp.array3d(dtype=int)):
        i, j, k = wp.tid()
        out[i, j, k] = a[i][j][k] + a[i, j][k] * 10 + a[i][j, k] * 100

    data = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    out = wp.zeros((2, 3, 4), dtype=int)
    wp.launch(chained, dim=(2, 3, 4), inputs=[wp.array(data, dtype=int), out])
    np.testing.assert_array_equal(out.numpy(), data * 111)


# -- non-contiguous arrays -------------------------------------------------------------------------

@wp.kernel
def scale_1d(a: wp.array(dtype=float), f: float):
    i = wp.tid()
    a[i] = a[i] * f + float(i)


@wp.kernel
def copy_2d(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    i, j = wp.tid()
    dst[i, j] = src[i, j] + float(src.shape[1])


def test_strided_warp_views():
    base_np = np.arange(20, dtype=np.float32)
    base = wp.array(base_np, dtype=float)
    view = base[1::3]
    assert not view.is_contiguous
    wp.launch(scale_1d, dim=view.shape[0], inputs=[view, 2.0])
    expected = base_np.copy()
    expected[1::3] = expected[1::3] * 2 + np.arange(len(expected[1::3]))
    np.testing.assert_array_equal(base.numpy(), expected)

    m_np = np.arange(30, dtype=np.float32).reshape(5, 6)
    m = wp.array(m_np, dtype=float)
    t = m.transpose()
    out = wp.zeros((6, 5), dtype=float)
    wp.launch(copy_2d, dim=(6, 5), inputs=[t, out])
    np.testing.assert_array_equal(out.numpy(), m_np.T + 5)

    sub = m[1:, ::2]
    out = wp.zeros(sub.shape, dtype=float)
    wp.launch(copy_2d, dim=sub.shape, inputs=[sub, out])
    np.testing.assert_array_equal(out.numpy(), m_np[1:, ::2] + 3)

    # writing through a transposed view lands in the base array
    m2_np = np.zeros((4, 3), dtype=np.float32)
    m2 = wp.array(m2_np, dtype=float)
    src = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4), dtype=float)
    wp.launch(copy_2d, dim=(3, 4), inputs=[src, m2.transpose()])
    np.testing.assert_array_equal(m2.numpy(), (np.arange(12, dtype=np.float32).reshape(3, 4) + 4).T)


def test_strided_numpy_arrays_zero_copy():
    base = np.arange(20, dtype=np.float32)
    expected = base.copy()
    view = base[::4]
    wp.launch(scale_1d, dim=len(view), inputs=[view, -1.0])
    expected[::4] = -expected[::4] + np.arange(5)
    np.testing.assert_array_equal(base, expected)

    m = np.zeros((4, 3), dtype=np.float32)
    src = np.arange(12, dtype=np.float32).reshape(3, 4)
    wp.launch(copy_2d, dim=(3, 4), inputs=[src, m.T])
    np.testing.assert_array_equal(m, (src + 4).T)


def test_strided_parallel(force_parallel):
    base = np.zeros((400, 1000), dtype=np.float32)
    view = base[::2, ::3]  # 200 x 334, non-contiguous
    src = np.arange(view.size, dtype=np.float32).reshape(view.shape)
    wp.launch(copy_2d, dim=view.shape, inputs=[src, view])
    expected = np.zeros_like(base)
    expected[::2, ::3] = src + view.shape[1]
    np.testing.assert_array_equal(base, expected)


def test_zero_size_launch_and_empty_arrays():
    out = wp.full(4, 5, dtype=int)
    wp.launch(tid_linear, dim=0, inputs=[out])
    wp.launch(tid_linear, dim=(0,), inputs=[out])
    wp.launch(tid_2d, dim=(0, 3), inputs=[wp.full((4, 4), 5, dtype=int)])
    wp.launch(tid_3d, dim=(3, 0, 2), inputs=[wp.zeros((1, 1, 1), dtype=int)])
    assert out.numpy().tolist() == [5, 5, 5, 5]
    empty = wp.zeros(0, dtype=int)
    wp.launch(tid_linear, dim=0, inputs=[empty])
    assert empty.numpy().shape == (0,)


# -- atomics ---------------------------------------------------------------------------------------

N_PARALLEL = 200_000


def wrap32(v):
    return (v + 2**31) % 2**32 - 2**31


def test_atomic_add_sub_min_max_parallel(force_parallel):
    @wp.kernel
    def atomics(
        vals: wp.array(dtype=float),
        ivals: wp.array(dtype=int),
        fsum: wp.array(dtype=float),
        isum: wp.array(dtype=int),
        i64sum: wp.array(dtype=wp.int64),
        fmin: wp.array(dtype=float),
        fmax: wp.array(dtype=float),
        imin: wp.array(dtype=int),
        imax: wp.array(dtype=int),
        dsum: wp.array(dtype=wp.float64),
        usum: wp.array(dtype=wp.uint32),
        grid: wp.array2d(dtype=int),
    ):
        i = wp.tid()
        b = i % 8
        wp.atomic_add(fsum, b, 1.0)
        wp.atomic_sub(fsum, 8, 0.5)
        wp.atomic_add(isum, b, ivals[i])
        wp.atomic_sub(isum, 8, ivals[i])
        wp.atomic_add(i64sum, 0, wp.int64(i) * wp.int64(100000))
        wp.atomic_min(fmin, b, vals[i])
        wp.atomic_max(fmax, b, vals[i])
        wp.atomic_min(imin, b, ivals[i])
        wp.atomic_max(imax, b, ivals[i])
        wp.atomic_add(dsum, 0, wp.float64(0.25))
        wp.atomic_add(usum, 0, wp.uint32(3))
        wp.atomic_add(grid, b, i % 3, 1)

    n = N_PARALLEL
    rng = np.random.default_rng(1)
    vals = rng.uniform(-1000, 1000, n).astype(np.float32)
    ivals = rng.integers(-(10**6), 10**6, n).astype(np.int32)
    fsum, isum = wp.zeros(9, dtype=float), wp.zeros(9, dtype=int)
    i64sum = wp.zeros(1, dtype=wp.int64)
    fmin, fmax = wp.full(8, 1e30, dtype=float), wp.full(8, -1e30, dtype=float)
    imin, imax = wp.full(8, 2**31 - 1, dtype=int), wp.full(8, -(2**31), dtype=int)
    dsum, usum = wp.zeros(1, dtype=wp.float64), wp.zeros(1, dtype=wp.uint32)
    grid = wp.zeros((8, 3), dtype=int)
    wp.launch(
        atomics,
        dim=n,
        inputs=[
            wp.array(vals, dtype=float),
            wp.array(ivals, dtype=int),
            fsum,
            isum,
            i64sum,
            fmin,
            fmax,
            imin,
            imax,
            dsum,
            usum,
            grid,
        ],
    )
    idx = np.arange(n)
    bins = idx % 8
    np.testing.assert_array_equal(fsum.numpy()[:8], np.bincount(bins, minlength=8).astype(np.float32))
    assert fsum.numpy()[8] == -0.5 * n
    ref_isum = [int(ivals[bins == b].astype(np.int64).sum()) for b in range(8)]
    assert isum.numpy()[:8].tolist() == [wrap32(v) for v in ref_isum]
    assert int(isum.numpy()[8]) == wrap32(-int(ivals.astype(np.int64).sum()))
    assert int(i64sum.numpy()[0]) == sum(range(n)) * 100000
    assert fmin.numpy().tolist() == [float(vals[bins == b].min()) for b in range(8)]
    assert fmax.numpy().tolist() == [float(vals[bins == b].max()) for b in range(8)]
    assert imin.numpy().tolist() == [int(ivals[bins == b].min()) for b in range(8)]
    assert imax.numpy().tolist() == [int(ivals[bins == b].max()) for b in range(8)]
    assert dsum.numpy()[0] == 0.25 * n
    assert int(usum.numpy()[0]) == 3 * n
    ref_grid = np.zeros((8, 3), dtype=np.int64)
    np.add.at(ref_grid, (bins, idx % 3), 1)
    np.testing.assert_array_equal(grid.numpy(), ref_grid)


def test_augmented_assignment_on_arrays_is_atomic(force_parallel):
    @wp.kernel
    def accumulate(counts: wp.array(dtype=int), fcounts: wp.array(dtype=float), grid: wp.array2d(dtype=int),
                   dec: wp.array(dtype=wp.int64)):
        i = wp.tid()
        counts[i % 5] += 1
        fcounts[i % 3] += 0.5
        grid[i % 4, i % 2] += 2
        dec[0] -= wp.int64(3)

    n = N_PARALLEL
    counts, fcounts = wp.zeros(5, dtype=int), wp.zeros(3, dtype=float)
    grid, dec = wp.zeros((4, 2), dtype=int), wp.zeros(1, dtype=wp.int64)
    wp.launch(accumulate, dim=n, inputs=[counts, fcounts, grid, dec])
    idx = np.arange(n)
    assert counts.numpy().tolist() == np.bincount(idx % 5).tolist()
    assert fcounts.numpy().tolist() == (np.bincount(idx % 3) * 0.5).tolist()
    ref = np.zeros((4, 2), dtype=np.int64)
    np.add.at(ref, (idx % 4, idx % 2), 2)
    np.testing.assert_array_equal(grid.numpy(), ref)
    assert dec.numpy()[0] == -3 * n


def test_atomic_add_returns_old_value(force_parallel):
    """Like NVIDIA Warp, atomic_add returns the value before the update: unique slots per thread."""

    @wp.kernel
    def allocate(counter: wp.array(dtype=int), slots: wp.array(dtype=int)):
        i = wp.tid()
        s = wp.atomic_add(counter, 0, 1)
        slots[s] = i

    n = 50_000
    counter = wp.zeros(1, dtype=int)
    slots = wp.full(n, -1, dtype=int)
    wp.launch(allocate, dim=n, inputs=[counter, slots])
    assert counter.numpy()[0] == n
    assert sorted(slots.numpy().tolist()) == list(range(n))


ATOMIC_TYPES = [wp.int32, wp.uint32, wp.int64, wp.uint64, wp.float16, wp.float32, wp.float64]


@pytest.mark.parametrize("dtype", ATOMIC_TYPES, ids=[t.__name__ for t in ATOMIC_TYPES])
def test_atomics_for_each_dtype(dtype, force_parallel):
    @wp.kernel
    def typed_atomics(a: wp.array(dtype=dtype), v: wp.array(dtype=dtype), grid: wp.array2d(dtype=dtype)):
        i = wp.tid()
        wp.atomic_add(a, 0, v[i])
        wp.atomic_sub(a, 1, v[i])
        if wp.static(dtype is not wp.float16):  # atomic_min/max have no float16 form (as in Warp)
            wp.atomic_min(a, 2, v[i])
            wp.atomic_max(a, 3, v[i])
        a[4] += v[i]
        a[5] -= v[i]
        grid[i % 2, 1] += v[i]

    n = 1000
    np_t = wp.dtype_to_numpy(dtype)
    vals = (np.arange(n) % 3 + 1).astype(np_t)  # 1, 2, 3, 1, ... (sums exact even in float16)
    vals[n // 2] = 9
    total = int(vals.astype(np.int64).sum())
    assert total + 10 <= 2048  # every intermediate value is exact in float16
    a = wp.array(np.array([0, total + 7, 5, 0, 10, total + 3], dtype=np_t), dtype=dtype)
    grid = wp.zeros((2, 2), dtype=dtype)
    wp.launch(typed_atomics, dim=n, inputs=[a, wp.array(vals, dtype=dtype), grid])
    extremes = [5, 0] if dtype is wp.float16 else [1, 9]
    assert a.numpy().tolist() == [total, 7, *extremes, 10 + total, 3]
    even = int(vals[::2].astype(np.int64).sum())
    assert grid.numpy().tolist() == [[0, even], [0, total - even]]


def test_unsigned_atomic_min_max_use_unsigned_order():
    @wp.kernel
    def umin_max(a: wp.array(dtype=wp.uint32), v: wp.array(dtype=wp.uint32)):
        i = wp.tid()
        wp.atomic_min(a, 0, v[i])
        wp.atomic_max(a, 1, v[i])

    a = wp.array([2**32 - 1, 0], dtype=wp.uint32)
    vals = [5, 2**31 + 7, 3, 2**32 - 2]
    wp.launch(umin_max, dim=4, inputs=[a, wp.array(vals, dtype=wp.uint32)])
    assert a.numpy().tolist() == [3, 2**32 - 2]


def test_augmented_assignment_on_array_elements_other_ops():
    @wp.kernel
    def aug_elems(a: wp.array(dtype=float), b: wp.array2d(dtype=int)):
        i = wp.tid()
        a[i] *= 2.0
        a[i] /= 4.0
        b[i, 0] //= 2
        b[i, 1] %= 3
        b[i, 0] <<= 1
        b[i, 1] |= 8
        b[i, 2] ^= 5
        b[i, 2] &= 6

    a = wp.array([1.0, 3.0, -2.0], dtype=float)
    b_np = np.array([[7, 7, 7], [-9, -9, -9], [100, 100, 100]], dtype=np.int32)
    b = wp.array(b_np, dtype=int)
    wp.launch(aug_elems, dim=3, inputs=[a, b])
    np.testing.assert_array_equal(a.numpy(), [0.5, 1.5, -1.0])

    expected = [[(v // 2) * 2, (int(np.fmod(v, 3)) | 8), (v ^ 5) & 6] for v in (7, -9, 100)]
    assert b.numpy().tolist() == expected


def test_index_with_other_integer_types():
    @wp.kernel
    def typed_index(a: wp.array(dtype=float), m: wp.array2d(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[wp.int64(i)] = a[wp.uint8(i)] + a[wp.int16(i)] * 10.0 + a[wp.uint64(i)] * 100.0
        out[wp.uint32(i) + wp.uint32(3)] = m[wp.int64(i), wp.uint16(1)]

    a = wp.array([1.0, 2.0, 3.0], dtype=float)
    m = wp.array(np.arange(6, dtype=np.float32).reshape(3, 2), dtype=float)
    out = wp.zeros(6, dtype=float)
    wp.launch(typed_index, dim=3, inputs=[a, m, out])
    np.testing.assert_array_equal(out.numpy(), [111.0, 222.0, 333.0, 1.0, 3.0, 5.0])


def test_row_slice_as_local_variable():
    @wp.kernel
    def row_var(a: wp.array3d(dtype=int), shapes: wp.array2d(dtype=int)):
        i = wp.tid()
        r = a[i]
        for j in range(r.shape[0]):
            for k in range(r.shape[1]):
                r[j, k] = i * 100 + j * 10 + k
        row = r[1]
        shapes[i, 0] = r.shape[0]
        shapes[i, 1] = r.shape[1]
        shapes[i, 2] = row.shape[0]
        row[0] = -row[3]

    a = wp.zeros((2, 3, 4), dtype=int)
    shapes = wp.zeros((2, 3), dtype=int)
    wp.launch(row_var, dim=2, inputs=[a, shapes])
    i, j, k = np.indices((2, 3, 4))
    expected = i * 100 + j * 10 + k
    expected[:, 1, 0] = -expected[:, 1, 3]
    np.testing.assert_array_equal(a.numpy(), expected)
    assert shapes.numpy().tolist() == [[3, 4, 4], [3, 4, 4]]


def test_negative_stride_numpy_views():
    base = np.arange(6, dtype=np.float32)
    view = base[::-2]  # elements 5, 3, 1
    wp.launch(scale_1d, dim=3, inputs=[view, 10.0])
    np.testing.assert_array_equal(base, [0.0, 12.0, 2.0, 31.0, 4.0, 50.0])


_mat22i = wp.types.matrix(shape=(2, 2), dtype=wp.int32)


@wp.kernel
def _bitwise_composite_atomics(
    a: wp.array(dtype=wp.vec3ui), m: wp.array(dtype=_mat22i), bits: wp.array(dtype=int)
):
    i = wp.tid()
    wp.atomic_or(a, 0, wp.vec3ui(wp.uint32(1) << wp.uint32(i), wp.uint32(0), wp.uint32(bits[i])))
    wp.atomic_and(a, 1, wp.vec3ui(~(wp.uint32(1) << wp.uint32(i)), wp.uint32(0), wp.uint32(0xFFFFFFFF)))
    wp.atomic_xor(m, 0, _mat22i(bits[i], 0, i, 1))


def test_bitwise_atomics_on_integer_vectors_and_matrices():
    n = 12
    bits = np.random.default_rng(3).integers(0, 1 << 20, n).astype(np.int32)
    a = wp.array(np.array([[0, 0, 0], [0xFFFFFFFF, 7, 0xF0]], dtype=np.uint32), dtype=wp.vec3ui)
    m = wp.zeros(1, dtype=_mat22i)
    wp.launch(_bitwise_composite_atomics, dim=n, inputs=[a, m, wp.array(bits, dtype=int)])
    ors = np.bitwise_or.reduce(bits.astype(np.uint32))
    expected = [[(1 << n) - 1, 0, ors], [0xFFFFFFFF & ~((1 << n) - 1), 0, 0xF0]]
    np.testing.assert_array_equal(a.numpy(), np.array(expected, dtype=np.uint32))
    xors = np.bitwise_xor.reduce(bits)
    np.testing.assert_array_equal(m.numpy()[0], [[xors, 0], [np.bitwise_xor.reduce(np.arange(n)), n % 2]])


@pytest.mark.parametrize("dtype", [wp.int8, wp.uint16, wp.vec3s, wp.vec3ub, wp.float16, wp.vec3h])
@pytest.mark.parametrize("op", ["add", "min", "max"])
def test_atomics_on_unsupported_element_types_name_the_types(dtype, op):
    scalar = getattr(dtype, "_wp_scalar_type_", dtype)
    if op == "add" and scalar is wp.float16:
        pytest.skip("atomic_add supports float16")
    atomic = getattr(wp, f"atomic_{op}")

    @wp.kernel(module="unique")
    def k(arr: wp.array(dtype=dtype)):
        atomic(arr, 0, dtype(scalar(0)))

    # atomic_min/max have no float16 form, atomic_add has
    half = "" if op in ("min", "max") else "float16, "
    pattern = (
        rf"atomic_{op}\(\) operations only work on arrays with \[u\]int32, \[u\]int64, {half}bfloat16, "
        rf"float32, or float64 as the underlying scalar types, but got {wp.types.type_repr(dtype)} "
        rf"\(with scalar type {wp.types.type_repr(scalar)}\)$"
    )
    with pytest.raises(wp.WarpCodegenTypeError, match=pattern):
        wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=dtype)])


@wp.kernel(module="unique")
def _narrow_inplace(x: wp.array(dtype=Any), y: wp.array(dtype=Any)):
    i = wp.tid()
    x[i] += y[i]
    x[i] -= y[i] + y[i]


_VEC = pytest.mark.needs_plugin("builtins")  # vector arithmetic


@pytest.mark.parametrize("dtype", [wp.int8, wp.uint8, wp.int16, wp.uint16, pytest.param(wp.vec2b, marks=_VEC),
                                   pytest.param(wp.vec3us, marks=_VEC)])
def test_inplace_add_on_arrays_without_atomics_reads_and_writes_back(dtype):
    # 8/16-bit integer elements have no atomics: a[i] += x is a plain read-modify-write
    x = wp.full(4, value=5, dtype=dtype)
    y = wp.full(4, value=2, dtype=dtype)
    wp.launch(_narrow_inplace, 4, inputs=[x, y])
    np.testing.assert_array_equal(x.numpy(), np.full_like(x.numpy(), 3))  # 5 + 2 - 4


@wp.kernel(module="unique")
def _array_truth(a: wp.array(dtype=float), b: wp.array2d(dtype=float), out: wp.array(dtype=int)):
    out[0] = int(not a)
    if b:
        out[1] = 1
    if a and b:
        out[2] = 1


def test_array_truth_value_in_kernels_is_whether_it_has_data():
    out = wp.zeros(3, dtype=int)
    wp.launch(_array_truth, 1, inputs=[None, wp.zeros((2, 2)), out])
    np.testing.assert_array_equal(out.numpy(), [1, 1, 0])
    out = wp.zeros(3, dtype=int)
    wp.launch(_array_truth, 1, inputs=[wp.zeros(2), wp.zeros((1, 1)), out])
    np.testing.assert_array_equal(out.numpy(), [0, 1, 1])
