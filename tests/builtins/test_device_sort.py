"""The kernels of ``warp_builtins.device_sort`` (the device BVH build's sort and scans) on each
device: int32 radix sort of pairs by their low key bits and scans agree with NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from warp_builtins import device_sort


def test_radix_sort_and_scan_match_numpy(device):
    rng = np.random.default_rng(1)
    n = 3000
    keys = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    keys[::3] = keys[0]  # many duplicates: the sort must be stable
    values = np.arange(n, dtype=np.int32)
    k, v = device_sort.radix_sort_pairs(
        wp.array(keys, device=device), wp.array(values, device=device), n, key_bits=32
    )
    order = np.argsort(keys.view(np.uint32), kind="stable")  # keys compare as unsigned numbers
    np.testing.assert_array_equal(v.numpy(), order)
    np.testing.assert_array_equal(k.numpy(), keys[order])
    low = keys & 0xFFF  # only the low 12 bits sorted
    _, v = device_sort.radix_sort_pairs(
        wp.array(low, device=device), wp.array(values, device=device), n, key_bits=12
    )
    np.testing.assert_array_equal(v.numpy(), np.argsort(low, kind="stable"))
    counts = rng.integers(0, 7, n).astype(np.int32)
    out = wp.empty(n, dtype=wp.int32, device=device)
    total = device_sort.exclusive_scan(wp.array(counts, device=device), out, n)
    np.testing.assert_array_equal(out.numpy(), np.cumsum(counts) - counts)
    assert int(total.numpy()[0]) == counts.sum()


@pytest.mark.parametrize("inclusive", [True, False])
def test_float_scan_matches_cumsum(device, inclusive):
    data = np.random.default_rng(2).random(1000).astype(np.float32)
    out = wp.empty(1000, dtype=wp.float32, device=device)
    total = device_sort.scan(wp.array(data, device=device), out, 1000, inclusive=inclusive)
    expected = np.cumsum(data.astype(np.float64))
    if not inclusive:
        expected = expected - data
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5)
    assert float(total.numpy()[0]) == pytest.approx(
        float(expected[-1] + (0 if inclusive else data[-1])), rel=1e-5
    )


@pytest.mark.parametrize("inclusive", [True, False])
def test_scans_of_many_chunks_scan_their_chunk_sums_the_same_way(device, inclusive):
    """More than SCAN_CHUNK**3 elements: the chunk sums are summed by chunks in turn (three
    levels before the serial one), with totals and prefixes exact for integers."""
    assert len(device_sort.scan_levels(device_sort.SCAN_CHUNK**3 * 3 + 17)) == 3
    n = device_sort.SCAN_CHUNK**3 * 3 + 17
    data = np.random.default_rng(4).integers(-5, 9, n).astype(np.int32)
    source = wp.array(data, device=device)
    out = wp.empty(n, dtype=wp.int32, device=device)
    total = device_sort.scan(source, out, n, inclusive=inclusive)
    expected = np.cumsum(data.astype(np.int64))
    if not inclusive:
        expected = expected - data
    np.testing.assert_array_equal(out.numpy(), expected)
    assert int(total.numpy()[0]) == int(data.astype(np.int64).sum())
    in_place = wp.array(data, device=device)
    device_sort.scan(in_place, in_place, n, inclusive=inclusive)
    np.testing.assert_array_equal(in_place.numpy(), expected)


def test_one_scratch_serves_scans_of_any_smaller_size(device):
    """A :class:`ScanScratch` is reused by scans of up to its capacity (a sort's passes share
    one); a scan larger than it, or of another dtype, is refused."""
    scratch = device_sort.ScanScratch(5000, wp.int32, device)
    rng = np.random.default_rng(7)
    for n in (5000, 1, 33, 1025, 4096):
        data = rng.integers(-9, 9, n).astype(np.int32)
        out = wp.empty(n, dtype=wp.int32, device=device)
        total = device_sort.scan(wp.array(data, device=device), out, n, inclusive=True, scratch=scratch)
        np.testing.assert_array_equal(out.numpy(), np.cumsum(data))
        assert int(total.numpy()[0]) == int(data.sum())
    with pytest.raises(ValueError, match="cannot scan 5001"):
        device_sort.scan(
            wp.zeros(5001, dtype=wp.int32, device=device),
            wp.zeros(5001, dtype=wp.int32, device=device),
            5001,
            scratch=scratch,
        )
    with pytest.raises(ValueError, match="cannot scan"):
        device_sort.scan(
            wp.zeros(10, dtype=wp.float32, device=device),
            wp.zeros(10, dtype=wp.float32, device=device),
            10,
            scratch=scratch,
        )
