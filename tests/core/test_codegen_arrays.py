"""Kernel language: wp.tid() for 1-4D launches, multi-dimensional indexing, a.shape[k],
non-contiguous (strided) arrays, atomics (also under parallel execution), ``a[i] += x``."""

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
def test_tid_is_linear_index_in_nd_launch(dim):
    n = int(np.prod(dim))
    out = wp.zeros(n, dtype=int)
    wp.launch(tid_linear, dim=dim, inputs=[out])
    assert out.numpy().tolist() == [i * 10 + 1 for i in range(n)]


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
    out2, out3, out4 = wp.zeros((3, 4), dtype=float), wp.zeros((3, 4, 5), dtype=float), wp.zeros((3, 4, 5, 2), dtype=float)
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
    def atomics(vals: wp.array(dtype=float), ivals: wp.array(dtype=int), fsum: wp.array(dtype=float),
                isum: wp.array(dtype=int), i64sum: wp.array(dtype=wp.int64), fmin: wp.array(dtype=float),
                fmax: wp.array(dtype=float), imin: wp.array(dtype=int), imax: wp.array(dtype=int),
                dsum: wp.array(dtype=wp.float64), usum: wp.array(dtype=wp.uint32), grid: wp.array2d(dtype=int)):
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
    wp.launch(atomics, dim=n, inputs=[wp.array(vals, dtype=float), wp.array(ivals, dtype=int), fsum, isum, i64sum,
                                      fmin, fmax, imin, imax, dsum, usum, grid])
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
