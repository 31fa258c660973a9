"""DLPack import: ``wp.from_dlpack`` wraps any DLPack producer or capsule as a ``wp.array``
(the capsule layout and the export side, ``wp.array.__dlpack__``, are
:mod:`warp.arrays.dlpack_export`).

Imported tensors become arrays that call the producer's deleter when they (and all their views)
are garbage collected; at interpreter exit the producer's memory is left alone.
"""

from __future__ import annotations

import ctypes
import struct
import weakref
from typing import Any

import numpy as np

from warp.arrays.array import array
from warp.arrays.dlpack_export import (
    DLPACK_VERSION,
    FLAG_READ_ONLY,
    KDL_BFLOAT,
    KDL_BOOL,
    KDL_CPU,
    KDL_CUDA,
    KDL_CUDA_HOST,
    KDL_CUDA_MANAGED,
    KDL_FLOAT,
    KDL_INT,
    KDL_UINT,
    KINDS,
    LEGACY_TAIL,
    TENSOR,
    VERSIONED_HEAD,
    CapsuleGetName,
    CapsuleGetPointer,
    CapsuleSetName,
    DeleterFn,
    dlpack_method,
    is_capsule,
)
from warp.arrays.dlpack_native import native
from warp.arrays.layout import contiguous_strides, fold_element_dims, resolve_dtype
from warp.arrays.stream_sync import consumer_stream_value
from warp.runtime.devices import get_device
from warp.types.scalars import bfloat16, dtype_from_numpy


# -- import ------------------------------------------------------------------------------------


def _release_imported(deleter: int, managed: int) -> None:
    DeleterFn(deleter)(managed)


def _capsule_from(source: Any) -> Any:
    if is_capsule(source):
        return source
    method = getattr(source, "__dlpack__", None)
    if method is None:
        raise TypeError(
            "from_dlpack: expected an object implementing __dlpack__ or a DLPack capsule, "
            f"got {type(source).__name__}"
        )
    kwargs: dict[str, Any] = {}
    device = getattr(source, "__dlpack_device__", None)
    if device is not None:
        dev_type, dev_id = device()
        if int(dev_type) not in (KDL_CPU, KDL_CUDA_HOST, KDL_CUDA, KDL_CUDA_MANAGED):
            raise TypeError(
                f"from_dlpack: Unsupported source device for DLPack: device_type={int(dev_type)}, "
                f"device_id={int(dev_id)} (only CPU and CUDA memory can be wrapped)"
            )
        if int(dev_type) == KDL_CUDA:  # the producer orders warp's stream after its own work
            kwargs["stream"] = consumer_stream_value(get_device(f"cuda:{int(dev_id)}"))
    try:
        capsule = method(max_version=DLPACK_VERSION, **kwargs)
    except TypeError:  # a producer implementing the protocol before DLPack 1.0
        capsule = method(**kwargs)
    if not is_capsule(capsule):
        raise TypeError(
            f"from_dlpack: Expected a valid DLPack capsule, got {type(capsule).__name__} from "
            f"{type(source).__name__}.__dlpack__()"
        )
    return capsule


def _device_from_dl(device_type: int, device_id: int) -> Any:
    if device_type in (KDL_CPU, KDL_CUDA_HOST):
        return get_device("cpu")
    if device_type in (KDL_CUDA, KDL_CUDA_MANAGED):
        return get_device(f"cuda:{device_id}")
    raise BufferError(f"from_dlpack: DLPack device type {device_type} is not supported (only CPU and CUDA)")


def _dl_type_name(code: int, bits: int) -> str:
    """A DLPack data type as DLPack spells it ("float32", "bool8", "bfloat16")."""
    names = {KDL_INT: "int", KDL_UINT: "uint", KDL_FLOAT: "float", KDL_BOOL: "bool", KDL_BFLOAT: "bfloat"}
    return f"{names.get(code, f'code{code}_')}{bits}"


def _scalar_dtype(code: int, bits: int, lanes: int) -> Any:
    if code == KDL_BFLOAT and bits == 16 and lanes == 1:
        return bfloat16
    kind = KINDS.get(code)
    if kind is None or lanes != 1:
        what = f"type code {code} with {bits} bits x {lanes} lanes"
        raise TypeError(f"from_dlpack: DLPack data type {what} has no matching warp type")
    try:
        return dtype_from_numpy(np.dtype(f"{kind}{bits // 8}") if kind != "b" else np.dtype(bool))
    except TypeError:
        raise TypeError(f"from_dlpack: DLPack data type {kind}{bits} has no matching warp type") from None


