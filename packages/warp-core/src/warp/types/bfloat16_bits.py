"""bfloat16 <-> float conversions on NumPy data (NumPy has no bfloat16 dtype).

A bfloat16 is the upper half of a float32: 1 sign bit, 8 exponent bits, 7 mantissa bits. Warp
stores it as 16 bits; NumPy sees those bits as ``uint16``. :func:`to_bits` rounds float32 or
float64 values to the nearest bfloat16 (ties to even, overflow to infinity, subnormals kept,
NaN stays a quiet NaN with its sign and top payload bits) with a single rounding;
:func:`from_bits` is exact.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

import numpy as np


@functools.cache
def ml_dtypes_bfloat16() -> np.dtype | None:
    """NumPy's ``ml_dtypes.bfloat16`` dtype when the optional package ml_dtypes (installed with
    JAX) is importable, else None; looked up once."""
    try:
        module = importlib.import_module("ml_dtypes")
    except ImportError:
        return None
    return np.dtype(module.bfloat16)


def as_public(bits: np.ndarray) -> np.ndarray:
    """A view of ``uint16`` bit patterns as ``ml_dtypes.bfloat16`` when ml_dtypes is installed
    (what ``array.numpy()`` returns for bfloat16 data), else ``bits`` itself."""
    dtype = ml_dtypes_bfloat16()
    return bits if dtype is None else bits.view(dtype)


def is_ml_dtypes_bfloat16(data: np.ndarray) -> bool:
    """True for NumPy data of dtype ``ml_dtypes.bfloat16``."""
    return data.dtype.name == "bfloat16" and data.dtype.itemsize == 2


def _round_to_odd_f32(x: np.ndarray) -> np.ndarray:
    """float64 -> float32 bits rounded to odd (truncate, then set the last bit when inexact).

    Rounding to odd first and to nearest even afterwards gives the correctly rounded result when
    the intermediate has at least two more bits than the target (24 > 8 + 2).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        f = x.astype(np.float32)
        too_big = np.abs(f.astype(np.float64)) > np.abs(x)
        f = np.where(too_big, np.nextafter(f, np.float32(0)), f)
        inexact = f.astype(np.float64) != x
    return f.view(np.uint32) | inexact.astype(np.uint32)


def bits_of(data: np.ndarray) -> np.ndarray:
    """The ``uint16`` bit patterns of bfloat16 NumPy data (``array.numpy()`` of a bfloat16
    array): ``ml_dtypes.bfloat16`` data viewed as its bits, ``uint16`` data as it is."""
    if is_ml_dtypes_bfloat16(data):
        return data.view(np.uint16)
    if data.dtype != np.uint16:
        raise TypeError(f"expected bfloat16 data (uint16 bits or ml_dtypes.bfloat16), got dtype {data.dtype}")
    return data


def to_bits(values: Any) -> np.ndarray:
    """bfloat16 bit patterns (``uint16``) of float values, rounded to nearest even."""
    x = np.asarray(values)
    if x.dtype == np.float64 or x.dtype.kind in "iu" and x.dtype.itemsize >= 4:
        x64 = x.astype(np.float64)
        bits = _round_to_odd_f32(x64)
        nan = np.isnan(x64)
    else:
        x32 = x.astype(np.float32)
        bits = x32.view(np.uint32)
        nan = np.isnan(x32)
    bits = bits.astype(np.uint32)
    lsb = (bits >> np.uint32(16)) & np.uint32(1)
    rounded = (bits + np.uint32(0x7FFF) + lsb) >> np.uint32(16)  # wraps never: inf stays inf
    quiet = (bits >> np.uint32(16)) | np.uint32(0x0040)
    return np.where(nan, quiet, rounded).astype(np.uint16)


def from_bits(bits: Any) -> np.ndarray:
    """float32 values of bfloat16 bit patterns (exact); ``ml_dtypes.bfloat16`` data is read
    as its bit patterns."""
    b = np.asarray(bits)
    b = b.view(np.uint16) if is_ml_dtypes_bfloat16(b) else b.astype(np.uint16)
    return (b.astype(np.uint32) << np.uint32(16)).view(np.float32)


def round_values(values: Any) -> np.ndarray:
    """float32 values rounded to bfloat16 precision."""
    return from_bits(to_bits(values))


def round_scalar(value: Any) -> float:
    """A Python number rounded to the nearest bfloat16, as a Python float."""
    return float(from_bits(to_bits(np.float64(float(value))))[()])
