"""DLPack export: the capsule layout and ``wp.array.__dlpack__`` (the import side, which makes
arrays, is :mod:`warp.arrays.dlpack`). Export reads only an array's fields, so the array class
builds on this module.

Layouts (DLPack 1.1, ``dlpack.h``), all little-endian 64-bit:

* ``DLTensor`` (48 bytes): ``data`` ptr, ``device`` {int32 type, int32 id}, int32 ``ndim``,
  ``dtype`` {uint8 code, uint8 bits, uint16 lanes}, int64* ``shape``, int64* ``strides``
  (in elements, may be NULL for row-major), uint64 ``byte_offset``;
* ``DLManagedTensor`` (capsule ``"dltensor"``): DLTensor, ``manager_ctx``, ``deleter``;
* ``DLManagedTensorVersioned`` (capsule ``"dltensor_versioned"``): {uint32 major, uint32 minor},
  ``manager_ctx``, ``deleter``, uint64 ``flags``, DLTensor.

Exported tensors are one ``malloc`` block (struct, then shape and strides) whose ``manager_ctx``
holds a strong reference to the array; the native deleters of :mod:`warp.arrays.dlpack_native`
release it. Imported tensors become arrays that call the producer's deleter when they (and all
their views) are garbage collected; at interpreter exit the producer's memory is left alone.
Vector/matrix elements are exported as trailing dimensions of their scalar type.
"""

from __future__ import annotations

import ctypes
import struct
from typing import Any

import numpy as np

from warp.arrays.layout import element_info
from warp.types.scalars import bfloat16
from warp.arrays.dlpack_native import native
from warp.arrays.stream_sync import dlpack_stream_arg, order_consumer_stream

#: DLDeviceType codes
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13
#: DLDataTypeCode codes
KDL_INT, KDL_UINT, KDL_FLOAT, KDL_BFLOAT, KDL_BOOL = 0, 1, 2, 4, 6
#: The DLPack version warp produces (and the newest it understands).
DLPACK_VERSION = (1, 1)
#: DLManagedTensorVersioned flag bits
FLAG_READ_ONLY, FLAG_IS_COPIED = 1, 2

TENSOR = struct.Struct("<Qiii BBH QQQ")  # DLTensor (48 bytes)
LEGACY_TAIL = struct.Struct("<QQ")  # manager_ctx, deleter
VERSIONED_HEAD = struct.Struct("<IIQQQ")  # version, manager_ctx, deleter, flags
_LEGACY_SIZE = TENSOR.size + LEGACY_TAIL.size  # 64
_VERSIONED_SIZE = VERSIONED_HEAD.size + TENSOR.size  # 80

_CODES = {"i": KDL_INT, "u": KDL_UINT, "f": KDL_FLOAT, "b": KDL_BOOL}
KINDS = {KDL_INT: "i", KDL_UINT: "u", KDL_FLOAT: "f", KDL_BOOL: "b"}



def _capi(name: str, restype: Any, *argtypes: Any) -> Any:
    """A private prototype of a Python C API function (other libraries reassign the argtypes of
    the shared ``ctypes.pythonapi`` attributes, e.g. ``jax.ffi.pycapsule``)."""
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


_CapsuleNew = _capi("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
CapsuleGetName = _capi("PyCapsule_GetName", ctypes.c_char_p, ctypes.py_object)
CapsuleGetPointer = _capi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)
CapsuleSetName = _capi("PyCapsule_SetName", ctypes.c_int, ctypes.py_object, ctypes.c_void_p)
_IncRef = _capi("Py_IncRef", None, ctypes.py_object)
_libc = ctypes.CDLL(None)
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]
DeleterFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def is_capsule(obj: Any) -> bool:
    """True for a PyCapsule object (of any name)."""
    return type(obj).__name__ == "PyCapsule"


# -- export ------------------------------------------------------------------------------------


def dl_device_of(device: Any) -> tuple[int, int]:
    """The DLPack ``(device_type, device_id)`` of a warp device."""
    if device.is_cpu:
        return (KDL_CPU, 0)
    return (KDL_CUDA, device.ordinal)


