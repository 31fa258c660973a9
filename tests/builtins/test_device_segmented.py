"""``wp.utils.segmented_sort_pairs`` on a CUDA device runs in kernels there
(warp_builtins.device_segmented), checked on the stand-in driver with host staging made to fail
(the ``cuda`` fixture) against NumPy's stable argsort of every segment: duplicates (stability),
empty segments, gaps between segments, segments in any order, signed zeros and NaN keys, count 0,
graph capture with new inputs on replay, and what invalid or overlapping segments do (as in
NVIDIA Warp's CUDA sort: nothing is copied to the host, an invalid segment is empty)."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
import warp.utils as wu


def _reference(keys, values, count, starts, ends):
    """The documented result by brute force: a segment outside ``[0, count]`` or ending before it
    starts is empty; every segment's pairs covered by no other segment sorted stably among
    themselves (NumPy's order), the other pairs in place."""
    k, v = keys.copy(), values.copy()
    cover = np.zeros(count, np.int64)
    bounds = []
    for s, e in zip(starts.tolist(), ends.tolist()):
        if not 0 <= s <= e <= count:
            s = e = 0
        cover[s:e] += 1
        bounds.append((s, e))
    for s, e in bounds:
        where = np.arange(s, e)[cover[s:e] == 1]
        order = np.argsort(keys[where], kind="stable")
        k[where], v[where] = keys[where][order], values[where][order]
    return k, v


def _segments(count, rng, pieces=300):
    """Non-overlapping segments over ``[0, count)``: random cuts, some empty segments, some gaps
    (never covered), shuffled; as (starts, ends)."""
    cuts = np.sort(rng.integers(0, count + 1, 2 * pieces))
    cuts[10:14] = cuts[10]  # a few empty segments
    starts, ends = cuts[0::2], cuts[1::2]
    order = rng.permutation(pieces)
    return starts[order].astype(np.int32), ends[order].astype(np.int32)


def _sort(keys, values, count, starts, ends, device):
    k, v = wp.array(keys, device=device), wp.array(values, device=device)
    s = wp.array(starts, dtype=wp.int32, device=device)
    e = None if ends is None else wp.array(ends, dtype=wp.int32, device=device)
    wu.segmented_sort_pairs(k, v, count, s, e)
    return k.numpy(), v.numpy()


@pytest.mark.parametrize("np_key", [np.int32, np.float32])
def test_segments_in_any_order_with_gaps_match_numpy(cuda, np_key):
    rng = np.random.default_rng(1)
    count = 2500
    if np_key is np.int32:
        keys = rng.integers(-(2**31), 2**31 - 1, 2 * count, dtype=np.int64).astype(np.int32)
        keys[::3] = rng.integers(-4, 4, len(keys[::3]))  # many duplicates: stability shows
    else:
        keys = rng.normal(0, 1e3, 2 * count).astype(np.float32)
        keys[::5] = rng.choice(np.float32([0.0, -0.0, 1.5, np.nan, -np.inf, np.inf]), len(keys[::5]))
    values = np.arange(2 * count, dtype=np.int32)
    starts, ends = _segments(count, rng)
    k, v = _sort(keys, values, count, starts, ends, cuda)
    ref_k, ref_v = _reference(keys[:count], values[:count], count, starts, ends)
    np.testing.assert_array_equal(v[:count], ref_v)
    np.testing.assert_array_equal(k[:count].view(np.int32), ref_k.view(np.int32))  # zeros' signs too
    np.testing.assert_array_equal(k[count:], keys[count:])  # the scratch half untouched
    np.testing.assert_array_equal(v[count:], values[count:])


def test_start_indices_alone_and_a_few_large_segments(cuda):
    rng = np.random.default_rng(2)
    count = 3000
    keys = rng.integers(0, 50, 2 * count).astype(np.int32)
    values = rng.integers(-100, 100, 2 * count).astype(np.int32)
    starts = np.int32([0, 7, 7, 1500, 2999, 3000])  # segments [0,7) [7,7) [7,1500) ...
    k, v = _sort(keys, values, count, starts, None, cuda)
    ref_k, ref_v = _reference(keys[:count], values[:count], count, starts[:-1], starts[1:])
    np.testing.assert_array_equal(k[:count], ref_k)
    np.testing.assert_array_equal(v[:count], ref_v)


def test_float_zeros_compare_equal_and_nans_sort_last(cuda):
    keys = np.float32([0.0, -0.0, np.nan, -1.0, 0.0, -np.nan, -0.0, np.inf] + [9] * 8)
    values = np.arange(16, dtype=np.int32)
    k, v = _sort(keys, values, 8, np.int32([0, 8]), None, cuda)
    np.testing.assert_array_equal(v[:8], [3, 0, 1, 4, 6, 7, 2, 5])  # NumPy's stable order
    np.testing.assert_array_equal(np.signbit(k[:4]), [True, False, True, False])


def test_nothing_to_sort(cuda):
    keys = np.int32([3, 2, 1, 0, 9, 9, 9, 9])
    values = np.arange(8, dtype=np.int32)
    for count, starts, ends in [
        (0, np.int32([0, 0]), None),
        (4, np.int32([2]), None),  # one start: no segment
        (4, np.zeros(0, np.int32), np.zeros(0, np.int32)),
        (4, np.int32([1, 3]), np.int32([1, 3])),  # empty segments
    ]:
        k, v = _sort(keys, values, count, starts, ends, cuda)
        np.testing.assert_array_equal(k, keys)
        np.testing.assert_array_equal(v, values)


def test_invalid_segments_are_empty_as_in_warps_cuda_sort(cuda):
    """Each kind of invalid range leaves the whole allocation as it was (no host read, no error);
    a valid segment before an invalid inferred one is still sorted (NVIDIA Warp's CUDA cases)."""
    for np_key in (np.int32, np.float32):
        for start, end in ((-2, -1), (-2, 0), (4, 5), (3, 2)):
            key_storage = wp.array(np.arange(20).astype(np_key), device=cuda)
            value_storage = wp.array(np.arange(100, 120, dtype=np.int32), device=cuda)
            starts = wp.array(np.int32([start]), device=cuda)
            ends = wp.array(np.int32([end]), device=cuda)
            wu.segmented_sort_pairs(key_storage[4:], value_storage[4:], 4, starts, ends)
            np.testing.assert_array_equal(key_storage.numpy(), np.arange(20).astype(np_key))
            np.testing.assert_array_equal(value_storage.numpy(), np.arange(100, 120))
    keys = wp.array(np.int32([2, 1, 4, 3, 0, 0, 0, 0]), device=cuda)
    values = wp.array(np.int32([20, 10, 40, 30, 0, 0, 0, 0]), device=cuda)
    wu.segmented_sort_pairs(keys, values, 4, wp.array(np.int32([0, 2, 5]), device=cuda))
    np.testing.assert_array_equal(keys.numpy()[:4], [1, 2, 4, 3])
    np.testing.assert_array_equal(values.numpy()[:4], [10, 20, 40, 30])


def test_the_cpu_raises_for_invalid_segments_before_anything_moves():
    keys = wp.array(np.int32([2, 1, 4, 3, 0, 0, 0, 0]), device="cpu")
    values = wp.array(np.arange(8, dtype=np.int32), device="cpu")
    for starts, ends, index in [([0, 2, 5], None, 1), ([0, 3], [2, 2], 1), ([-1], [2], 0)]:
        s = wp.array(np.int32(starts), device="cpu")
        e = None if ends is None else wp.array(np.int32(ends), device="cpu")
        with pytest.raises(ValueError, match=f"Invalid segment range at index {index}"):
            wu.segmented_sort_pairs(keys, values, 4, s, e)
    np.testing.assert_array_equal(keys.numpy(), [2, 1, 4, 3, 0, 0, 0, 0])


def test_pairs_in_overlapping_segments_keep_their_place_on_cuda(cuda):
    """The CUDA kernels leave pairs covered by two segments where they are and sort the rest of
    each segment (the CPU sorts overlapping segments one after another)."""
    keys = np.int32([5, 4, 3, 2, 1, 0, 9, 9, 9, 9, 9, 9])
    values = np.arange(12, dtype=np.int32)
    starts, ends = np.int32([0, 2]), np.int32([4, 6])
    k, v = _sort(keys, values, 6, starts, ends, cuda)
    ref_k, ref_v = _reference(keys[:6], values[:6], 6, starts, ends)
    np.testing.assert_array_equal(v[:6], ref_v)
    np.testing.assert_array_equal(k[:6], ref_k)
    np.testing.assert_array_equal(v[:6], [1, 0, 2, 3, 5, 4])


def test_graph_capture_records_the_sort_and_replays_on_new_inputs(cuda):
    rng = np.random.default_rng(3)
    count = 1200
    keys = wp.zeros(2 * count, dtype=wp.float32, device=cuda)
    values = wp.zeros(2 * count, dtype=wp.int32, device=cuda)
    starts = wp.zeros(40, dtype=wp.int32, device=cuda)
    ends = wp.zeros(40, dtype=wp.int32, device=cuda)
    with wp.ScopedCapture(device="cuda:0") as capture:
        wu.segmented_sort_pairs(keys, values, count, starts, ends)
    for replay in range(2):
        k = rng.integers(-20, 20, 2 * count).astype(np.float32)
        s, e = _segments(count, rng, pieces=40)  # new segments too: read on the device
        for a, data in ((keys, k), (values, np.arange(2 * count, dtype=np.int32)), (starts, s), (ends, e)):
            a.assign(data)
        wp.capture_launch(capture.graph)
        ref_k, ref_v = _reference(k[:count], np.arange(count, dtype=np.int32), count, s, e)
        np.testing.assert_array_equal(values.numpy()[:count], ref_v, err_msg=f"replay {replay}")
        np.testing.assert_array_equal(keys.numpy()[:count], ref_k)


def test_invalid_and_overlapping_segments_in_a_capture(cuda):
    """Inside a capture too: a segment outside [0, count] or ending before it starts is empty,
    pairs covered by two segments keep their place."""
    rng = np.random.default_rng(4)
    count = 600
    keys_np = rng.integers(0, 30, 2 * count).astype(np.int32)
    values_np = np.arange(2 * count, dtype=np.int32)
    starts_np = np.int32([-50, 100, 250, 300, 500, 450])
    ends_np = np.int32([40, 90, 320, 400, 9999, 480])  # [100, 90) empty; overlaps at 300..320
    keys, values = wp.array(keys_np, device=cuda), wp.array(values_np, device=cuda)
    starts, ends = wp.array(starts_np, device=cuda), wp.array(ends_np, device=cuda)
    with wp.ScopedCapture(device="cuda:0") as capture:
        wu.segmented_sort_pairs(keys, values, count, starts, ends)
    wp.capture_launch(capture.graph)
    ref_k, ref_v = _reference(keys_np[:count], values_np[:count], count, starts_np, ends_np)
    np.testing.assert_array_equal(values.numpy()[:count], ref_v)
    np.testing.assert_array_equal(keys.numpy()[:count], ref_k)
    np.testing.assert_array_equal(values.numpy()[300:320], np.arange(300, 320))  # the overlap
