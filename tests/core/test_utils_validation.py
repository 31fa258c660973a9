"""warp.utils: values of the newer options (radix bit ranges, vector and strided scans, counted
axis reductions) against NumPy, and the errors of bad arguments by type and message."""

from __future__ import annotations

import re

import numpy as np
import pytest

import warp as wp


def _radix_reference(keys: np.ndarray, begin: int, end: int) -> np.ndarray:
    """Stable order of keys by bits [begin, end) of their order-preserving unsigned image."""
    bits = keys.dtype.itemsize * 8
    out = []
    for k in keys.tolist():
        if keys.dtype.kind == "i":
            u = (k + (1 << (bits - 1))) % (1 << bits)
        else:
            u = k
        out.append((u >> begin) & ((1 << (end - begin)) - 1))
    return np.argsort(np.array(out, dtype=np.uint64), kind="stable")


@pytest.mark.parametrize("dtype", [wp.int32, wp.uint32, wp.int64, wp.uint64])
@pytest.mark.parametrize("bit_range", [(0, 2), (1, 4), (3, 7)])
def test_radix_sort_pairs_bit_range(dtype, bit_range) -> None:
    rng = np.random.default_rng(7)
    n = 40
    low = -50 if wp.types.is_int(dtype) and dtype in (wp.int32, wp.int64) else 0
    keys_np = rng.integers(low, 100, size=n).astype(dtype._np_dtype_)
    keys = wp.array(np.concatenate([keys_np, np.zeros(n, keys_np.dtype)]), dtype=dtype)
    values = wp.array(np.arange(2 * n, dtype=np.int32), dtype=int)
    wp.utils.radix_sort_pairs(keys, values, n, begin_bit=bit_range[0], end_bit=bit_range[1])
    order = _radix_reference(keys_np, *bit_range)
    np.testing.assert_array_equal(values.numpy()[:n], order)
    np.testing.assert_array_equal(keys.numpy()[:n], keys_np[order])


def test_radix_sort_pairs_float_keys_full_range_matches_numpy() -> None:
    keys_np = np.array([3.5, -1.0, 0.25, -7.5, 2.0, -0.5], dtype=np.float64)
    n = keys_np.size
    keys = wp.array(np.concatenate([keys_np, np.zeros(n)]), dtype=wp.float64)
    values = wp.array(np.arange(2 * n, dtype=np.int32), dtype=int)
    wp.utils.radix_sort_pairs(keys, values, n)
    np.testing.assert_array_equal(values.numpy()[:n], np.argsort(keys_np, kind="stable"))


def test_radix_sort_pairs_errors() -> None:
    keys = wp.array((1, 2, 3, 0, 0, 0), dtype=int)
    values = wp.array((1, 2, 3, 0, 0, 0), dtype=int)
    with pytest.raises(RuntimeError, match=re.escape("Invalid radix sort bit range [4, 2) for 32-bit keys")):
        wp.utils.radix_sort_pairs(keys, values, 3, begin_bit=4, end_bit=2)
    with pytest.raises(RuntimeError, match=re.escape("Invalid radix sort bit range [0, 33) for 32-bit keys")):
        wp.utils.radix_sort_pairs(keys, values, 3, end_bit=33)
    with pytest.raises(RuntimeError, match="Unsupported keys and values data types: int32, float16$"):
        wp.utils.radix_sort_pairs(keys, wp.zeros(6, dtype=wp.float16), 1)
    with pytest.raises(RuntimeError, match="contain 2\\*count elements$"):
        wp.utils.radix_sort_pairs(keys, values, 4)
    strided = wp.zeros(16, dtype=int)[::2]
    with pytest.raises(RuntimeError, match=r"requires a contiguous keys array, got non-contiguous keys"):
        wp.utils.radix_sort_pairs(strided, wp.zeros(8, dtype=int), 4)