def _dl_dtype(np_dtype: np.dtype, what: str) -> tuple[int, int]:
    code = _CODES.get(np_dtype.kind)
    if code is None or np_dtype.fields is not None:
        raise BufferError(f"{what}: arrays of {np_dtype} elements cannot be exported through DLPack")
    return code, np_dtype.itemsize * 8


def export_capsule(arr: Any, *, versioned: bool, version: tuple[int, int] = DLPACK_VERSION,
                   copied: bool = False) -> Any:
    """A DLPack capsule viewing ``arr``'s memory; the capsule keeps ``arr`` alive until released."""
    fns = native()
    info = element_info(arr.dtype)
    if getattr(arr.dtype, "_wp_scalar_type_", arr.dtype) is bfloat16:
        code, bits = KDL_BFLOAT, 16  # stored as its 16-bit pattern (NumPy sees uint16)
    else:
        code, bits = _dl_dtype(info.np_dtype, "__dlpack__")
    shape = arr.shape + info.inner_shape
    byte_strides = arr.strides + info.inner_strides
    comp = info.np_dtype.itemsize
    if any(s % comp for s in byte_strides):
        raise BufferError("__dlpack__: the array's strides are not multiples of its component size")
    strides = tuple(s // comp for s in byte_strides)
    ndim = len(shape)
    header = _VERSIONED_SIZE if versioned else _LEGACY_SIZE
    block = _libc.malloc(header + 16 * ndim)
    if not block:
        raise MemoryError("__dlpack__: out of memory for the DLPack tensor header")
    dims = block + header
    device_type, device_id = dl_device_of(arr.device)
    tensor = TENSOR.pack(arr.ptr or 0, device_type, device_id, ndim, code, bits, 1, dims, dims + 8 * ndim, 0)
    owner = id(arr)
    if versioned:
        flags = FLAG_IS_COPIED if copied else 0
        raw = VERSIONED_HEAD.pack(version[0], version[1], owner, fns.deleter_versioned, flags) + tensor
        name = fns.name_versioned
    else:
        raw = tensor + LEGACY_TAIL.pack(owner, fns.deleter)
        name = fns.name
    raw += struct.pack(f"<{ndim}q{ndim}q", *shape, *strides)
    ctypes.memmove(block, raw, len(raw))
    _IncRef(arr)  # released by the deleter
    try:
        return _CapsuleNew(block, name, fns.capsule_destructor)
    except BaseException:
        DeleterFn(fns.deleter_versioned if versioned else fns.deleter)(block)
        raise


def dlpack_method(arr: Any, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                  copy: bool | None = None) -> Any:
    """Implementation of ``wp.array.__dlpack__`` (Python array API 2023.12 semantics).

    ``stream`` is the consumer's stream (see :mod:`warp.arrays.stream_sync`): on CUDA it is
    made to wait for the work issued so far to warp's current stream of the array's device.
    """
    if arr.ptr is None:
        raise BufferError("__dlpack__ is not available on an array annotation (an array type without data)")
    device = arr.device
    consumer = dlpack_stream_arg(stream, device)
    if dl_device is not None and tuple(int(x) for x in dl_device) != dl_device_of(device):
        raise BufferError(
            f"__dlpack__: cannot export an array on '{device}' to DLPack device {tuple(dl_device)}"
        )
    source = arr
    copied = False
    if copy:
        source, copied = arr._clone(), True
    if consumer is not None:  # after the copy, which is issued to warp's stream as well
        order_consumer_stream(device, consumer)
    if max_version is None or int(max_version[0]) < 1:
        if copied:
            raise BufferError(
                "__dlpack__: copy=True needs a versioned capsule (pass max_version=(1, 0) or newer)"
            )
        return export_capsule(source, versioned=False)
    minor = DLPACK_VERSION[1] if int(max_version[0]) > 1 else min(DLPACK_VERSION[1], int(max_version[1]))
    return export_capsule(source, versioned=True, version=(1, minor), copied=copied)
