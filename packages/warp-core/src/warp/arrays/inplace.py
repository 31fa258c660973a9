"""In-place operations on an array's elements: ``zero_``, ``fill_`` and ``assign``.

The functions take the array (``wp.array``); its methods of the same names delegate here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from warp.arrays.capture_guard import refuse_while_capturing
from warp.arrays.copying import copy_elements
from warp.arrays.conversion import is_bfloat16_element, prepare_data, value_to_numpy
from warp.plugins.manager import get_plugin_manager
from warp.targets import get_target
from warp.types import bfloat16_bits
from warp.types.scalars import type_repr

if TYPE_CHECKING:
    from warp.arrays.array import array


class _Interface:
    """Minimal holder exposing an ``__array_interface__`` dict and keeping its owner alive."""

    def __init__(self, iface: dict[str, Any], owner: Any) -> None:
        self.__array_interface__ = iface
        self._owner = owner


def _is_array_class(value: Any) -> bool:
    """Whether ``value`` is an instance of an array class (annotations included)."""
    return bool(getattr(type(value), "_wp_array_class_", False))


def host_values_of(dest: array, src: array) -> np.ndarray:
    """``src``'s data on the host, ready to store into ``dest``'s storage: raw when both or
    neither hold bfloat16, else converted through float32 values."""
    src_bf16, dest_bf16 = is_bfloat16_element(src.dtype), is_bfloat16_element(dest._dtype)
    if src_bf16 == dest_bf16:
        return src._storage()
    values = src._values()
    return bfloat16_bits.to_bits(values) if dest_bf16 else values


def zero(arr: array) -> None:
    """Set every element of ``arr`` to zero."""
    arr._check_concrete("zero_()")
    if arr._size == 0:
        return
    if arr._is_contiguous:
        nbytes = arr._size * arr._info.itemsize
        get_target(arr._device).memset(arr._device, arr._ptr, 0, nbytes, keep=arr)
        return
    pattern = bytes(arr._info.itemsize)
    target = get_target(arr._device)
    if target.fill_strided(arr._device, arr._ptr, pattern, arr._shape, arr._strides, keep=arr):
        return
    refuse_while_capturing(arr._device, "zero_() of a non-contiguous array")
    if not arr._device.is_cpu:
        host = arr._storage()
        host[...] = 0
        arr._upload(host)
    else:
        raw = {"version": 3, "shape": arr._shape + (arr._info.itemsize,), "typestr": "|u1",
               "strides": arr._strides + (1,), "data": (arr._ptr, False)}
        np.asarray(_Interface(raw, arr))[...] = 0


def fill(arr: array, value: Any) -> None:
    """Set every element of ``arr`` to ``value`` (a scalar, or a vector/matrix/struct value)."""
    arr._check_concrete("fill_()")
    if arr._size == 0:
        return
    info = arr._info
    target = get_target(arr._device)
    try:
        element = np.zeros((1, *info.inner_shape), dtype=info.np_dtype)
        element[0] = value_to_numpy(value, info, arr._dtype)
        if not arr._is_contiguous:
            pattern = element.tobytes()
            if target.fill_strided(arr._device, arr._ptr, pattern, arr._shape, arr._strides, keep=arr):
                return
            refuse_while_capturing(arr._device, "fill_() of a non-contiguous array")
            host = arr._storage()
            host[...] = element[0]
            if not arr._device.is_cpu:
                arr._upload(host)
            return
    except (ValueError, TypeError) as e:
        raise ValueError(
            f"cannot fill an array of dtype {type_repr(arr._dtype)} with {value!r}: {e}"
        ) from None
    target.fill(arr._device, arr._ptr, element.tobytes(), arr._size, keep=arr)


def assign(arr: array, src: Any) -> None:
    """Copy values into ``arr`` from an array, NumPy array or list with the same shape (or element count)."""
    arr._check_concrete("assign()")
    src_is_array = _is_array_class(src)
    if src_is_array and src.size == arr._size and arr._size and src.device is not None:
        if (arr._is_contiguous and src.is_contiguous) or src.shape == arr._shape:
            # wp.copy: a device copy where it can be (graph captures record it), differentiated
            # by a recording wp.Tape
            copy_elements(arr, src)
            return
        # a copy between arrays: a recording wp.Tape differentiates it (as wp.copy)
        get_plugin_manager().hook.warp_array_copied(
            dest=arr, src=src, dest_offset=0, src_offset=0, count=arr._size
        )
    if arr._device.is_cpu:
        target = arr._storage()
    else:
        # every element is overwritten: fill a host buffer and upload it (the old values are not
        # read back, which a graph capture could not do)
        target = np.empty(arr._shape + arr._info.inner_shape, dtype=arr._info.np_dtype)
    if src_is_array:
        values = host_values_of(arr, src)
    else:
        values, _ = prepare_data(src, arr._dtype, None)
    if values.shape != target.shape:
        if values.size != target.size:
            src_shape = src.shape if src_is_array else values.shape
            raise ValueError(f"assign: shape mismatch, destination has shape {arr._shape} "
                             f"but source has shape {src_shape}")
        values = values.reshape(target.shape)
    target[...] = values
    if not arr._device.is_cpu:
        arr._upload(target)
