"""The CUDA array interface (version 3) of ``wp.array``: producer and consumer.

Producer: :func:`export_interface` describes an array in CUDA memory (``wp.array`` exposes it
as ``__cuda_array_interface__``; CPU arrays do not have the attribute). Consumer:
:func:`import_interface` reads another framework's ``__cuda_array_interface__`` (CuPy, Numba,
PyTorch CUDA tensors, JAX FFI buffers) for ``wp.array(data)`` and kernel launches.

Streams (version 3's ``"stream"`` entry): warp exports its current stream of the array's device,
so that a consumer can wait for the kernels still writing the array; reading an interface that
names a stream, warp's current stream of the device waits for that stream (an event, no host
synchronization). See :mod:`warp.arrays.stream_sync`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from warp.arrays.layout import (
    contiguous_strides,
    element_info,
    fold_element_dims,
    is_generic_dtype,
    normalize_shape,
    resolve_dtype,
)
from warp.arrays.stream_sync import exported_stream_value, wait_for_producer_stream
from warp.types.scalars import dtype_from_numpy
from warp.runtime.devices import get_device


def export_interface(arr: Any) -> dict[str, Any]:
    """The ``__cuda_array_interface__`` dict of a CUDA array; ``"stream"`` is warp's current stream
    of its device (omitted while the device captures a graph: there is nothing to wait for)."""
    info = element_info(arr.dtype)
    iface = {
        "version": 3,
        "shape": arr.shape + info.inner_shape,
        "strides": arr.strides + info.inner_strides,
        "typestr": info.np_dtype.str,
        "data": (arr.ptr or 0, False),
        "descr": info.np_dtype.descr if info.np_dtype.fields is not None else [("", info.np_dtype.str)],
    }
    stream = exported_stream_value(arr.device)
    if stream is not None:
        iface["stream"] = stream
    return iface


def import_interface(obj: Any, dtype: Any, shape: Any, device: Any
                     ) -> tuple[int, tuple[int, ...], tuple[int, ...], Any, Any]:
    """``(ptr, shape, byte_strides, dtype, device)`` of an object exposing ``__cuda_array_interface__``.

    The data stays where it is: ``device`` must be a CUDA device (default: the current one).
    ``dtype`` may reinterpret trailing dimensions as vector/matrix elements; ``shape`` must match.
    A ``"stream"`` entry makes warp's current stream of ``device`` wait for that stream.
    """
    if device is not None and get_device(device).is_cpu:
        raise ValueError(
            f"{type(obj).__name__} holds CUDA memory (__cuda_array_interface__) and cannot be used on "
            "device 'cpu'; copy it to the host first"
        )
    dev = get_device("cuda" if device is None else device)
    iface = obj.__cuda_array_interface__
    try:
        np_dtype = np.dtype(iface["typestr"])
        data_shape = tuple(int(d) for d in iface["shape"])
        ptr = int(iface["data"][0] or 0)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"invalid __cuda_array_interface__ of {type(obj).__name__}: {exc}") from None
    if iface.get("mask") is not None:
        raise ValueError(f"{type(obj).__name__}: masked CUDA arrays are not supported")
    if len(iface["data"]) > 1 and iface["data"][1]:
        raise BufferError(
            f"{type(obj).__name__} is read-only (__cuda_array_interface__ data flag) and warp arrays are "
            "writable: copy it first"
        )
    scalar = dtype_from_numpy(np_dtype)
    raw_strides = iface.get("strides")
    if raw_strides is None:
        strides = contiguous_strides(data_shape, np_dtype.itemsize)
    else:
        strides = tuple(int(s) for s in raw_strides)
    if not data_shape:
        data_shape, strides = (1,), (np_dtype.itemsize,)
    target = scalar if dtype is None or is_generic_dtype(dtype) else resolve_dtype(dtype)
    what = "__cuda_array_interface__"
    out_shape, out_strides = fold_element_dims(data_shape, strides, scalar, target, what)
    if shape is not None and normalize_shape(shape) != out_shape:
        raise ValueError(f"__cuda_array_interface__ data of shape {out_shape} does not match shape={shape}")
    wait_for_producer_stream(dev, iface.get("stream"), type(obj).__name__)
    return ptr, normalize_shape(out_shape), out_strides, target, dev