def test_segmented_sort_pairs_errors() -> None:
    keys = wp.zeros(8, dtype=int)
    values = wp.zeros(8, dtype=int)
    starts, ends = wp.array((0,), dtype=int), wp.array((0,), dtype=int)
    with pytest.raises(TypeError, match="count must be an integer"):
        wp.utils.segmented_sort_pairs(keys, values, 1.5, starts, ends)
    with pytest.raises(ValueError, match="count must be non-negative, got -1$"):
        wp.utils.segmented_sort_pairs(keys, values, -1, starts, ends)
    with pytest.raises(ValueError, match="count must not exceed 2147483647, got 2147483648$"):
        wp.utils.segmented_sort_pairs(keys, values, 1 << 31, starts, ends)
    with pytest.raises(RuntimeError, match=re.escape("must have the same size (2 vs 1)")):
        wp.utils.segmented_sort_pairs(keys, values, 4, wp.array((0, 2), dtype=int), wp.array((2,), dtype=int))
    with pytest.raises(RuntimeError, match="segment_start_indices must be one-dimensional"):
        wp.utils.segmented_sort_pairs(keys, values, 4, wp.zeros((2, 2), dtype=int))
    with pytest.raises(RuntimeError, match="Unsupported data type: int32$"):
        wp.utils.segmented_sort_pairs(keys, wp.zeros(8, dtype=float), 1, starts, ends)
    with pytest.raises(RuntimeError, match="requires a contiguous segment_start_indices array"):
        wp.utils.segmented_sort_pairs(keys, values, 1, wp.array((0, 1), dtype=int)[::2], ends)


def test_segmented_sort_pairs_rejects_bad_range_before_sorting() -> None:
    keys_np = np.array((2, 1, 4, 3, 0, 0, 0, 0), dtype=np.int32)
    keys = wp.array(keys_np, dtype=int)
    values = wp.array(keys_np * 10, dtype=int)
    with pytest.raises(ValueError, match="Invalid segment range at index 1"):
        wp.utils.segmented_sort_pairs(keys, values, 4, wp.array((0, 2, 5), dtype=int))
    np.testing.assert_array_equal(keys.numpy(), keys_np)


@pytest.mark.parametrize("dtype", [wp.vec3i, wp.vec3l, wp.vec3f, wp.vec3d])
def test_array_scan_vectors(dtype) -> None:
    rng = np.random.default_rng(1)
    x = rng.integers(-100, 100, size=(50, 3)).astype(dtype._wp_scalar_type_._np_dtype_)
    a = wp.array(x, dtype=dtype)
    inc, exc = wp.zeros_like(a), wp.zeros_like(a)
    wp.utils.array_scan(a, inc, True)
    wp.utils.array_scan(a, exc, False)
    np.testing.assert_array_equal(inc.numpy(), np.cumsum(x, axis=0))
    np.testing.assert_array_equal(exc.numpy()[0], 0)
    np.testing.assert_array_equal(exc.numpy()[1:], np.cumsum(x, axis=0)[:-1])


def test_array_scan_writes_only_through_strided_view() -> None:
    x = np.array([6, -3, 5, 0, -2, 8], dtype=np.int64)
    base = np.zeros(12, dtype=np.int64)
    base[::2] = x
    src = wp.array(base, dtype=wp.int64)[::2]
    out_base = wp.array(np.full(12, -7, dtype=np.int64), dtype=wp.int64)
    wp.utils.array_scan(src, out_base[::2], True)
    np.testing.assert_array_equal(out_base.numpy()[::2], np.cumsum(x))
    np.testing.assert_array_equal(out_base.numpy()[1::2], -7)


def test_array_scan_errors() -> None:
    with pytest.raises(RuntimeError, match=re.escape("storage sizes do not match (3 vs 4)")):
        wp.utils.array_scan(wp.zeros(3, dtype=int), wp.zeros(4, dtype=int))
    with pytest.raises(RuntimeError, match=re.escape("data types do not match (int32 vs float32)")):
        wp.utils.array_scan(wp.zeros(3, dtype=int), wp.zeros(3, dtype=float))
    with pytest.raises(RuntimeError, match="Unsupported data type: vec3h$"):
        wp.utils.array_scan(wp.zeros(3, dtype=wp.vec3h), wp.zeros(3, dtype=wp.vec3h))


