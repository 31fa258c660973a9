"""``wp.utils`` on each device (tests/conftest.py ``device``): scan, sort, sum and run-length
encoding agree with NumPy whether the arrays live on the CPU or on a CUDA device."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@pytest.mark.parametrize("inclusive", [True, False])
def test_array_scan(device, inclusive) -> None:
    values = np.random.default_rng(3).integers(-50, 50, 1000).astype(np.int32)
    src = wp.array(values, device=device)
    out = wp.zeros(1000, dtype=wp.int32, device=device)
    wp.utils.array_scan(src, out, inclusive=inclusive)
    expected = np.cumsum(values) if inclusive else np.concatenate([[0], np.cumsum(values)[:-1]])
    np.testing.assert_array_equal(out.numpy(), expected)


def test_radix_sort_pairs(device) -> None:
    rng = np.random.default_rng(4)
    keys = rng.integers(0, 100, 500).astype(np.int32)
    vals = np.arange(500, dtype=np.int32)
    k = wp.array(np.concatenate([keys, np.zeros(500, np.int32)]), device=device)
    v = wp.array(np.concatenate([vals, np.zeros(500, np.int32)]), device=device)
    wp.utils.radix_sort_pairs(k, v, 500)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(k.numpy()[:500], keys[order])
    np.testing.assert_array_equal(v.numpy()[:500], vals[order])


def test_array_sum_and_runlength_encode(device) -> None:
    values = np.repeat(np.array([3, 1, 4, 1, 5], np.int32), [2, 1, 3, 1, 4])
    a = wp.array(values, device=device)
    run_values = wp.zeros(len(values), dtype=wp.int32, device=device)
    run_lengths = wp.zeros(len(values), dtype=wp.int32, device=device)
    count = wp.zeros(1, dtype=wp.int32, device=device)
    wp.utils.runlength_encode(a, run_values, run_lengths, run_count=count)
    assert count.numpy()[0] == 5
    np.testing.assert_array_equal(run_values.numpy()[:5], [3, 1, 4, 1, 5])
    np.testing.assert_array_equal(run_lengths.numpy()[:5], [2, 1, 3, 1, 4])
    f = np.linspace(-1.0, 2.0, 333).astype(np.float32)
    total = wp.utils.array_sum(wp.array(f, device=device))
    assert total == pytest.approx(float(f.astype(np.float64).sum()), rel=1e-5)
