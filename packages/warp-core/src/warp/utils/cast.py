"""``array_cast``: element-wise conversion of one array into another's dtype."""

from __future__ import annotations

import math

import numpy as np

from warp.arrays.array import array
from warp.arrays.conversion import is_bfloat16_element
from warp.types.composite_values import is_composite
from warp.utils import _access
from warp.utils._access import check_same_device


def array_cast(in_array: array, out_array: array, count: int | None = None) -> None:
    """Element-wise conversion of ``in_array`` into ``out_array``'s dtype (C casts: floats to
    integers truncate). Arrays whose dtypes have different component shapes are cast flattened,
    component by component; ``count`` (1-D arrays only) limits the cast to the first ``count``
    input elements.

    On CUDA devices the conversion runs in kernels (warp-builtins), so graph capture records it
    (except for strided views of more than four dimensions counting the components, which are
    staged through the host). Where C leaves a conversion undefined (NaN or out-of-range floats
    to integers, negative floats to unsigned integers) the device saturates (NaN gives 0, others
    the type's limits) and the host gives what NumPy gives.
    """
    check_same_device(in_array, out_array)
    if count is not None and (in_array.ndim > 1 or out_array.ndim > 1):
        raise RuntimeError(
            "array_cast: Partial cast is not supported for arrays with more than one dimension"
        )
    if in_array.ndim == out_array.ndim > 1 and tuple(in_array.shape) != tuple(out_array.shape):
        raise RuntimeError(f"array_cast: Array shapes do not match ({in_array.shape} vs {out_array.shape})")
    n = _cast_components(in_array, out_array, count)
    impl = _access.device_impl(in_array)
    if impl is not None and impl.array_cast(in_array, out_array, n):
        return
    src = _access.read(in_array)
    dst = np.array(_access.read(out_array))
    if is_bfloat16_element(out_array.dtype):  # one rounding to bfloat16 (as the device does)
        dst = dst.astype(np.float64)
    flat_dst = dst.reshape(-1)
    flat_dst[:n] = _cast(src.reshape(-1)[:n], dst.dtype)
    _access.write(out_array, dst)


def _components(a: array) -> int:
    """Scalar components of one element of ``a`` (1 for scalars)."""
    return math.prod(a.dtype._shape_) if is_composite(a.dtype) else 1


def _cast_components(in_array: array, out_array: array, count: int | None) -> int:
    """How many scalar components (row-major) ``array_cast`` converts: all of them, or those of
    the first ``count`` input elements; ``RuntimeError`` when they exceed either array."""
    # counts are in input elements; arrays whose dtypes differ in components are cast flattened
    elements = in_array.size if count is None else count
    per_element = _components(in_array)
    n = elements * per_element
    if elements < 0 or n > in_array.size * per_element or n > out_array.size * _components(out_array):
        raise RuntimeError(
            f"array_cast: Cast count ({elements}) exceeds the input size ({in_array.size}) "
            f"or output size ({out_array.size})"
        )
    return n


def _cast(values: np.ndarray, np_type: np.dtype) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return values.astype(np_type)
