"""``wp.indexedarray`` whose data is on a CUDA device gathers and scatters in kernels there
(``warp.indexed_kernels``, through the ``warp_device_indexed_ops`` hook): checked on the stand-in
driver, with host staging of device memory made to fail, against NumPy's ``np.ix_`` indexing;
and inside ``wp.ScopedCapture``, whose replay must redo the work on new values. Core builtins
only: this runs with ``WARP_DISABLE_PLUGINS=all`` too."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import warp as wp
from warp.arrays import staging
from warp.types import bfloat16_bits

DEVICE = "cuda:0"


@wp.struct
class Particle:
    pos: wp.vec3
    mass: wp.float16
    tag: wp.int8


#: the index arrays made by :func:`_idx` (outside capture, their values are read for the bounds check)
_INDICES: list[wp.array] = []


@pytest.fixture
def no_staging(fake_cuda, monkeypatch):
    """A context manager in which staging device memory through the host fails the test (except
    reading index arrays: the bounds check outside graph capture does)."""
    _INDICES.clear()
    download = staging.download

    def read_indices_only(arr):
        if not any(arr is idx for idx in _INDICES):
            raise AssertionError("an indexed-array operation read device memory on the host")
        return download(arr)

    def no_upload(*args, **kwargs):
        raise AssertionError("an indexed-array operation wrote device memory from the host")

    @contextlib.contextmanager
    def forbid():
        with monkeypatch.context() as m:
            m.setattr(staging, "download", read_indices_only)
            m.setattr(staging, "upload", no_upload)
            yield

    yield forbid
    _INDICES.clear()


def _idx(values) -> wp.array:
    idx = wp.array(np.asarray(values, dtype=np.int32), dtype=wp.int32, device=DEVICE)
    _INDICES.append(idx)
    return idx


#: (dtype, value given to fill_, the value's NumPy storage, zeros NumPy storage of one element)
FILLS = [
    (wp.float32, 2.5, np.float32(2.5)),
    (wp.int8, -3, np.int8(-3)),
    (wp.float64, -1.25, np.float64(-1.25)),
    (wp.uint64, 2**63 + 5, np.uint64(2**63 + 5)),
    (wp.float16, 1.5, np.float16(1.5)),
    (wp.vec3, wp.vec3(1.0, -2.0, 3.0), np.float32([1, -2, 3])),
    (wp.vec2h, wp.vec2h(0.5, 4.0), np.float16([0.5, 4.0])),
    (wp.mat22, wp.mat22(1.0, 2.0, 3.0, 4.0), np.float32([[1, 2], [3, 4]])),
    (wp.mat33d, wp.mat33d(*range(9)), np.arange(9, dtype=np.float64).reshape(3, 3)),
    (wp.quat, wp.quat(0.0, 0.6, 0.0, 0.8), np.float32([0, 0.6, 0, 0.8])),
    (
        wp.transform,
        wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.0, 1.0)),
        np.float32([1, 2, 3, 0, 0, 0, 1]),
    ),
]


@pytest.mark.parametrize("dtype,value,expected", FILLS, ids=[d.__name__ for d, _, _ in FILLS])
def test_fill_scalars_vectors_matrices(no_staging, dtype, value, expected):
    data = wp.zeros(10, dtype=dtype, device=DEVICE)
    indexed = data[_idx([7, 1, 4, 1])]
    with no_staging():
        indexed.fill_(value)
    reference = np.zeros((10, *np.shape(expected)), dtype=np.asarray(expected).dtype)
    reference[[7, 1, 4]] = expected
    np.testing.assert_array_equal(data.numpy(), reference)
    with no_staging():
        indexed.zero_()
    assert not data.numpy().any()


def test_fill_bfloat16_and_structs(no_staging):
    data = wp.zeros(6, dtype=wp.bfloat16, device=DEVICE)
    indexed = data[_idx([5, 0])]
    with no_staging():
        indexed.fill_(-2.5)
    np.testing.assert_array_equal(bfloat16_bits.from_bits(data._storage()), [-2.5, 0, 0, 0, 0, -2.5])

    particles = wp.zeros(5, dtype=Particle, device=DEVICE)
    p = Particle()
    p.pos, p.mass, p.tag = wp.vec3(1.0, 2.0, 3.0), wp.float16(0.5), wp.int8(-7)
    indexed = particles[_idx([3, 1])]
    with no_staging():
        indexed.fill_(p)
    got = particles.list()
    for i in range(5):
        filled = i in (1, 3)
        assert list(got[i].pos) == ([1.0, 2.0, 3.0] if filled else [0.0, 0.0, 0.0])
        assert float(got[i].mass) == (0.5 if filled else 0.0) and int(got[i].tag) == (-7 if filled else 0)


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_gather_scatter_every_ndim_with_a_whole_dimension(no_staging, ndim):
    shape = (5, 4, 3, 6)[:ndim]
    np_data = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    data = wp.array(np_data, device=DEVICE)
    picks = [[4, 0, 2], None, [2, 2, 0, 1], [5, 1]][:ndim]
    if ndim == 1:
        picks = [[3, 1, 4, 1]]
    indices = [None if p is None else _idx(p) for p in picks]
    axes = [np.arange(n) if p is None else np.asarray(p) for n, p in zip(shape, picks)]
    expected = np_data[np.ix_(*axes)]
    indexed = wp.indexedarray(data, indices)
    with no_staging():
        dense = indexed.contiguous()
        copied = wp.zeros(expected.shape, dtype=wp.float32, device=DEVICE)
        wp.copy(copied, indexed)
    assert dense.is_contiguous and dense.device == wp.get_device(DEVICE)
    np.testing.assert_array_equal(dense.numpy(), expected)
    np.testing.assert_array_equal(copied.numpy(), expected)
    np.testing.assert_array_equal(indexed.numpy(), expected)  # gathered on the device, then read

    new = -np.arange(expected.size, dtype=np.float32).reshape(expected.shape) - 1.0
    src = wp.array(new, device=DEVICE)
    with no_staging():
        wp.copy(indexed, src)
    reference = np_data.copy()
    reference[np.ix_(*axes)] = new  # a repeated index keeps the last value written: one per position
    unique = all(p is None or len(set(p)) == len(p) for p in picks)
    if unique:
        np.testing.assert_array_equal(data.numpy(), reference)
    else:
        written = data.numpy()[np.ix_(*axes)]
        assert set(np.unique(written)) <= set(np.unique(new))
    with no_staging():
        indexed.assign(wp.zeros(expected.shape, dtype=wp.float32, device=DEVICE))
    reference[np.ix_(*axes)] = 0.0
    np.testing.assert_array_equal(data.numpy(), reference)


def test_strided_data_and_indexed_to_indexed(no_staging):
    base_np = np.arange(48, dtype=np.int64).reshape(6, 8)
    base = wp.array(base_np, device=DEVICE)
    view = base[1:, ::3]  # (5, 3), strided
    src = wp.indexedarray(view, [_idx([4, 0]), None])
    dest_np = np.zeros((4, 5, 3), dtype=np.int64)
    dest_data = wp.array(dest_np, device=DEVICE)
    dest = wp.indexedarray(dest_data[2], [_idx([3, 1]), None])
    with no_staging():
        wp.copy(dest, src)
    dest_np[2][[3, 1]] = base_np[1:, ::3][[4, 0]]
    np.testing.assert_array_equal(dest_data.numpy(), dest_np)
    with no_staging():
        src.assign(dest)  # indexed -> indexed the other way round
        src.fill_(-1)
    assert (base.numpy()[[5, 1]][:, ::3] == -1).all()
    assert (base.numpy()[[0, 2, 3, 4]] == base_np[[0, 2, 3, 4]]).all()


def test_vectors_copy_through_indices(no_staging):
    np_data = np.arange(30, dtype=np.float32).reshape(10, 3)
    data = wp.array(np_data, dtype=wp.vec3, device=DEVICE, requires_grad=True)
    indexed = data[_idx([9, 0, 5])]
    out = wp.zeros(3, dtype=wp.vec3, device=DEVICE)
    with no_staging():
        wp.copy(out, indexed)
        indexed.assign(out)  # a no-op round trip
    np.testing.assert_array_equal(out.numpy(), np_data[[9, 0, 5]])
    np.testing.assert_array_equal(data.numpy(), np_data)


def test_out_of_range_indices(no_staging):
    data = wp.zeros(4, dtype=wp.int32, device=DEVICE)
    indexed = data[_idx([0, 9, 2])]
    with pytest.raises(IndexError, match="index 9 at position 1 of the index array of dimension 0"):
        indexed.fill_(5)
    with pytest.raises(IndexError, match="index 9"):
        indexed.contiguous()
    with pytest.raises(IndexError, match="index 9"):
        wp.copy(indexed, wp.zeros(3, dtype=wp.int32, device=DEVICE))
    # during capture the host cannot read the indices: not checked, the kernel skips index 9
    with wp.ScopedCapture(device=DEVICE) as capture:
        indexed.fill_(5)
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(data.numpy(), [5, 0, 5, 0])


def test_graph_capture_records_fills_copies_and_assignments(no_staging):
    np_data = np.zeros((6, 4), dtype=np.float32)
    data = wp.array(np_data, device=DEVICE)
    rows = _idx([5, 2, 0])
    scatter = wp.indexedarray(data, [rows, None])  # (3, 4), one dimension whole
    vecs = wp.zeros(8, dtype=wp.mat22, device=DEVICE)
    vec_view = vecs[_idx([6, 3])]
    src = wp.array(np.ones((3, 4), dtype=np.float32), device=DEVICE)
    table = wp.array(np.arange(40, dtype=np.float32).reshape(10, 4), device=DEVICE)
    picked = table[_idx([9, 4, 7])]  # gathered from
    gathered = wp.zeros((3, 4), dtype=wp.float32, device=DEVICE)
    row_one = wp.indexedarray(data, [_idx([1]), None])
    with no_staging():
        with wp.ScopedCapture(device=DEVICE) as capture:
            vec_view.fill_(wp.mat22(1.0, 2.0, 3.0, 4.0))
            wp.copy(scatter, src)  # array -> indexed
            wp.copy(gathered, picked)  # indexed -> array
            dense = picked.contiguous()  # indexed -> new array
            row_one.assign(src[0:1])
    # replay after changing the sources and clearing the destinations
    src.assign(np.full((3, 4), 7.0, dtype=np.float32))
    new_table = -np.arange(40, dtype=np.float32).reshape(10, 4)
    table.assign(new_table)
    data.zero_()
    vecs.zero_()
    gathered.zero_()
    with no_staging():
        wp.capture_launch(capture.graph)
    expected = np.zeros((6, 4), dtype=np.float32)
    expected[[5, 2, 0, 1]] = 7.0
    np.testing.assert_array_equal(data.numpy(), expected)
    np.testing.assert_array_equal(gathered.numpy(), new_table[[9, 4, 7]])
    np.testing.assert_array_equal(dense.numpy(), new_table[[9, 4, 7]])
    expected_vecs = np.zeros((8, 2, 2), dtype=np.float32)
    expected_vecs[[6, 3]] = [[1, 2], [3, 4]]
    np.testing.assert_array_equal(vecs.numpy(), expected_vecs)


def test_host_values_and_other_dtypes_still_stage_outside_capture(fake_cuda):
    data = wp.zeros(5, dtype=wp.float32, device=DEVICE)
    indexed = data[_idx([4, 2])]
    indexed.assign([1.5, 2.5])  # host values: staged
    np.testing.assert_array_equal(data.numpy(), [0, 0, 2.5, 0, 1.5])
    wp.copy(indexed, wp.array([3, 4], dtype=wp.int32, device=DEVICE))  # converting: through the host
    np.testing.assert_array_equal(data.numpy(), [0, 0, 4, 0, 3])
    with wp.ScopedCapture(device=DEVICE, force_module_load=False):
        with pytest.raises(NotImplementedError, match="cannot be recorded by graph capture"):
            indexed.assign(np.float32([1, 2]))
        with pytest.raises(NotImplementedError, match="cannot be recorded by graph capture"):
            wp.copy(indexed, wp.zeros(2, dtype=wp.float64, device=DEVICE))


def test_graph_fill_vecmat_contiguous_strided_and_indexed(no_staging):
    # as NVIDIA Warp's test_array.py::test_graph_fill_vecmat: fills recorded, then replayed
    n = 5
    types = [wp.vec2, wp.vec3h, wp.vec4d, wp.mat22, wp.mat33, wp.mat44d, wp.quatd, wp.transformh]
    arrays = []
    indices = _idx([4, 1, 3])
    for dtype in types:
        contiguous = wp.zeros(n, dtype=dtype, device=DEVICE)
        strided = wp.zeros(2 * n, dtype=dtype, device=DEVICE)[::2]
        indexed_data = wp.zeros(n, dtype=dtype, device=DEVICE)
        arrays.append((dtype, contiguous, strided, indexed_data, indexed_data[indices]))
    with no_staging():
        with wp.ScopedCapture(device=DEVICE) as capture:
            for dtype, contiguous, strided, _, indexed in arrays:
                value = dtype(*[float(k + 1) for k in range(dtype._length_)])
                for a in (contiguous, strided, indexed):
                    a.fill_(value)
        wp.capture_launch(capture.graph)
    for dtype, contiguous, strided, indexed_data, _ in arrays:
        flat = np.arange(1, dtype._length_ + 1, dtype=np.float64)
        one = flat.reshape(contiguous.numpy().shape[1:])
        np.testing.assert_array_equal(contiguous.numpy(), np.broadcast_to(one, contiguous.numpy().shape))
        np.testing.assert_array_equal(strided.numpy(), np.broadcast_to(one, strided.numpy().shape))
        expected = np.zeros(indexed_data.numpy().shape)
        expected[[4, 1, 3]] = one
        np.testing.assert_array_equal(indexed_data.numpy(), expected)


def test_copies_between_non_contiguous_arrays_run_on_the_device(no_staging):
    """``wp.copy`` between strided views on one CUDA device (whole arrays and 1-D windows) runs
    the same kernels with no index arrays, so a graph capture records it."""
    rng = np.random.default_rng(3)
    base = rng.normal(size=(6, 8)).astype(np.float32)
    src_full = wp.array(base, dtype=wp.float32, device=DEVICE)
    dest_full = wp.zeros((12, 8), dtype=wp.float32, device=DEVICE)
    line = wp.array(np.arange(20, dtype=np.int32), dtype=wp.int32, device=DEVICE)
    window = wp.zeros(20, dtype=wp.int32, device=DEVICE)
    with no_staging():
        wp.copy(dest_full[::2], src_full)
        wp.copy(window[::2], line[1::2], dest_offset=1, src_offset=2, count=6)
    expected = np.zeros((12, 8), np.float32)
    expected[::2] = base
    np.testing.assert_array_equal(dest_full.numpy(), expected)
    expected_window = np.zeros(20, np.int32)
    expected_window[::2][1:7] = np.arange(20, dtype=np.int32)[1::2][2:8]
    np.testing.assert_array_equal(window.numpy(), expected_window)

    dest_full.zero_()
    with no_staging(), wp.ScopedCapture(device=DEVICE) as capture:
        wp.copy(dest_full[1::2], src_full)
    src_full.assign(base * 2.0)
    wp.capture_launch(capture.graph)
    expected = np.zeros((12, 8), np.float32)
    expected[1::2] = base * 2.0
    np.testing.assert_array_equal(dest_full.numpy(), expected)