@pytest.mark.parametrize("axis", [-3, -2, -1, 0, 1, 2])
def test_reductions_count_along_axis(axis) -> None:
    x = np.arange(1.0, 25.0, dtype=np.float32).reshape(2, 3, 4)
    y = x[::-1].copy()
    a, b = wp.array(x), wp.array(y)
    count = x.shape[axis] - 1
    sl = [slice(None)] * 3
    sl[axis] = slice(count)
    np.testing.assert_allclose(
        wp.utils.array_sum(a, value_count=count, axis=axis).numpy(),
        x[tuple(sl)].sum(axis=axis, keepdims=True),
    )
    np.testing.assert_allclose(
        wp.utils.array_inner(a, b, count=count, axis=axis).numpy(),
        (x * y)[tuple(sl)].sum(axis=axis, keepdims=True),
    )
    np.testing.assert_array_equal(wp.utils.array_sum(a, value_count=0, axis=axis).numpy(), 0.0)


def test_reduction_errors() -> None:
    a = wp.ones((2, 3), dtype=float)
    with pytest.raises(IndexError, match=r"array_sum\(\) axis 2 is out of bounds"):
        wp.utils.array_sum(a, axis=2)
    with pytest.raises(IndexError, match=r"array_inner\(\) axis -3 is out of bounds"):
        wp.utils.array_inner(a, a, axis=-3)
    with pytest.raises(ValueError, match=re.escape("same shape, got (2, 3) and (6,)")):
        wp.utils.array_inner(a, wp.ones(6, dtype=float))
    with pytest.raises(RuntimeError, match=re.escape("data types do not match (float32 vs float64)")):
        wp.utils.array_inner(wp.ones(3, dtype=float), wp.ones(3, dtype=wp.float64))
    with pytest.raises(RuntimeError, match="out array should have type float32$"):
        wp.utils.array_sum(wp.ones(3, dtype=float), out=wp.zeros(1, dtype=wp.float64))
    with pytest.raises(RuntimeError, match=re.escape("out array should have shape (1,)")):
        wp.utils.array_sum(wp.ones(3, dtype=float), out=wp.zeros(2, dtype=float))
    with pytest.raises(RuntimeError, match="Unsupported data type: int32$"):
        wp.utils.array_sum(wp.ones(3, dtype=int))


def test_array_cast_errors_and_flattening() -> None:
    with pytest.raises(RuntimeError, match=re.escape("Array shapes do not match ((2, 3) vs (3, 2))")):
        wp.utils.array_cast(wp.zeros((2, 3), dtype=float), wp.zeros((3, 2), dtype=wp.float64))
    out = wp.zeros(10, dtype=int)
    message = "Cast count (10) exceeds the input size (10) or output size (3)"
    with pytest.raises(RuntimeError, match=re.escape(message)):
        wp.utils.array_cast(wp.ones(10, dtype=float), out[:3])
    np.testing.assert_array_equal(out.numpy(), 0)
    with pytest.raises(RuntimeError, match="Partial cast is not supported"):
        wp.utils.array_cast(wp.zeros((2, 2), dtype=int), wp.zeros((2, 2), dtype=float), count=1)
    flat = wp.zeros((2, 2), dtype=float)
    wp.utils.array_cast(wp.array([1, 2, 3, 4], dtype=int), flat)
    np.testing.assert_array_equal(flat.numpy(), [[1.0, 2.0], [3.0, 4.0]])


def test_runlength_encode_errors() -> None:
    ints = wp.zeros(8, dtype=int)
    with pytest.raises(RuntimeError, match=re.escape("data types do not match (int32 vs float32)")):
        wp.utils.runlength_encode(ints, wp.zeros(8, dtype=float), ints)
    with pytest.raises(RuntimeError, match="Unsupported data type: float32$"):
        wp.utils.runlength_encode(wp.zeros(8, dtype=float), wp.zeros(8, dtype=float), ints)
    with pytest.raises(RuntimeError, match="run_lengths array must be of type int32$"):
        wp.utils.runlength_encode(ints, ints, wp.zeros(8, dtype=float))
    with pytest.raises(RuntimeError, match="run_count array must be of type int32$"):
        wp.utils.runlength_encode(ints, ints, ints, run_count=wp.zeros(1, dtype=float))
    with pytest.raises(RuntimeError, match="value_count must be non-negative, got -5$"):
        wp.utils.runlength_encode(ints, ints, ints, value_count=-5)
    with pytest.raises(RuntimeError, match=re.escape("at least equal to value_count (8)")):
        wp.utils.runlength_encode(ints, wp.zeros(1, dtype=int), ints)
