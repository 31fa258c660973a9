"""``wp.indexedarray`` / ``a[index_array]``: arrays seen through index arrays (Python scope),
checked against NumPy's ``np.ix_`` indexing; copies both ways, fills, errors."""

import numpy as np
import pytest

import warp as wp
from warp.errors import LaunchTypeError, WarpCodegenTypeError

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

IDX = np.array([1, 5, 8, 9])


def _idx(values=IDX) -> wp.array:
    return wp.array(values, dtype=wp.int32)


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_gather_and_copy_both_ways_match_numpy(ndim):
    np_data = np.arange(10**ndim, dtype=np.float32).reshape((10,) * ndim)
    data = wp.array(np_data)
    indexed = data[(_idx(),) * ndim]
    expected = np_data[np.ix_(*(IDX,) * ndim)]
    assert isinstance(indexed, wp.indexedarray)
    assert indexed.shape == expected.shape and indexed.ndim == ndim and indexed.size == expected.size
    assert not indexed.is_contiguous
    np.testing.assert_array_equal(indexed.numpy(), expected)
    dense = wp.zeros_like(indexed)
    assert dense.is_contiguous and dense.shape == expected.shape and dense.dtype == wp.float32
    wp.copy(dense, indexed)
    np.testing.assert_array_equal(dense.numpy(), expected)
    dense.assign(2.0 * expected)
    wp.copy(indexed, dense)  # scatter back into data
    np_data[np.ix_(*(IDX,) * ndim)] *= 2.0
    np.testing.assert_array_equal(data.numpy(), np_data)


def test_mixed_keys_slices_integers_and_none():
    np_data = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
    data = wp.array(np_data)
    rows, cols = _idx([2, 0]), _idx([4, 1, 1])
    np.testing.assert_array_equal(data[rows, 1:3, cols].numpy(), np_data[np.ix_([2, 0], [1, 2], [4, 1, 1])])
    np.testing.assert_array_equal(data[1, :, cols].numpy(), np_data[1][:, [4, 1, 1]])
    np.testing.assert_array_equal(data[..., cols].numpy(), np_data[..., [4, 1, 1]])
    explicit = wp.indexedarray(data, [rows, None, cols])
    assert explicit.shape == (2, 4, 3) and explicit.indices[1] is None and explicit.data is data
    np.testing.assert_array_equal(explicit.numpy(), np_data[np.ix_([2, 0], range(4), [4, 1, 1])])


def test_composite_elements_fill_and_list():
    data = wp.array(np.arange(12, dtype=np.float32).reshape(4, 3), dtype=wp.vec3)
    indexed = wp.indexedarray1d(data, [_idx([3, 0])])
    assert indexed.list() == [wp.vec3(9.0, 10.0, 11.0), wp.vec3(0.0, 1.0, 2.0)]
    indexed.fill_(wp.vec3(-1.0, -2.0, -3.0))
    np.testing.assert_array_equal(data.numpy()[[0, 3]], [[-1, -2, -3]] * 2)
    np.testing.assert_array_equal(data.numpy()[1:3], np.arange(3, 9).reshape(2, 3))
    indexed.zero_()
    assert not data.numpy()[[0, 3]].any()


def test_copy_converts_dtypes_and_clone_is_contiguous():
    data = wp.array(np.arange(6, dtype=np.int32))
    indexed = data[_idx([5, 0, 2])]
    out = wp.zeros(3, dtype=wp.float64)
    wp.copy(out, indexed)
    np.testing.assert_array_equal(out.numpy(), [5.0, 0.0, 2.0])
    c = wp.clone(indexed)
    assert isinstance(c, wp.array) and c.is_contiguous
    np.testing.assert_array_equal(c.numpy(), [5, 0, 2])
    np.testing.assert_array_equal(indexed.contiguous().numpy(), [5, 0, 2])


def test_copy_errors():
    data = wp.array(np.arange(10, 16, dtype=np.int32))
    indexed = data[_idx([0, 2, 4])]
    with pytest.raises(RuntimeError, match="offsets and count are not supported when copying indexed arrays"):
        wp.copy(wp.zeros(3, dtype=wp.int32), indexed, src_offset=1, count=1)
    with pytest.raises(RuntimeError, match=r"destination shape=\(2,\), source shape=\(3,\)"):
        wp.copy(wp.zeros(2, dtype=wp.int32), indexed)


def test_construction_errors():
    data = wp.array(np.arange(4, dtype=np.float32))
    with pytest.raises(TypeError, match="index arrays must be 1-D arrays of int32.*dtype int64"):
        wp.indexedarray(data, [wp.array([0], dtype=wp.int64)])
    with pytest.raises(ValueError, match="2 index arrays given for an array of 1 dimensions"):
        wp.indexedarray(data, [_idx([0]), _idx([0])])
    with pytest.raises(TypeError, match="data must be a warp array, got list"):
        wp.indexedarray([1, 2], [_idx([0])])
    with pytest.raises(IndexError, match="index 7 at position 1 of the index array of dimension 0 is out of"):
        data[_idx([0, 7])].numpy()


def test_type_descriptions():
    t = wp.indexedarray[wp.int32, 2]
    assert t.dtype is wp.int32 and t.ndim == 2 and t.data is None
    assert wp.indexedarray2d(dtype=float).ndim == 2
    assert wp.types.indexedarray is wp.indexedarray
    with pytest.raises(ValueError, match="indexedarray1d has ndim=1, got ndim=2"):
        wp.indexedarray1d(dtype=float, ndim=2)


@wp.kernel
def _read(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i]


def test_kernels_refuse_indexed_arrays():
    data = wp.array(np.arange(10, dtype=np.float32))
    with pytest.raises(LaunchTypeError, match="argument 'a': indexed arrays .* cannot be kernel arguments"):
        wp.launch(_read, 3, inputs=[data[_idx([4, 5, 6])], wp.zeros(3)])
    with pytest.raises(WarpCodegenTypeError, match="annotated indexedarray"):
        @wp.kernel
        def _annotated(a: wp.indexedarray(dtype=float)):
            pass
