"""``wp.copy`` windows (``dest_offset``, ``src_offset``, ``count``) on contiguous and strided 1-d
arrays, checked against NumPy slicing, and its argument errors."""

import numpy as np
import pytest

import warp as wp


def _strided(values: np.ndarray) -> wp.array:
    """A non-contiguous 1-d view whose logical contents are ``values``."""
    data = np.zeros(2 * len(values), dtype=values.dtype)
    data[::2] = values
    view = wp.array(data)[::2]
    assert not view.is_contiguous
    return view


@pytest.mark.parametrize("src_strided", [False, True])
@pytest.mark.parametrize("dst_strided", [False, True])
@pytest.mark.parametrize(
    ("src_offset", "dest_offset", "count"), [(0, 0, 10), (2, 0, 5), (0, 3, 4), (1, 4, 3), (5, 5, 1)]
)
def test_windows_match_numpy(src_strided, dst_strided, src_offset, dest_offset, count):
    np_src = np.arange(1, 11, dtype=np.float32)
    np_dst = np.full(10, -1.0, dtype=np.float32)
    src = _strided(np_src) if src_strided else wp.array(np_src)
    dst = _strided(np_dst) if dst_strided else wp.array(np_dst)
    wp.copy(dst, src, dest_offset=dest_offset, src_offset=src_offset, count=count)
    ref = np_dst.copy()
    ref[dest_offset : dest_offset + count] = np_src[src_offset : src_offset + count]
    np.testing.assert_array_equal(dst.numpy(), ref)


def test_strided_copy_without_count_copies_the_source():
    dst = _strided(np.full(4, 9.0, dtype=np.float32))
    wp.copy(dst, _strided(np.array([7.0, 8.0], dtype=np.float32)))
    np.testing.assert_array_equal(dst.numpy(), [7.0, 8.0, 9.0, 9.0])


def test_copy_argument_errors():
    src = wp.array([1, 2, 3, 4], dtype=wp.int32)
    dest = wp.zeros_like(src)
    cases = [
        (dict(src_offset=-1), "Source offset must be non-negative"),
        (dict(dest_offset=-1), "Destination offset must be non-negative"),
        (dict(count=-1), "count must be non-negative"),
        (dict(src_offset=1.5), "must be integers"),
        (dict(count=2.0), "must be integers"),
    ]
    for kwargs, message in cases:
        with pytest.raises(RuntimeError, match=message):
            wp.copy(dest, src, **kwargs)
    with pytest.raises(ValueError, match="exceeds the source size"):
        wp.copy(wp.zeros(2, dtype=wp.int32), src[::2], count=5)
    nd = wp.array(np.arange(100, dtype=np.float32)).reshape((10, 10))[1::2, 1::2]
    with pytest.raises(RuntimeError, match="only supported for 1-D"):
        wp.copy(wp.zeros_like(nd), nd, count=2)
    with pytest.raises(RuntimeError, match=r"destination shape=\(3, 2\), source shape=\(2, 3\)"):
        src2 = wp.array(np.arange(18, dtype=np.float32).reshape((6, 3)))[::3, :]
        wp.copy(wp.zeros((6, 2), dtype=wp.float32)[::2, :], src2)
