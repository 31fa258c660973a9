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
