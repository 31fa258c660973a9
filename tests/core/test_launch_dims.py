"""Launch dimension validation: NVIDIA Warp's limits (each dimension a 32-bit signed integer),
clear errors for wrong types, NumPy integers accepted."""

from __future__ import annotations

import numpy as np
import pytest
import warp as wp
from warp.runtime.launch import MAX_LAUNCH_DIM, launch_dims


@wp.kernel
def count_threads(counter: wp.array(dtype=wp.int64)):
    wp.atomic_add(counter, 0, wp.int64(1))


@wp.kernel
def write_coords(out: wp.array2d(dtype=wp.int32)):
    i, j = wp.tid()
    out[i, j] = i * 100 + j


def _count(dim) -> int:
    counter = wp.zeros(1, dtype=wp.int64)
    wp.launch(count_threads, dim=dim, inputs=[counter])
    return int(counter.numpy()[0])


@pytest.mark.parametrize(
    ("dim", "message"),
    [
        (2**31 + 5, "launch dimension 0 is 2147483653, more than the limit of 2\\*\\*31 - 1"),
        ((2**40, 2**40), "launch dimension 0 is 1099511627776, more than the limit"),
        ((4, 2**31), "launch dimension 1 is 2147483648, more than the limit"),
        (-1, "launch dimension 0 is negative \\(-1\\)"),
        ((3, -2), "launch dimension 1 is negative \\(-2\\)"),
        ((), "dim must have 1 to 4 dimensions"),
        ((1, 1, 1, 1, 1), "dim must have 1 to 4 dimensions"),
    ],
)
def test_invalid_dims_raise_value_error(dim, message):
    counter = wp.zeros(1, dtype=wp.int64)
    with pytest.raises(ValueError, match=message) as info:
        wp.launch(count_threads, dim=dim, inputs=[counter])
    assert "kernel 'count_threads'" in str(info.value)
    assert counter.numpy()[0] == 0  # nothing ran


@pytest.mark.parametrize(
    ("dim", "message"),
    [
        ("10", "dim must be an int or a tuple of 1 to 4 ints, got str '10'"),
        (b"10", "got bytes"),
        (10.0, "dim must be an int or a tuple"),
        ((2, 3.0), "launch dimension 1 must be an int, got float 3.0"),
        ((2, "3"), "launch dimension 1 must be an int, got str '3'"),
        (None, "got NoneType None"),
    ],
)
def test_non_integer_dims_raise_type_error(dim, message):
    @wp.kernel
    def fresh(counter: wp.array(dtype=wp.int64)):
        wp.atomic_add(counter, 0, wp.int64(1))

    counter = wp.zeros(1, dtype=wp.int64)
    with pytest.raises(TypeError, match=message):
        wp.launch(fresh, dim=dim, inputs=[counter])
    assert counter.numpy()[0] == 0


def test_numpy_integers_and_sequences_are_accepted():
    assert _count(np.int64(7)) == 7
    assert _count(np.uint8(5)) == 5
    assert _count((np.int32(3), 4)) == 12
    assert _count([2, 3, 4]) == 24
    assert _count(np.array([2, 5])) == 10
    assert _count(0) == 0 and _count((3, 0)) == 0
    out = wp.zeros((3, 4), dtype=wp.int32)
    wp.launch(write_coords, dim=np.array(out.shape), inputs=[out])
    np.testing.assert_array_equal(out.numpy(), np.arange(3)[:, None] * 100 + np.arange(4)[None, :])


def test_limits_themselves_are_accepted_by_validation():
    assert launch_dims(MAX_LAUNCH_DIM) == ((MAX_LAUNCH_DIM, 1, 1, 1), MAX_LAUNCH_DIM)
    dims, n = launch_dims((65536, 65536))
    assert n == 2**32 and dims == (65536, 65536, 1, 1)  # more than 2**31 threads is fine
    with pytest.raises(ValueError, match="more than the limit of 2\\*\\*63 - 1"):
        launch_dims((MAX_LAUNCH_DIM,) * 4)


@pytest.mark.parametrize("bad", [10.0, (10.0,), (2, 5.0)])
def test_float_dims_rejected_even_after_equal_int_dims(bad):
    """10.0 == 10 as a dict key: memoized int dims must not let an equal float through."""
    counter = wp.zeros(1, dtype=wp.int64)
    wp.launch(count_threads, dim=10, inputs=[counter])
    wp.launch(count_threads, dim=(10,), inputs=[counter])
    wp.launch(count_threads, dim=(2, 5), inputs=[counter])
    assert counter.numpy()[0] == 30
    with pytest.raises(TypeError, match="must be an int"):
        wp.launch(count_threads, dim=bad, inputs=[counter])
    assert counter.numpy()[0] == 30
