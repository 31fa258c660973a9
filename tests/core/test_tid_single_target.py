"""A single ``i = wp.tid()`` in a multi-dimensional launch is the first coordinate (as in Warp 1.19)."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.kernel
def count_first(counts: wp.array(dtype=wp.int32)):
    i = wp.tid()
    wp.atomic_add(counts, i, 1)


@wp.kernel
def first_and_all(first: wp.array2d(dtype=wp.int32)):
    i = wp.tid()
    a, b = wp.tid()
    first[a, b] = i


@pytest.mark.parametrize("shape", [(7,), (5, 3), (4, 3, 2), (3, 2, 2, 5), (1, 9), (6, 1, 1, 1)])
def test_single_tid_is_the_first_coordinate(shape):
    counts = wp.zeros(int(np.prod(shape)), dtype=wp.int32)  # room for linear indices too
    wp.launch(count_first, dim=shape, inputs=[counts])
    # every first coordinate is visited once per point of the other dimensions
    expected = np.zeros(int(np.prod(shape)), np.int32)
    expected[: shape[0]] = np.prod(shape[1:])
    np.testing.assert_array_equal(counts.numpy(), expected)


def test_single_and_tuple_tid_agree_in_a_2d_launch():
    first = wp.zeros((6, 4), dtype=wp.int32)
    wp.launch(first_and_all, dim=(6, 4), inputs=[first])
    np.testing.assert_array_equal(first.numpy(), np.repeat(np.arange(6, dtype=np.int32)[:, None], 4, axis=1))
