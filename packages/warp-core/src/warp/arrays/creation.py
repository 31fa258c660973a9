"""Array constructors (``zeros``, ``full``, ``empty``, ...), ``copy``/``clone`` and NumPy wrapping."""

from __future__ import annotations

from typing import Any

import numpy as np

from warp.arrays.array import array
from warp.arrays.conversion import as_numpy
from warp.arrays.copying import copy_elements, copy_indexed
from warp.arrays.indexed import indexedarray
from warp.arrays.ipc import open_ipc_memory
from warp.arrays.layout import infer_scalar_dtype, normalize_shape, resolve_dtype
from warp.plugins.manager import get_plugin_manager
from warp.runtime.devices import get_device
from warp.types.scalars import dtype_from_numpy
from warp import types as wp_types


def _new(shape: Any, dtype: Any, device: Any, requires_grad: bool, zero: bool, pinned: bool = False,
         retain_grad: bool = False, strides: Any = None) -> array:
    if retain_grad and not requires_grad:
        raise ValueError("retain_grad=True needs requires_grad=True (the array has no gradient to retain)")
    a = array.__new__(array)
    a._grad = None
    a._requires_grad = False
    a._init_new(resolve_dtype(dtype), normalize_shape(shape), get_device(device), zero=zero, pinned=pinned,
                strides=strides)
    if requires_grad:
        a._alloc_grad()
        a._retain_grad = bool(retain_grad)
    a._update_desc()
    return a


def _legacy_shape(shape: Any, n: int | None, length: int | None) -> Any:
    """``shape``, or the length given by the older ``n=``/``length=`` keywords."""
    if n is None and length is None:
        return 0 if shape is None else shape
    if shape is None or (isinstance(shape, int) and shape == 0):
        return n if n is not None else length
    raise TypeError(
        f"pass either shape or n/length, not both (got shape={shape!r}, n={n!r}, length={length!r})"
    )


def empty(shape: Any = 0, dtype: Any = float, device: Any = None, requires_grad: bool = False,
          pinned: bool = False, retain_grad: bool = False, n: int | None = None,
          length: int | None = None, strides: Any = None) -> array:
    """An uninitialized array (``pinned``: page-locked host memory, with CUDA present;
    ``n``/``length``: the older spelling of a 1-d ``shape``; ``strides``: a byte layout of
    one's own, e.g. transposed)."""
    return _new(_legacy_shape(shape, n, length), dtype, device, requires_grad, zero=False, pinned=pinned,
                retain_grad=retain_grad, strides=strides)


def zeros(shape: Any = 0, dtype: Any = float, device: Any = None, requires_grad: bool = False,
          pinned: bool = False, retain_grad: bool = False, n: int | None = None,
          length: int | None = None, strides: Any = None) -> array:
    """A zero-initialized array (``pinned``: page-locked host memory, with CUDA present;
    ``n``/``length``: the older spelling of a 1-d ``shape``; ``strides``: a byte layout of
    one's own, e.g. transposed)."""
    return _new(_legacy_shape(shape, n, length), dtype, device, requires_grad, zero=True, pinned=pinned,
                retain_grad=retain_grad, strides=strides)


def _infer_fill_dtype(value: Any) -> Any:
    dtype = infer_scalar_dtype(value)
    if dtype is not None:
        return dtype
    if hasattr(type(value), "_shape_") or hasattr(type(value), "_size_in_bytes_"):
        return type(value)
    values = np.asarray(value)
    if values.dtype == object or values.ndim not in (1, 2):
        raise TypeError(f"cannot infer an array dtype from fill value {value!r}; pass dtype=...")
    scalar = dtype_from_numpy(values.dtype)
    if values.dtype.kind == "f" and values.dtype.itemsize == 8 and not isinstance(value, np.ndarray):
        scalar = resolve_dtype(float)
    elif values.dtype.kind == "i" and not isinstance(value, np.ndarray):
        scalar = resolve_dtype(int)
    try:
        if values.ndim == 1:
            return wp_types.vector(length=values.shape[0], dtype=scalar)  # type: ignore[attr-defined]
        return wp_types.matrix(shape=values.shape, dtype=scalar)  # type: ignore[attr-defined]
    except (ImportError, AttributeError):
        raise TypeError(f"cannot infer an array dtype from fill value {value!r}; pass dtype=...") from None