def import_capsule(capsule: Any, dtype: Any = None) -> Any:
    """A ``wp.array`` aliasing the memory of a DLPack capsule (which is marked as consumed)."""
    name = CapsuleGetName(capsule)
    if name in (b"used_dltensor", b"used_dltensor_versioned"):
        raise BufferError("from_dlpack: this DLPack capsule was already consumed")
    if name not in (b"dltensor", b"dltensor_versioned"):
        raise TypeError(f"from_dlpack: expected a DLPack capsule, got a capsule named {name!r}")
    versioned = name == b"dltensor_versioned"
    managed = CapsuleGetPointer(capsule, name)
    if versioned:
        head = ctypes.string_at(managed, VERSIONED_HEAD.size)
        major, _minor, _ctx, deleter, flags = VERSIONED_HEAD.unpack(head)
        if major != 1:
            raise BufferError(f"from_dlpack: DLPack major version {major} is not supported (expected 1)")
        if flags & FLAG_READ_ONLY:
            # kernels may write to any array: aliasing read-only memory would let them corrupt
            # immutable objects or fault on a read-only mapping (the capsule stays unconsumed)
            raise BufferError(
                "from_dlpack: the DLPack tensor is read-only and warp arrays are writable; "
                "pass a writable copy (e.g. numpy.array(x))"
            )
        tensor_at = managed + VERSIONED_HEAD.size
    else:
        tensor_at = managed
        deleter = LEGACY_TAIL.unpack(ctypes.string_at(managed + TENSOR.size, LEGACY_TAIL.size))[1]
    (data, dev_type, dev_id, ndim, code, bits, lanes, shape_at, strides_at, offset) = TENSOR.unpack(
        ctypes.string_at(tensor_at, TENSOR.size)
    )
    device = _device_from_dl(dev_type, dev_id)
    scalar = _scalar_dtype(code, bits, lanes)
    shape = struct.unpack(f"<{ndim}q", ctypes.string_at(shape_at, 8 * ndim)) if ndim else ()
    comp = np.dtype(scalar._np_dtype_).itemsize
    if strides_at and ndim:
        raw_strides = struct.unpack(f"<{ndim}q", ctypes.string_at(strides_at, 8 * ndim))
        byte_strides = tuple(s * comp for s in raw_strides)
    else:
        byte_strides = contiguous_strides(shape, comp)
    if ndim == 0:
        shape, byte_strides = (1,), (comp,)
    target = scalar if dtype is None else resolve_dtype(dtype)
    shape, byte_strides = fold_element_dims(
        shape, byte_strides, scalar, target, "from_dlpack", source=f"DLPack {_dl_type_name(code, bits)}"
    )
    # Consume the capsule only once the tensor is known to be usable.
    fns = native()
    CapsuleSetName(capsule, fns.name_used_versioned if versioned else fns.name_used)
    try:
        result = array(ptr=data + offset, dtype=target, shape=shape, strides=byte_strides, device=device)
    except BaseException:
        if deleter:
            _release_imported(deleter, managed)
        raise
    if deleter:
        finalizer = weakref.finalize(result, _release_imported, deleter, managed)
        finalizer.atexit = False  # at exit the producer reclaims its own memory
    return result


def from_dlpack(source: Any, dtype: Any = None) -> Any:
    """Wrap a DLPack producer (an object with ``__dlpack__``) or a DLPack capsule as a ``wp.array``.

    No data is copied. ``dtype`` may reinterpret trailing dimensions as vector/matrix elements.
    A read-only tensor (DLPack's read-only flag: a read-only NumPy array or memmap, ``bytes``)
    raises ``BufferError``.
    """
    return import_capsule(_capsule_from(source), dtype)


def to_dlpack(a: Any) -> Any:
    """A DLPack capsule (``"dltensor"``, readable by any DLPack consumer) viewing ``a``'s memory."""
    if not isinstance(a, array):
        raise TypeError(f"to_dlpack expects a warp array, got {type(a).__name__}")
    return dlpack_method(a)
