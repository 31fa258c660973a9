"""Host staging of arrays outside host memory: copying a device array's elements to and from NumPy.

The functions take the array (``wp.array``) and read its layout attributes; ``array._download``
and ``array._upload`` delegate here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from warp.arrays.capture_guard import refuse_host_read_while_capturing
from warp.runtime.devices import get_device
from warp.targets import get_target

if TYPE_CHECKING:
    from warp.arrays.array import array


def byte_span(arr: array) -> tuple[int, int]:
    """(byte offset from ``ptr`` of the lowest element, bytes up to the end of the highest)."""
    itemsize = arr._info.itemsize
    low = sum(min(0, (n - 1) * s) for n, s in zip(arr._shape, arr._strides))
    high = sum(max(0, (n - 1) * s) for n, s in zip(arr._shape, arr._strides))
    return low, high - low + itemsize


def host_view(arr: array, buffer: np.ndarray, low: int) -> np.ndarray:
    """A NumPy view of ``arr``'s elements inside ``buffer``, a host copy of its byte span starting
    ``low`` bytes from ``ptr``."""
    info = arr._info
    return np.ndarray(arr._shape + info.inner_shape, dtype=info.np_dtype, buffer=buffer, offset=-low,
                      strides=arr._strides + info.inner_strides)


def download(arr: array) -> np.ndarray:
    """A host copy of a device array's elements (same strides inside a copied span), after all
    the work issued to the device's blocking streams (``array.numpy()``)."""
    if arr._size == 0:
        return np.zeros(arr._shape + arr._info.inner_shape, dtype=arr._info.np_dtype)
    refuse_host_read_while_capturing(arr._device, "a host copy of a device array (.numpy(), .list(), ...)")
    target = get_target(arr._device)
    low, nbytes = byte_span(arr)
    host = np.empty(nbytes, dtype=np.uint8)
    cpu = get_device("cpu")
    # on the device's legacy default stream (if it has one), which waits for the work of all its
    # blocking streams: the values are those every stream issued so far has written
    target.copy(host.ctypes.data, cpu, arr._ptr + low, arr._device, nbytes, stream=arr._device.null_stream)
    view = host_view(arr, host, low)
    return view if arr._is_contiguous else np.ascontiguousarray(view)


def upload(arr: array, values: np.ndarray) -> None:
    """Write host ``values`` (``arr``'s shape) into a device array's elements."""
    if arr._size == 0:
        return
    cpu = get_device("cpu")
    target = get_target(arr._device)
    if arr._is_contiguous:
        staged = np.ascontiguousarray(values, dtype=arr._info.np_dtype)
        # keep: a graph capture records a copy that reads ``staged`` again on every replay
        target.copy(arr._ptr, arr._device, staged.ctypes.data, cpu, staged.nbytes, keep=staged)
        return
    # strided: read the whole span (gaps keep their contents), update the elements, write back
    refuse_host_read_while_capturing(arr._device, "writing host values into a non-contiguous device array")
    low, nbytes = byte_span(arr)
    host = np.empty(nbytes, dtype=np.uint8)
    target.copy(host.ctypes.data, cpu, arr._ptr + low, arr._device, nbytes)
    host_view(arr, host, low)[...] = values
    target.copy(arr._ptr + low, arr._device, host.ctypes.data, cpu, nbytes)
