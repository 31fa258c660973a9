"""NumPy data of ``ml_dtypes.bfloat16`` (JAX's bfloat16) becomes wp.bfloat16 arrays: the dtype
is inferred and the values are kept bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

ml_dtypes = pytest.importorskip("ml_dtypes")


def test_dtype_from_numpy_knows_ml_dtypes_bfloat16():
    assert wp.dtype_from_numpy(ml_dtypes.bfloat16) is wp.bfloat16
    assert wp.dtype_from_numpy(np.dtype(ml_dtypes.bfloat16)) is wp.bfloat16
    with pytest.raises(TypeError, match="no matching warp scalar type"):
        wp.dtype_from_numpy(np.dtype("V2"))


def test_array_infers_bfloat16_and_keeps_the_bits():
    values = np.array([1.0, -2.5, 0.0, 100.0, 0.001, 3.0e38], dtype=np.float32)
    data = values.astype(ml_dtypes.bfloat16)
    arr = wp.array(data)
    assert arr.dtype is wp.bfloat16
    assert arr.numpy().dtype == ml_dtypes.bfloat16  # numpy(): ml_dtypes data over the same bits
    np.testing.assert_array_equal(arr.numpy().view(np.uint16), data.view(np.uint16))
    np.testing.assert_array_equal(np.array(arr.list(), np.float32), data.astype(np.float32))
