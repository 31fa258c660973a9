"""Helpers shared by the tests of the composite-type builtins: the float types with their NumPy
types and tolerances, safe operands and a float64 comparison (test_vector_math.py,
test_matrix_math.py); the NumPy type of a float32/float64 warp type (test_quaternion.py,
test_transform.py, test_spatial.py)."""

import numpy as np
import pytest

import warp as wp

#: (warp type, NumPy type, tolerance) of each float type the vector and matrix tests run in
FLOATS = [
    pytest.param(wp.float16, np.float16, 2e-2, id="float16"),
    pytest.param(wp.float32, np.float32, 2e-5, id="float32"),
    pytest.param(wp.float64, np.float64, 1e-12, id="float64"),
]


def operands(rng, shape, np_dtype):
    """Values of magnitude 0.5..2 with random signs (safe to divide by)."""
    mag = rng.uniform(0.5, 2.0, size=shape)
    return (mag * rng.choice([-1.0, 1.0], size=shape)).astype(np_dtype)


def close(actual, expected, tol):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=tol, atol=tol)


def np_float(dtype):
    """The NumPy type of wp.float32 or wp.float64."""
    return np.float32 if dtype is wp.float32 else np.float64
