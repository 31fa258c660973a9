"""``wp.utils`` on a CUDA device computes in kernels there (warp_builtins.device_utils, through the
``warp_device_array_utils`` hook), checked on the stand-in driver whose device memory the host
cannot touch: sorts, scans, run-length encoding and sums agree with NumPy, never stage through
the host, and are recorded by graph capture (a replay recomputes them on new inputs). The
``cuda`` fixture (tests/builtins/conftest.py) makes host staging fail."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
import warp.utils as wu
from warp_builtins import device_sort

KEY_TYPES = [
    (wp.int32, np.int32),
    (wp.uint32, np.uint32),
    (wp.int64, np.int64),
    (wp.uint64, np.uint64),
    (wp.float32, np.float32),
    (wp.float64, np.float64),
]
VALUE_TYPES = [(wp.int32, np.int32), (wp.float32, np.float32), (wp.int64, np.int64), (wp.float64, np.float64)]


def _keys(np_type, n, rng):
    """Random keys of ``np_type`` with duplicates (negative ones for signed and float types)."""
    if np.dtype(np_type).kind == "f":
        keys = rng.normal(0.0, 1e3, n).astype(np_type)
        keys[::7] = np_type(0.0)
        keys[1::11] = np_type(np.inf)
        keys[2::13] = np_type(-np.inf)
    else:
        info = np.iinfo(np_type)
        keys = rng.integers(info.min, info.max, n, dtype=np_type, endpoint=True)
        keys[::5] = rng.integers(info.min, info.max, 1, dtype=np_type)  # duplicates far apart
        keys[1::6] = rng.integers(-3, 3, len(keys[1::6])).astype(np_type)  # small (and negative)
    return keys


def _pairs(np_key, np_value, n, count, rng, device):
    keys = np.concatenate([_keys(np_key, count, rng), _keys(np_key, n - count, rng)])
    values = np.arange(n).astype(np_value)
    return keys, values, wp.array(keys, device=device), wp.array(values, device=device)


@pytest.mark.parametrize("wp_key,np_key", KEY_TYPES, ids=[t.__name__ for t, _ in KEY_TYPES])
@pytest.mark.parametrize("wp_value,np_value", VALUE_TYPES, ids=[t.__name__ for t, _ in VALUE_TYPES])
def test_radix_sort_pairs_matches_a_stable_argsort(cuda, wp_key, np_key, wp_value, np_value):
    rng = np.random.default_rng(7)
    n, count = 3000, 1100  # count < n / 2: only the first count pairs move
    keys, values, k, v = _pairs(np_key, np_value, n, count, rng, cuda)
    wu.radix_sort_pairs(k, v, count)
    order = np.argsort(keys[:count], kind="stable")
    np.testing.assert_array_equal(k.numpy()[:count], keys[:count][order])
    np.testing.assert_array_equal(v.numpy()[:count], values[:count][order])


@pytest.mark.parametrize("wp_key,np_key", KEY_TYPES, ids=[t.__name__ for t, _ in KEY_TYPES])
@pytest.mark.parametrize("begin_bit,end_bit", [(0, 12), (5, 31), (3, None), (20, 45)])
def test_radix_sort_bit_ranges_match_the_reference(cuda, wp_key, np_key, begin_bit, end_bit):
    bits = np.dtype(np_key).itemsize * 8
    end = bits if end_bit is None else end_bit
    if end > bits:
        pytest.skip("bit range beyond the key width")
    rng = np.random.default_rng(8)
    keys, values, k, v = _pairs(np_key, np.int32, 800, 400, rng, cuda)
    wu.radix_sort_pairs(k, v, 400, begin_bit, end_bit)
    order = np.argsort(_digits(keys[:400], begin_bit, end), kind="stable")
    np.testing.assert_array_equal(k.numpy()[:400], keys[:400][order])
    np.testing.assert_array_equal(v.numpy()[:400], values[:400][order])


def _digits(keys: np.ndarray, begin_bit: int, end_bit: int) -> np.ndarray:
    """Bits ``[begin_bit, end_bit)`` of the keys as unsigned numbers ordering as the keys do, by
    Python integers (an independent reference)."""
    bits = keys.dtype.itemsize * 8
    raw = keys.view(f"uint{bits}").tolist()
    sign = 1 << (bits - 1)
    full = (1 << bits) - 1
    out = []
    for u in raw:
        if keys.dtype.kind == "i":
            u ^= sign
        elif keys.dtype.kind == "f":
            u = (~u & full) if u & sign else u | sign
        out.append((u >> begin_bit) & ((1 << (end_bit - begin_bit)) - 1))
    return np.array(out, dtype=np.uint64)


def test_float_keys_order_negative_zero_first_and_count_zero(cuda):
    keys = wp.array(np.float32([0.0, -0.0, -1.5, 2.0, 7, 7, 7, 7]), device=cuda)
    values = wp.array(np.arange(8, dtype=np.int32), device=cuda)
    wu.radix_sort_pairs(keys, values, 4)
    np.testing.assert_array_equal(values.numpy()[:4], [2, 1, 0, 3])
    assert np.signbit(keys.numpy()[1]) and not np.signbit(keys.numpy()[2])
    wu.radix_sort_pairs(keys, values, 0)
    np.testing.assert_array_equal(values.numpy()[:4], [2, 1, 0, 3])


def test_radix_sort_errors_are_unchanged_on_the_device(cuda):
    keys = wp.zeros(10, dtype=wp.int32, device=cuda)
    values = wp.zeros(10, dtype=wp.int32, device=cuda)
    with pytest.raises(RuntimeError, match="2\\*count"):
        wu.radix_sort_pairs(keys, values, 6)
    with pytest.raises(RuntimeError, match="Unsupported keys and values"):
        wu.radix_sort_pairs(wp.zeros(10, dtype=wp.int16, device=cuda), values, 2)
    with pytest.raises(RuntimeError, match="Invalid radix sort bit range"):
        wu.radix_sort_pairs(keys, values, 2, 8, 40)


@pytest.mark.parametrize("inclusive", [True, False])
@pytest.mark.parametrize("dtype", [wp.int32, wp.float32])
def test_array_scan_matches_cumsum(cuda, dtype, inclusive):
    rng = np.random.default_rng(9)
    for n in (0, 1, 255, 256, 257, 5000):
        data = rng.integers(-50, 50, n).astype(dtype._np_dtype_)
        src = wp.array(data, device=cuda)
        out = wp.zeros(n, dtype=dtype, device=cuda)
        wu.array_scan(src, out, inclusive=inclusive)
        expected = np.cumsum(data, dtype=data.dtype)
        if not inclusive:
            expected = np.concatenate([[0], expected[:-1]])[:n].astype(data.dtype)
        np.testing.assert_array_equal(out.numpy(), expected)  # small integers: exact in float32


def test_array_scan_of_floats_in_place_and_2d(cuda):
    data = np.random.default_rng(10).random((40, 30)).astype(np.float32)
    a = wp.array(data, device=cuda)
    wu.array_scan(a, a, inclusive=True)
    np.testing.assert_allclose(a.numpy(), np.cumsum(data.astype(np.float64)).reshape(40, 30), rtol=1e-5)


def test_runlength_encode_matches_numpy(cuda):
    rng = np.random.default_rng(11)
    data = np.repeat(rng.integers(-3, 3, 700), rng.integers(1, 9, 700)).astype(np.int32)
    starts = np.flatnonzero(np.concatenate([[True], data[1:] != data[:-1]]))
    lengths = np.diff(np.append(starts, len(data)))
    a = wp.array(data, device=cuda)
    rv = wp.zeros(len(data), dtype=wp.int32, device=cuda)
    rl = wp.zeros(len(data), dtype=wp.int32, device=cuda)
    count = wp.zeros(1, dtype=wp.int32, device=cuda)
    assert wu.runlength_encode(a, rv, rl, run_count=count) is count
    runs = len(starts)
    assert count.numpy()[0] == runs
    np.testing.assert_array_equal(rv.numpy()[:runs], data[starts])
    np.testing.assert_array_equal(rl.numpy()[:runs], lengths)
    assert wu.runlength_encode(a, rv, rl, value_count=10) == np.count_nonzero(np.diff(data[:10])) + 1


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
def test_array_sum_and_inner_match_numpy(cuda, dtype):
    rng = np.random.default_rng(12)
    a_np = rng.random(3001).astype(dtype._np_dtype_)
    b_np = rng.random(3001).astype(dtype._np_dtype_)
    a, b = wp.array(a_np, device=cuda), wp.array(b_np, device=cuda)
    exact_sum, exact_inner = float(a_np.astype(np.float64).sum()), float(a_np.astype(np.float64) @ b_np)
    assert wu.array_sum(a) == pytest.approx(exact_sum, rel=1e-5)
    assert wu.array_inner(a, b) == pytest.approx(exact_inner, rel=1e-5)
    assert wu.array_sum(a, value_count=10) == pytest.approx(
        float(a_np[:10].astype(np.float64).sum()), rel=1e-5
    )
    out = wp.zeros(1, dtype=dtype, device=cuda)
    assert wu.array_inner(a, b, out=out, count=100) is out
    assert out.numpy()[0] == pytest.approx(float(a_np[:100].astype(np.float64) @ b_np[:100]), rel=1e-5)


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
def test_sums_of_more_than_chunk_squared_elements_reduce_in_levels(cuda, dtype):
    """More than SCAN_CHUNK**2 elements: the chunk sums are summed by chunks in turn (levels of
    kernels before the single thread); inner products too."""
    n = device_sort.SCAN_CHUNK**3 * 2 + 333
    assert len(device_sort.scan_levels(n)) == 3
    rng = np.random.default_rng(14)
    a_np, b_np = rng.random(n).astype(dtype._np_dtype_), rng.random(n).astype(dtype._np_dtype_)
    a, b = wp.array(a_np, device=cuda), wp.array(b_np, device=cuda)
    assert wu.array_sum(a) == pytest.approx(float(a_np.astype(np.float64).sum()), rel=1e-5)
    assert wu.array_inner(a, b) == pytest.approx(float(a_np.astype(np.float64) @ b_np), rel=1e-5)


def test_utils_are_recorded_by_graph_capture_and_replay_on_new_inputs(cuda):
    rng = np.random.default_rng(13)
    n = 1000
    keys = wp.zeros(2 * n, dtype=wp.float32, device=cuda)
    values = wp.zeros(2 * n, dtype=wp.int32, device=cuda)
    scanned_in = wp.zeros(n, dtype=wp.int32, device=cuda)
    scanned = wp.zeros(n, dtype=wp.int32, device=cuda)
    runs_in = wp.zeros(n, dtype=wp.int32, device=cuda)
    rv, rl = wp.zeros(n, dtype=wp.int32, device=cuda), wp.zeros(n, dtype=wp.int32, device=cuda)
    run_count = wp.zeros(1, dtype=wp.int32, device=cuda)
    total = wp.zeros(1, dtype=wp.float32, device=cuda)
    with wp.ScopedCapture(device="cuda:0") as capture:
        wu.radix_sort_pairs(keys, values, n)
        wu.array_scan(scanned_in, scanned, inclusive=False)
        wu.runlength_encode(runs_in, rv, rl, run_count=run_count)
        wu.array_sum(keys, out=total, value_count=n)
    assert not run_count.numpy().any(), "the capture ran the work instead of recording it"
    for replay in range(2):
        k = rng.normal(0, 10, 2 * n).astype(np.float32)
        s = rng.integers(0, 9, n).astype(np.int32)
        r = np.sort(rng.integers(0, 50, n)).astype(np.int32)
        keys.assign(k)
        values.assign(np.arange(2 * n, dtype=np.int32))
        scanned_in.assign(s)
        runs_in.assign(r)
        wp.capture_launch(capture.graph)
        order = np.argsort(k[:n], kind="stable")
        np.testing.assert_array_equal(keys.numpy()[:n], k[:n][order], err_msg=f"replay {replay}")
        np.testing.assert_array_equal(values.numpy()[:n], order)
        np.testing.assert_array_equal(scanned.numpy(), np.cumsum(s) - s)
        uniq, lengths = np.unique(r, return_counts=True)
        assert run_count.numpy()[0] == len(uniq)
        np.testing.assert_array_equal(rv.numpy()[: len(uniq)], uniq)
        np.testing.assert_array_equal(rl.numpy()[: len(uniq)], lengths)
        assert total.numpy()[0] == pytest.approx(float(k[:n].astype(np.float64).sum()), rel=1e-4, abs=1e-2)


def test_capture_with_scoped_capture_begin_end(cuda):
    keys = wp.array(np.int64([5, -3, 5, 2**40, 0, 0, 0, 0]), device=cuda)
    values = wp.array(np.arange(8, dtype=np.int64), device=cuda)
    wp.capture_begin(device="cuda:0")
    try:
        wu.radix_sort_pairs(keys, values, 4)
    finally:
        graph = wp.capture_end(device="cuda:0")
    np.testing.assert_array_equal(values.numpy()[:4], [0, 1, 2, 3])  # recorded, not run
    wp.capture_launch(graph)
    np.testing.assert_array_equal(keys.numpy()[:4], [-3, 5, 5, 2**40])
    np.testing.assert_array_equal(values.numpy()[:4], [1, 0, 2, 3])


def test_host_fallback_without_a_plugin(fake_cuda, monkeypatch):
    monkeypatch.setattr(wu._access, "device_array_utils", lambda device: None)
    keys = wp.array(np.int32([3, 1, 2, 0, 0, 0, 0, 0]), device="cuda:0")
    values = wp.array(np.arange(8, dtype=np.int32), device="cuda:0")
    wu.radix_sort_pairs(keys, values, 4)  # staged through the host
    np.testing.assert_array_equal(values.numpy()[:4], [3, 1, 2, 0])
    with wp.ScopedCapture(device="cuda:0", force_module_load=False):
        with pytest.raises(NotImplementedError, match="cannot be recorded by graph capture"):
            wu.radix_sort_pairs(keys, values, 4)


@wp.kernel
def _scaled(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = 3.0 * x[i]


def test_a_tape_does_not_record_the_utils_kernels(cuda):
    """``wp.utils`` called while a ``wp.Tape`` records (as the sparse marching cubes evaluator
    does) leaves no launch on the tape: its kernels update arrays in place and have no adjoint,
    as in NVIDIA Warp; the tape's backward pass over the other launches still works."""
    rng = np.random.default_rng(5)
    xv = rng.normal(size=64).astype(np.float32)
    x = wp.array(xv, device=cuda, requires_grad=True)
    y = wp.zeros(64, dtype=wp.float32, device=cuda, requires_grad=True)
    keys = wp.array(rng.integers(0, 100, 128).astype(np.int32), device=cuda)
    values = wp.array(np.arange(128, dtype=np.int32), device=cuda)
    scanned = wp.zeros(64, dtype=wp.int32, device=cuda)
    tape = wp.Tape()
    with tape:
        wu.radix_sort_pairs(keys, values, 64)
        wu.array_scan(values[:64], scanned)
        wp.launch(_scaled, dim=64, inputs=[x], outputs=[y], device=cuda)
    assert len(tape.launches) == 1 and tape.launches[0][0] is _scaled
    tape.backward(grads={y: wp.ones(64, dtype=wp.float32, device=cuda)})
    np.testing.assert_allclose(x.grad.numpy(), np.full(64, 3.0, np.float32))