def full(shape: Any = 0, value: Any = 0, dtype: Any = None, device: Any = None, requires_grad: bool = False,
         pinned: bool = False, retain_grad: bool = False) -> array:
    """An array with every element set to ``value`` (dtype inferred from it when not given)."""
    if dtype is None:
        dtype = _infer_fill_dtype(value)
    a = _new(shape, dtype, device, requires_grad, zero=False, pinned=pinned, retain_grad=retain_grad)
    a.fill_(value)
    return a


def ones(shape: Any = 0, dtype: Any = float, device: Any = None, requires_grad: bool = False,
         pinned: bool = False, retain_grad: bool = False) -> array:
    """An array of ones (every component of composite elements is 1)."""
    return full(shape, 1, dtype, device, requires_grad, pinned, retain_grad)


def _like(src: array, device: Any, requires_grad: bool | None) -> tuple[Any, bool]:
    if isinstance(src, indexedarray) and src.data is not None:  # an array of its shape and dtype
        return src.device if device is None else device, bool(requires_grad)
    if not isinstance(src, array) or src._is_annotation:
        raise TypeError(f"expected a warp array, got {type(src).__name__}")
    device = src.device if device is None else device
    return device, src.requires_grad if requires_grad is None else requires_grad


def _pinned_like(src: Any, pinned: bool | None) -> bool:
    """``pinned`` if given, else whether ``src`` is in pinned host memory (only host arrays are)."""
    return bool(getattr(src, "pinned", False)) if pinned is None else bool(pinned)


def empty_like(src: array, device: Any = None, requires_grad: bool | None = None,
               pinned: bool | None = None) -> array:
    """An uninitialized array with the shape and dtype of ``src`` (``pinned``: page-locked host
    memory for a CPU result; None: as ``src``)."""
    device, requires_grad = _like(src, device, requires_grad)
    return empty(src.shape, src.dtype, device, requires_grad, pinned=_pinned_like(src, pinned))


def zeros_like(src: array, device: Any = None, requires_grad: bool | None = None,
               pinned: bool | None = None) -> array:
    """A zeroed array with the shape and dtype of ``src`` (``pinned`` as for :func:`empty_like`)."""
    device, requires_grad = _like(src, device, requires_grad)
    return zeros(src.shape, src.dtype, device, requires_grad, pinned=_pinned_like(src, pinned))


def ones_like(src: array, device: Any = None, requires_grad: bool | None = None,
              pinned: bool | None = None) -> array:
    """An array of ones with the shape and dtype of ``src`` (``pinned`` as for :func:`empty_like`)."""
    device, requires_grad = _like(src, device, requires_grad)
    return ones(src.shape, src.dtype, device, requires_grad, pinned=_pinned_like(src, pinned))


def full_like(src: array, value: Any, device: Any = None, requires_grad: bool | None = None,
              pinned: bool | None = None) -> array:
    """An array with the shape and dtype of ``src`` filled with ``value`` (``pinned`` as for
    :func:`empty_like`)."""
    device, requires_grad = _like(src, device, requires_grad)
    return full(src.shape, value, src.dtype, device, requires_grad, pinned=_pinned_like(src, pinned))


def clone(
    src: array, device: Any = None, requires_grad: bool | None = None, pinned: bool | None = None
) -> array:
    """A contiguous copy of ``src`` (on ``device``, default ``src.device``; ``pinned`` as for
    :func:`empty_like`)."""
    device, requires_grad = _like(src, device, requires_grad)
    pinned = _pinned_like(src, pinned)
    if isinstance(src, indexedarray):
        dest = empty(src.shape, src.dtype, device, requires_grad, pinned=pinned)
        copy_indexed(dest, src)
        return dest
    return src._clone(device, requires_grad, pinned=pinned)


