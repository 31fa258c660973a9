"""``array_scan``: inclusive or exclusive prefix sums of scalars or vectors."""

from __future__ import annotations

from typing import Any

import numpy as np

from warp.arrays.array import array
from warp.types.composite_values import is_composite
from warp.types.helpers import types_equal
from warp.types.scalars import float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64
from warp.utils import _access
from warp.utils._access import check_same_device, scalar_type

#: component types ``array_scan`` sums (scalars, or vectors of them)
_SCAN_COMPONENTS = (int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64)


def _scannable(dtype: Any) -> bool:
    if is_composite(dtype):
        return len(dtype._shape_) == 1 and dtype._wp_scalar_type_ in _SCAN_COMPONENTS
    return dtype in _SCAN_COMPONENTS


def array_scan(in_array: array, out_array: array, inclusive: bool = True) -> None:
    """Prefix sum of an array into ``out_array`` in row-major order (inclusive:
    ``out[i] = in[0] + ... + in[i]``; exclusive: ``out[0] = 0``, ``out[i] = in[0] + ... + in[i-1]``).

    Elements are integer or float32/float64 scalars or vectors of them (vectors are summed
    component-wise); strided views are read and written through their strides.
    """
    check_same_device(in_array, out_array)
    if not types_equal(in_array.dtype, out_array.dtype):
        raise RuntimeError(
            "array_scan: In and out array data types do not match "
            f"({in_array.dtype.__name__} vs {out_array.dtype.__name__})"
        )
    dtype = in_array.dtype
    if not _scannable(dtype):
        raise RuntimeError(f"array_scan: Unsupported data type: {dtype.__name__}")
    if in_array.size != out_array.size:
        raise RuntimeError(
            f"array_scan: In and out array storage sizes do not match ({in_array.size} vs {out_array.size})"
        )
    impl = _access.device_impl(in_array)
    if impl is not None and impl.array_scan(in_array, out_array, inclusive):
        return
    np_type = scalar_type(dtype)._np_dtype_
    inner = tuple(dtype._shape_) if is_composite(dtype) else ()
    data = _access.read(in_array).reshape((-1, *inner))
    result = np.cumsum(data, axis=0, dtype=np_type)
    if not inclusive and result.shape[0]:
        result = np.concatenate([np.zeros((1, *inner), dtype=np_type), result[:-1]])
    _access.write(out_array, result.reshape(tuple(out_array.shape) + inner))
