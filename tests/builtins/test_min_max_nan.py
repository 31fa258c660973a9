"""wp.min / wp.max with a NaN operand return the other operand, whatever the argument order."""

from __future__ import annotations

import math

import numpy as np

import warp as wp

wp.config.quiet = True


@wp.kernel
def scalar_min_max(
    a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float32), out: wp.array2d(dtype=wp.float32)
):
    i = wp.tid()
    out[i, 0] = wp.min(a[i], b[i])
    out[i, 1] = wp.min(b[i], a[i])
    out[i, 2] = wp.max(a[i], b[i])
    out[i, 3] = wp.max(b[i], a[i])


@wp.kernel
def vector_min_max(a: wp.array(dtype=wp.vec3d), b: wp.array(dtype=wp.vec3d), out: wp.array2d(dtype=wp.vec3d),
                   red: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    out[i, 0] = wp.min(a[i], b[i])
    out[i, 1] = wp.min(b[i], a[i])
    out[i, 2] = wp.max(a[i], b[i])
    out[i, 3] = wp.max(b[i], a[i])
    red[i, 0] = wp.min(a[i])
    red[i, 1] = wp.max(a[i])


def test_scalar_min_max_ignore_nan_in_either_position():
    nan = np.float32(np.nan)
    a = np.array([nan, 1.0, nan, -2.0, 3.0], dtype=np.float32)
    b = np.array([1.0, nan, nan, 5.0, -np.inf], dtype=np.float32)
    out = wp.zeros((5, 4), dtype=wp.float32)
    wp.launch(scalar_min_max, dim=5, inputs=[wp.array(a), wp.array(b), out])
    expected_min, expected_max = np.fmin(a, b), np.fmax(a, b)  # NumPy's NaN-ignoring min/max
    got = out.numpy()
    for col, want in ((0, expected_min), (1, expected_min), (2, expected_max), (3, expected_max)):
        np.testing.assert_array_equal(got[:, col], want)


def test_vector_min_max_componentwise_and_reductions_ignore_nan():
    nan = np.nan
    a = np.array([[nan, 2.0, -1.0], [4.0, nan, nan]])
    b = np.array([[1.0, nan, 3.0], [nan, 0.5, nan]])
    out = wp.zeros((2, 4), dtype=wp.vec3d)
    red = wp.zeros((2, 2), dtype=wp.float64)
    inputs = [wp.array(a, dtype=wp.vec3d), wp.array(b, dtype=wp.vec3d), out, red]
    wp.launch(vector_min_max, dim=2, inputs=inputs)
    got = out.numpy()
    for col, want in ((0, np.fmin(a, b)), (1, np.fmin(a, b)), (2, np.fmax(a, b)), (3, np.fmax(a, b))):
        np.testing.assert_array_equal(got[:, col], want)
    np.testing.assert_array_equal(red.numpy(), [[-1.0, 2.0], [4.0, 4.0]])


def test_python_scope_min_max_ignore_nan():
    nan = math.nan
    assert wp.min(nan, 1.0) == 1.0 and wp.min(1.0, nan) == 1.0
    assert wp.max(nan, 1.0) == 1.0 and wp.max(1.0, nan) == 1.0
    assert np.array_equal(np.array(wp.min(wp.vec2(nan, 1.0), wp.vec2(2.0, nan))), [2.0, 1.0])
