"""expect_eq / expect_neq / expect_near, lower_bound, atomic bit operations, reversed(range())."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.kernel
def expectations(x: wp.array(dtype=float), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    wp.expect_eq(x[i], 1.0)
    wp.expect_neq(i, 1)
    wp.expect_near(x[i], 1.05, 0.1)
    wp.expect_near(v[i], wp.vec3(0.0, 0.0, 0.0), 0.5)


def test_expectations_print_only_failures(capfd):
    x = np.array([1.0, 1.0, 2.0], dtype=np.float32)
    v = wp.zeros(3, dtype=wp.vec3)
    wp.launch(expectations, dim=3, inputs=[x, v])
    lines = [ln for ln in capfd.readouterr().out.splitlines() if ln.startswith("Expect failed")]
    # thread 1 fails expect_neq; thread 2 fails expect_eq and expect_near
    assert len(lines) == 3
    assert sum("wp.expect_neq(i, 1)" in ln for ln in lines) == 1
    assert sum("wp.expect_eq(x[i], 1.0)" in ln for ln in lines) == 1
    assert all("test_checks.py:" in ln for ln in lines)


@wp.kernel
def default_tolerance(x: wp.array(dtype=float), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    wp.expect_near(x[i], 1.0)
    wp.expect_near(v[i], wp.vec3(1.0, 1.0, 1.0))


def test_expect_near_default_tolerance_is_1e_6(capfd):
    # 1 + 5e-7 is within 1e-6 of 1; 1 + 4e-6 is not
    x = np.array([1.0, 1.0 + 5e-7, 1.0 + 4e-6], dtype=np.float32)
    v = wp.array(np.repeat(x[:, None], 3, axis=1), dtype=wp.vec3)
    wp.launch(default_tolerance, dim=3, inputs=[x, v])
    lines = [ln for ln in capfd.readouterr().out.splitlines() if ln.startswith("Expect failed")]
    assert len(lines) == 2
    assert sum("wp.expect_near(x[i], 1.0)" in ln for ln in lines) == 1


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64, wp.int32, wp.uint64])
def test_lower_bound_matches_searchsorted(dtype):
    @wp.kernel
    def search(a: wp.array(dtype=dtype), queries: wp.array(dtype=dtype), out: wp.array(dtype=int)):
        i = wp.tid()
        out[i] = wp.lower_bound(a, queries[i])

    np_t = wp.dtype_to_numpy(dtype)
    rng = np.random.default_rng(3)
    a = np.sort(rng.integers(0, 50, 40)).astype(np_t)
    q = rng.integers(-5, 60, 64).astype(np_t)
    out = wp.zeros(64, dtype=int)
    wp.launch(search, dim=64, inputs=[a, q, out])
    # past the end: the last index (as in NVIDIA Warp), so the result can always be read
    expected = np.minimum(np.searchsorted(a, q, side="left"), len(a) - 1)
    assert (q > a[-1]).any()
    np.testing.assert_array_equal(out.numpy(), expected)


def test_atomic_bit_operations():
    @wp.kernel
    def bits(flags: wp.array(dtype=wp.uint32), acc: wp.array(dtype=wp.int64)):
        i = wp.tid()
        wp.atomic_or(flags, 0, wp.uint32(1) << wp.uint32(i))
        wp.atomic_and(flags, 1, ~(wp.uint32(1) << wp.uint32(i)))
        wp.atomic_xor(acc, 0, wp.int64(i))

    flags = wp.array(np.array([0, 0xFFFFFFFF], dtype=np.uint32))
    acc = wp.zeros(1, dtype=wp.int64)
    wp.launch(bits, dim=20, inputs=[flags, acc])
    assert flags.numpy().tolist() == [(1 << 20) - 1, 0xFFFFFFFF ^ ((1 << 20) - 1)]
    expected = 0
    for i in range(20):
        expected ^= i
    assert acc.numpy()[0] == expected


def test_atomic_bit_operations_reject_floats():
    @wp.kernel
    def bad(a: wp.array(dtype=float)):
        wp.atomic_or(a, 0, 1.0)

    pattern = r"atomic_or\(\) operations only work on arrays with \[u\]int32 or \[u\]int64"
    with pytest.raises(wp.WarpCodegenTypeError, match=pattern):
        wp.launch(bad, dim=1, inputs=[wp.zeros(1, dtype=float)])


def test_reversed_range_constant_and_dynamic_bounds():
    @wp.kernel
    def rev(n: int, out: wp.array(dtype=int)):
        acc = int(0)
        for i in reversed(range(2, n, 3)):
            acc = acc * 100 + i
        order = int(0)
        for i in reversed(range(5)):
            order = order * 10 + i
        for i in reversed(range(n, 0, -2)):
            order = order + i
        empty = int(0)
        for i in reversed(range(n, 2)):
            empty += 1
        out[0] = acc
        out[1] = order
        out[2] = empty

    out = wp.zeros(3, dtype=int)
    wp.launch(rev, dim=1, inputs=[11, out])
    acc = 0
    for i in reversed(range(2, 11, 3)):
        acc = acc * 100 + i
    order = 43210 + sum(reversed(range(11, 0, -2)))
    assert out.numpy().tolist() == [acc, order, 0]
