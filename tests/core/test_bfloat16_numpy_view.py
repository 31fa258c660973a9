"""``array.numpy()`` of bfloat16 data: ``ml_dtypes.bfloat16`` when ml_dtypes is installed,
``uint16`` bit patterns when it is not; the array's own reads and writes keep storing bits."""

from __future__ import annotations

import math

import numpy as np
import pytest
import warp as wp
from warp.types import bfloat16_bits
from warp.types.bfloat16_bits import bits_of

ml_dtypes = pytest.importorskip("ml_dtypes")

VALUES = [1.0, -2.5, 0.5, 1 / 3, 100.0, 0.001]


def reference_bits(values) -> np.ndarray:
    """Bit patterns by ml_dtypes' own rounding (an independent reference)."""
    return np.asarray(values, dtype=np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)


def reference_values(values) -> list[float]:
    return np.asarray(values, dtype=np.float32).astype(ml_dtypes.bfloat16).astype(np.float32).tolist()


@pytest.fixture
def without_ml_dtypes(monkeypatch):
    """Behave as if ml_dtypes were not installed (the cached lookup says None)."""
    monkeypatch.setattr(bfloat16_bits, "ml_dtypes_bfloat16", lambda: None)


def test_numpy_is_ml_dtypes_bfloat16_over_the_same_bits(device):
    a = wp.array(VALUES, dtype=wp.bfloat16, device=device)
    view = a.numpy()
    assert view.dtype == ml_dtypes.bfloat16 and view.shape == (len(VALUES),)
    assert np.array_equal(view.view(np.uint16), reference_bits(VALUES))
    assert view.astype(np.float32).tolist() == reference_values(VALUES)
    assert a.list() == reference_values(VALUES)


def test_numpy_is_uint16_bits_without_ml_dtypes(without_ml_dtypes, device):
    a = wp.array(VALUES, dtype=wp.bfloat16, device=device)
    view = a.numpy()
    assert view.dtype == np.uint16
    assert np.array_equal(view, reference_bits(VALUES))
    assert wp.array(view, dtype=wp.bfloat16, device=device).list() == reference_values(VALUES)


def test_composites_of_bfloat16_view_as_ml_dtypes():
    vec3bf = wp.types.vector(3, wp.bfloat16)
    v = wp.array([vec3bf(1.0, 1 / 3, 2.0)], dtype=vec3bf)
    assert v.numpy().dtype == ml_dtypes.bfloat16 and v.numpy().shape == (1, 3)
    assert np.array_equal(bits_of(v.numpy())[0], reference_bits([1.0, 1 / 3, 2.0]))


def test_numpy_round_trips_through_wp_array(device):
    a = wp.array(VALUES, dtype=wp.bfloat16, device=device)
    inferred = wp.array(a.numpy(), device=device)
    assert inferred.dtype is wp.bfloat16
    assert inferred.list() == a.list()
    explicit = wp.array(a.numpy(), dtype=wp.bfloat16, device=device)
    assert np.array_equal(bits_of(explicit.numpy()), reference_bits(VALUES))
    assert wp.array(a.numpy(), dtype=wp.float32, device=device).list() == reference_values(VALUES)


def test_writes_store_values_not_their_bits(device):
    a = wp.zeros(4, dtype=wp.bfloat16, device=device)
    a.fill_(0.5)
    assert a.list() == [0.5] * 4 and bits_of(a.numpy()).tolist() == [0x3F00] * 4
    a[1] = 0.1
    a[2] = wp.bfloat16(-3.0)
    assert a.list() == reference_values([0.5, 0.1, -3.0, 0.5])
    a.assign(np.array([1.0, 2.0, 1e39, -0.25]))
    assert a.list() == [1.0, 2.0, math.inf, -0.25]
    a.assign(np.array([0.5, 0.75, 1.5, 3.0], dtype=ml_dtypes.bfloat16))
    assert a.list() == [0.5, 0.75, 1.5, 3.0]
    a[0:2] = np.array([8.0, 9.0], dtype=ml_dtypes.bfloat16)
    assert a.list() == [8.0, 9.0, 1.5, 3.0]


def test_assign_and_copy_between_bfloat16_and_float32_convert_values(device):
    f = wp.array(np.array(VALUES, dtype=np.float32), device=device)
    b = wp.zeros(len(VALUES), dtype=wp.bfloat16, device=device)
    b.assign(f)
    assert np.array_equal(bits_of(b.numpy()), reference_bits(VALUES))
    back = wp.zeros(len(VALUES), dtype=wp.float32, device=device)
    back.assign(b)
    assert back.list() == reference_values(VALUES)
    back.zero_()
    wp.copy(back, b)
    assert back.list() == reference_values(VALUES)
    c = wp.zeros(len(VALUES), dtype=wp.bfloat16, device=device)
    wp.copy(c, f)
    assert np.array_equal(bits_of(c.numpy()), reference_bits(VALUES))
    d = wp.zeros(len(VALUES), dtype=wp.bfloat16, device=device)
    d[0:3] = b[0:3]
    assert d.list()[:3] == reference_values(VALUES[:3])


def test_writes_through_the_cpu_view_store_values():
    a = wp.zeros(3, dtype=wp.bfloat16, device="cpu")
    view = a.numpy()
    view[:] = [0.5, -1.0, 2.0]  # ml_dtypes converts values; the array shares the memory
    assert a.list() == [0.5, -1.0, 2.0]


def test_bits_of_and_from_bits_accept_both_forms():
    data = np.array(VALUES, dtype=np.float32).astype(ml_dtypes.bfloat16)
    assert np.shares_memory(bits_of(data), data)
    assert np.array_equal(bits_of(data), reference_bits(VALUES))
    assert bits_of(data.view(np.uint16)) is not None
    assert bfloat16_bits.from_bits(data).tolist() == reference_values(VALUES)
    assert bfloat16_bits.from_bits(data.view(np.uint16)).tolist() == reference_values(VALUES)
    with pytest.raises(TypeError, match="expected bfloat16 data .* got dtype float32"):
        bits_of(np.zeros(2, dtype=np.float32))
