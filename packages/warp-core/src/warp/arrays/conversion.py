"""Converting Python data (lists, tuples, NumPy arrays, array-interface objects) to array storage.

:func:`prepare_data` returns a NumPy array whose dtype is the element's component dtype and whose
shape is the array shape followed by the element's trailing shape (``(n, 3)`` for ``n`` vec3s).
The result aliases the input whenever no conversion is needed, so callers can wrap it zero-copy.
"""

from __future__ import annotations

import math
import struct
from typing import Any, Callable

import numpy as np

from warp.arrays.layout import ElementInfo, element_info, is_generic_dtype, normalize_shape, resolve_dtype
from warp.types import bfloat16_bits
from warp.types.array_type import ARRAY_DESC_FORMAT, MAX_DIMS, ArrayType
from warp.types.scalars import ScalarBase, bfloat16, dtype_from_numpy, is_scalar_type, type_repr


_desc_struct = struct.Struct(ARRAY_DESC_FORMAT)


def is_bfloat16_element(dtype: Any) -> bool:
    """True when ``dtype`` (a scalar or composite type) stores bfloat16 components."""
    return dtype is bfloat16 or getattr(dtype, "_wp_scalar_type_", None) is bfloat16


def bfloat16_storage(arr: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns for NumPy data: ``uint16`` data is taken as bit patterns already
    (what ``array.numpy()`` returns), an ``ml_dtypes.bfloat16`` array is viewed as its bits, and
    any other numeric data is rounded to the nearest bfloat16."""
    if arr.dtype == np.uint16:
        return arr
    if arr.dtype.name == "bfloat16" and arr.dtype.itemsize == 2:
        return arr.view(np.uint16)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"cannot convert data of dtype {arr.dtype} to bfloat16")
    return bfloat16_bits.to_bits(arr)


def _unbox(data: Any) -> Any:
    """Replace boxed warp scalars (``wp.float32(1.0)``) in nested lists by their Python values."""
    if isinstance(data, ScalarBase):
        return data.value
    if isinstance(data, (list, tuple)):
        return [_unbox(x) for x in data]
    return data


def _first_leaf(data: Any) -> Any:
    while isinstance(data, (list, tuple)) and len(data) > 0:
        data = data[0]
    return data


def _sequence_to_numpy(data: Any, dtype: Any) -> tuple[np.ndarray, Any]:
    """Convert a (nested) list/tuple to NumPy, inferring the dtype when it is generic."""
    if is_generic_dtype(dtype):
        leaf = _first_leaf(data)
        arr = np.array(_unbox(data) if isinstance(leaf, ScalarBase) else data)
        if arr.dtype == object:
            raise TypeError("cannot infer an array dtype from the given data; pass dtype=...")
        if isinstance(leaf, ScalarBase):
            dtype = type(leaf)
        else:
            dtype = _dtype_from_numpy_checked(arr.dtype)
        return arr, dtype
    info = element_info(dtype)
    if is_bfloat16_element(dtype):
        try:
            plain = _unbox(data) if isinstance(_first_leaf(data), ScalarBase) else data
            values = np.array(plain, dtype=np.float64)
        except (TypeError, ValueError):
            values = np.array(_unbox(data), dtype=np.float64)
        return bfloat16_bits.to_bits(values), dtype
    if info.np_dtype.fields is not None:
        items = list(data)
        arr = np.empty(len(items), dtype=info.np_dtype)
        for i, item in enumerate(items):
            value = item.numpy_value() if hasattr(item, "numpy_value") else item
            arr[i] = value
        return arr, dtype
    try:
        try:
            arr = np.array(data, dtype=info.np_dtype)
        except (TypeError, ValueError):
            arr = np.array(_unbox(data), dtype=info.np_dtype)
    except OverflowError as exc:  # as NVIDIA Warp (through NumPy): never wrap silently
        raise OverflowError(
            f"cannot store the given values in an array of {type_repr(dtype)}: {exc}"
        ) from None
    return arr, dtype


def _dtype_from_numpy_checked(np_dtype: np.dtype) -> Any:
    try:
        return dtype_from_numpy(np_dtype.newbyteorder("=") if np_dtype.byteorder not in "=|" else np_dtype)
    except TypeError:
        raise TypeError(f"unsupported input data dtype: {np_dtype}") from None


def as_numpy(data: Any) -> np.ndarray | None:
    """``data`` as a NumPy array when it is one or exposes the array protocols, else None."""
    if isinstance(data, np.ndarray):
        return data
    host_copy = getattr(data, "numpy", None)
    if getattr(data, "__cuda_array_interface__", None) is not None and callable(host_copy):
        # device data (a warp array on cuda:N refuses implicit conversion): its explicit host copy
        return np.asarray(host_copy())
    if hasattr(data, "__array_interface__") or hasattr(data, "__array__"):
        return np.asarray(data)
    return _buffer_to_numpy(data)


def _buffer_to_numpy(data: Any) -> np.ndarray | None:
    """``data`` through the buffer protocol (``memoryview``, ``bytearray``, USD's ``Vt`` arrays),
    copied when the buffer is read-only; None for objects without one."""
    if isinstance(data, (str, list, tuple, range)):
        return None
    try:
        view = memoryview(data)
    except TypeError:
        return None
    try:
        arr = np.asarray(view)
    except (TypeError, ValueError) as e:
        raise TypeError(f"cannot create an array from {type(data).__name__}: its buffer ({view.format!r}, "
                        f"shape {view.shape}) has no NumPy equivalent ({e})") from None
    return arr if arr.flags.writeable else arr.copy()


def _fit_shape(arr: np.ndarray, dtype: Any, shape: Any) -> np.ndarray:
    """Reshape ``arr`` to (array shape + element shape); raises ValueError when incompatible."""
    info = element_info(dtype)
    inner = info.inner_shape
    k = len(inner)
    if shape is not None:
        target = normalize_shape(shape) + inner
        if arr.shape != target:
            if arr.size != math.prod(target):
                raise ValueError(
                    f"data of shape {arr.shape} is incompatible with the requested array shape "
                    f"{normalize_shape(shape)} and dtype {type_repr(dtype)}"
                )
            arr = arr.reshape(target)
        return arr
    if k:
        if arr.ndim > k and arr.shape[-k:] == inner:
            pass
        elif arr.shape == inner:
            arr = arr.reshape((1, *inner))
        elif arr.ndim >= 2 and arr.shape[-2:] == (info.inner_size, 1):  # column vectors (..., n, 1)
            arr = arr.reshape((*arr.shape[:-2], *inner))
        elif arr.ndim >= 1 and arr.shape[-1] == info.inner_size:  # one element per row, flattened
            arr = arr.reshape((*arr.shape[:-1], *inner))
        elif arr.ndim >= 1 and arr.shape[-1] % info.inner_size == 0:  # several elements per row
            arr = arr.reshape((*arr.shape[:-1], arr.shape[-1] // info.inner_size, *inner))
        else:
            raise ValueError(
                f"data of shape {arr.shape} is incompatible with dtype {type_repr(dtype)}: "
                f"expected trailing dimensions {inner}"
            )
    outer = arr.ndim - k
    if outer == 0:
        arr = arr.reshape((1, *arr.shape))
    elif outer > MAX_DIMS:
        raise ValueError(
            f"invalid array shape {arr.shape[:outer]}: arrays have 1 to {MAX_DIMS} dimensions, not {outer}"
        )
    return arr


def prepare_data(data: Any, dtype: Any, shape: Any) -> tuple[np.ndarray, Any]:
    """Return ``(arr, dtype)``: NumPy storage for ``data`` (aliasing it when possible) and the dtype.

    ``dtype`` may be generic (``typing.Any``), in which case it is inferred: NumPy arrays keep
    their dtype, Python lists follow NumPy's inference (floats -> float64, ints -> int64).
    """
    dtype = resolve_dtype(dtype)
    arr = as_numpy(data)
    if arr is None:
        if not isinstance(data, (list, tuple, range)):
            raise TypeError(
                f"cannot create an array from {type(data).__name__}: expected a list, tuple, "
                "NumPy array or an object implementing the array interface or the buffer protocol"
            )
        arr, dtype = _sequence_to_numpy(data, dtype)
    elif is_generic_dtype(dtype):
        dtype = _dtype_from_numpy_checked(arr.dtype)
    info = element_info(dtype)
    if is_bfloat16_element(dtype):
        arr = bfloat16_storage(arr)
    elif arr.dtype != info.np_dtype:
        if info.np_dtype.fields is not None and arr.dtype.itemsize == info.np_dtype.itemsize:
            arr = arr.view(info.np_dtype)
        else:
            arr = arr.astype(info.np_dtype)
    return _fit_shape(arr, dtype, shape), dtype


def element_value(dtype: Any, value: Any, owner: Any = None) -> Any:
    """Convert one element read through NumPy to a Python value (scalar, or an instance of dtype).

    A struct element's array fields become arrays (of ``owner``'s class, on its device) viewing
    the memory their stored descriptors point at; without ``owner`` they are left unset."""
    if is_bfloat16_element(dtype):
        value = bfloat16_bits.from_bits(value)
    if is_scalar_type(dtype):
        return value.item()
    if isinstance(value, np.void) and hasattr(dtype, "from_numpy_value"):  # a struct record
        return dtype.from_numpy_value(value, None if owner is None else _field_array_of(owner))
    if isinstance(value, np.ndarray):
        flat = value.reshape(-1).tolist()
        try:
            return dtype(*flat)
        except Exception:
            try:
                return dtype(value)
            except Exception:
                return value.copy()
    return value


def _field_array_of(owner: Any) -> Callable[[ArrayType, bytes], Any]:
    """The struct-record array-field rebuilder for elements read from array ``owner``."""

    def field_array(t: ArrayType, desc: bytes) -> Any:
        ptr, _grad, *dims = _desc_struct.unpack(desc)
        if ptr == 0:
            return None  # the field was unset (None) when the element was stored
        shape, strides = tuple(dims[: t.ndim]), tuple(dims[MAX_DIMS : MAX_DIMS + t.ndim])
        return type(owner)(ptr=ptr, dtype=t.dtype, shape=shape, strides=strides, device=owner.device)

    return field_array


def value_to_numpy(value: Any, info: ElementInfo, dtype: Any = None) -> Any:
    """Convert a Python/warp value to something NumPy can assign into element storage of
    ``dtype`` (bfloat16 elements: rounded bit patterns; ``uint16`` NumPy data is taken as bits)."""
    if is_bfloat16_element(dtype) and _is_float_value(value):
        return bfloat16_bits.to_bits(np.asarray(_unbox(value), dtype=np.float64))
    if isinstance(value, ScalarBase):
        return value.value
    if hasattr(value, "numpy_value"):
        return value.numpy_value()
    if info.np_dtype.fields is not None:
        return value
    values = np.asarray(value, dtype=info.np_dtype)
    if len(info.inner_shape) > 1 and values.shape == (math.prod(info.inner_shape),):
        return values.reshape(info.inner_shape)  # a matrix given by its components in row order
    return values


def _is_float_value(value: Any) -> bool:
    """True for a value to store as bfloat16 bits: numbers, bfloat16 composites, float sequences."""
    if isinstance(value, ScalarBase):
        return True
    if hasattr(value, "numpy_value"):
        return True
    return not isinstance(value, np.ndarray) or value.dtype != np.uint16