def _check_array(a: Any, name: str) -> None:
    if not isinstance(a, array) or a._is_annotation:
        raise TypeError(f"copy: {name} must be a warp array, got {type(a).__name__}")


def copy(
    dest: array, src: array, dest_offset: int = 0, src_offset: int = 0, count: int = 0, stream: Any = None
) -> None:
    """Copy ``count`` elements (all of ``src`` from ``src_offset`` when 0) between arrays.

    Offsets and counts are in elements: of the flattened arrays when both are contiguous, of the
    arrays themselves when one is a non-contiguous 1-d view (``a[::2]``). Non-contiguous arrays of
    more dimensions are copied whole and must have the same shape. On a recording ``wp.Tape`` the
    copy is differentiable (the destination window's gradient moves to the source window).

    ``stream``: the ``wp.Stream`` (of the CUDA device involved) a copy to or from CUDA memory is
    issued on; None uses that device's current stream. A copy to host memory is complete on return.
    """
    if isinstance(dest, indexedarray) or isinstance(src, indexedarray):
        for a, name in ((dest, "dest"), (src, "src")):
            if not isinstance(a, indexedarray):
                _check_array(a, name)
            elif a.data is None:
                raise TypeError(f"copy: {name} is an indexedarray type description without data")
        copy_indexed(dest, src, dest_offset, src_offset, count)
        return
    _check_array(dest, "dest")
    _check_array(src, "src")
    copy_elements(dest, src, dest_offset, src_offset, count, stream=stream)


def from_ipc_handle(handle: bytes, dtype: Any, shape: Any, strides: Any = None, device: Any = None) -> array:
    """An array over another process's CUDA memory (``handle`` from its ``array.ipc_handle()``),
    mapped on ``device`` until the array is collected."""
    ptr, dev, deleter = open_ipc_memory(handle, device)
    return array(
        ptr=ptr, dtype=resolve_dtype(dtype), shape=shape, strides=strides, device=dev, deleter=deleter
    )


def from_numpy(arr: np.ndarray, dtype: Any = None, shape: Any = None, device: Any = None,
               requires_grad: bool = False) -> array:
    """A warp array copied from a NumPy array.

    Without ``dtype``, 2-D arrays become arrays of vectors and 3-D arrays arrays of matrices when
    the composite types are available (``warp.types.vector``/``matrix``); otherwise the scalar type.
    """
    arr = np.asarray(arr)
    if dtype is None:
        scalar = dtype_from_numpy(arr.dtype)
        dtype = scalar
        if shape is None and arr.ndim in (2, 3):
            try:
                if arr.ndim == 2:
                    dtype = wp_types.vector(length=arr.shape[1], dtype=scalar)  # type: ignore[attr-defined]
                else:
                    dtype = wp_types.matrix(shape=arr.shape[1:], dtype=scalar)  # type: ignore[attr-defined]
            except (ImportError, AttributeError):
                dtype = scalar
    return array(arr, dtype=dtype, shape=shape, device=device, requires_grad=requires_grad)


def as_array(obj: Any, dtype: Any = None, device: Any = None) -> array:
    """``obj`` as a warp array: itself if it is one, what a ``warp_convert_array`` plugin makes of
    it, a zero-copy wrapper of NumPy/array-interface data when possible, else a copy."""
    if isinstance(obj, array):
        return obj
    converted = get_plugin_manager().hook.warp_convert_array(obj=obj, dtype=dtype, device=device)
    if converted is not None:  # a plugin knows this kind of object (a framework tensor, ...)
        return converted
    arr = as_numpy(obj)
    if arr is not None:
        return array(arr, dtype=Any if dtype is None else dtype, copy=False, device=device)
    return array(obj, dtype=Any if dtype is None else dtype, device=device)


__all__ = [
    "as_array",
    "clone",
    "copy",
    "empty",
    "empty_like",
    "from_ipc_handle",
    "from_numpy",
    "full",
    "full_like",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
]
