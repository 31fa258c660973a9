"""How NumPy sees an array: the host array interface and ``__array__`` conversion.

The functions take the array (``wp.array``); its ``__array_interface__`` and ``__array__``
delegate here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from warp.arrays.array import array


def host_interface(arr: array) -> dict[str, Any]:
    """NumPy array interface (version 3) over a CPU array's memory; AttributeError otherwise."""
    if arr._is_annotation or not arr._device.is_cpu:
        raise AttributeError("__array_interface__ is only available for CPU arrays")
    info = arr._info
    iface: dict[str, Any] = {
        "version": 3,
        "shape": arr._shape + info.inner_shape,
        "strides": arr._strides + info.inner_strides,
        "typestr": info.np_dtype.str,
        "data": (arr._ptr, False),
    }
    if info.np_dtype.fields is not None:
        iface["descr"] = info.np_dtype.descr
    return iface


def as_numpy(arr: array, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
    """``arr`` as a NumPy array of ``dtype`` (default: its own): a zero-copy view of a CPU array
    unless ``copy`` or a conversion asks for a copy (refused when ``copy`` is False).
    ``TypeError`` for arrays on other devices (``array.numpy()`` copies them explicitly)."""
    arr._check_concrete("__array__")
    if not arr._device.is_cpu:
        # a device array would be downloaded silently (and synchronously) at each conversion
        raise TypeError(
            f"implicit NumPy conversion of an array on device '{arr._device}' is not supported "
            "(it would copy the data to the host silently); call array.numpy() for a host copy"
        )
    view = arr._storage()
    if dtype is not None and np.dtype(dtype) != view.dtype:
        if copy is False:
            raise ValueError(
                f"cannot convert an array of {view.dtype} to {np.dtype(dtype)} without a copy"
            )
        return view.astype(dtype)
    return view.copy() if copy else view
