"""The DLPack protocol for ``wp.array``: exporting capsules and importing any DLPack producer.

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
import weakref
from typing import Any

import numpy as np

from warp.arrays.layout import element_info
from warp.types.scalars import bfloat16, dtype_from_numpy
from warp.arrays.dlpack_native import native
from warp.runtime.devices import get_device
from warp.arrays.layout import contiguous_strides, fold_element_dims, resolve_dtype
from warp.arrays.stream_sync import consumer_stream_value, dlpack_stream_arg, order_consumer_stream

#: DLDeviceType codes
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13
#: DLDataTypeCode codes
KDL_INT, KDL_UINT, KDL_FLOAT, KDL_BFLOAT, KDL_BOOL = 0, 1, 2, 4, 6
#: The DLPack version warp produces (and the newest it understands).
DLPACK_VERSION = (1, 1)
#: DLManagedTensorVersioned flag bits
FLAG_READ_ONLY, FLAG_IS_COPIED = 1, 2

_TENSOR = struct.Struct("<Qiii BBH QQQ")  # DLTensor (48 bytes)
_LEGACY_TAIL = struct.Struct("<QQ")  # manager_ctx, deleter
_VERSIONED_HEAD = struct.Struct("<IIQQQ")  # version, manager_ctx, deleter, flags
_LEGACY_SIZE = _TENSOR.size + _LEGACY_TAIL.size  # 64
_VERSIONED_SIZE = _VERSIONED_HEAD.size + _TENSOR.size  # 80

_CODES = {"i": KDL_INT, "u": KDL_UINT, "f": KDL_FLOAT, "b": KDL_BOOL}
_KINDS = {KDL_INT: "i", KDL_UINT: "u", KDL_FLOAT: "f", KDL_BOOL: "b"}



def _capi(name: str, restype: Any, *argtypes: Any) -> Any:
    """A private prototype of a Python C API function (other libraries reassign the argtypes of
    the shared ``ctypes.pythonapi`` attributes, e.g. ``jax.ffi.pycapsule``)."""
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


_CapsuleNew = _capi("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_CapsuleGetName = _capi("PyCapsule_GetName", ctypes.c_char_p, ctypes.py_object)
_CapsuleGetPointer = _capi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)
_CapsuleSetName = _capi("PyCapsule_SetName", ctypes.c_int, ctypes.py_object, ctypes.c_void_p)
_IncRef = _capi("Py_IncRef", None, ctypes.py_object)
_libc = ctypes.CDLL(None)
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]
_DeleterFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


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
    tensor = _TENSOR.pack(arr.ptr or 0, device_type, device_id, ndim, code, bits, 1, dims, dims + 8 * ndim, 0)
    owner = id(arr)
    if versioned:
        flags = FLAG_IS_COPIED if copied else 0
        raw = _VERSIONED_HEAD.pack(version[0], version[1], owner, fns.deleter_versioned, flags) + tensor
        name = fns.name_versioned
    else:
        raw = tensor + _LEGACY_TAIL.pack(owner, fns.deleter)
        name = fns.name
    raw += struct.pack(f"<{ndim}q{ndim}q", *shape, *strides)
    ctypes.memmove(block, raw, len(raw))
    _IncRef(arr)  # released by the deleter
    try:
        return _CapsuleNew(block, name, fns.capsule_destructor)
    except BaseException:
        _DeleterFn(fns.deleter_versioned if versioned else fns.deleter)(block)
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
        from warp.arrays.creation import clone

        source, copied = clone(arr), True
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


# -- import ------------------------------------------------------------------------------------


def _release_imported(deleter: int, managed: int) -> None:
    _DeleterFn(deleter)(managed)


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
    kind = _KINDS.get(code)
    if kind is None or lanes != 1:
        what = f"type code {code} with {bits} bits x {lanes} lanes"
        raise TypeError(f"from_dlpack: DLPack data type {what} has no matching warp type")
    try:
        return dtype_from_numpy(np.dtype(f"{kind}{bits // 8}") if kind != "b" else np.dtype(bool))
    except TypeError:
        raise TypeError(f"from_dlpack: DLPack data type {kind}{bits} has no matching warp type") from None


def import_capsule(capsule: Any, dtype: Any = None) -> Any:
    """A ``wp.array`` aliasing the memory of a DLPack capsule (which is marked as consumed)."""
    from warp.arrays.array import array
    name = _CapsuleGetName(capsule)
    if name in (b"used_dltensor", b"used_dltensor_versioned"):
        raise BufferError("from_dlpack: this DLPack capsule was already consumed")
    if name not in (b"dltensor", b"dltensor_versioned"):
        raise TypeError(f"from_dlpack: expected a DLPack capsule, got a capsule named {name!r}")
    versioned = name == b"dltensor_versioned"
    managed = _CapsuleGetPointer(capsule, name)
    if versioned:
        head = ctypes.string_at(managed, _VERSIONED_HEAD.size)
        major, _minor, _ctx, deleter, flags = _VERSIONED_HEAD.unpack(head)
        if major != 1:
            raise BufferError(f"from_dlpack: DLPack major version {major} is not supported (expected 1)")
        if flags & FLAG_READ_ONLY:
            # kernels may write to any array: aliasing read-only memory would let them corrupt
            # immutable objects or fault on a read-only mapping (the capsule stays unconsumed)
            raise BufferError(
                "from_dlpack: the DLPack tensor is read-only and warp arrays are writable; "
                "pass a writable copy (e.g. numpy.array(x))"
            )
        tensor_at = managed + _VERSIONED_HEAD.size
    else:
        tensor_at = managed
        deleter = _LEGACY_TAIL.unpack(ctypes.string_at(managed + _TENSOR.size, _LEGACY_TAIL.size))[1]
    (data, dev_type, dev_id, ndim, code, bits, lanes, shape_at, strides_at, offset) = _TENSOR.unpack(
        ctypes.string_at(tensor_at, _TENSOR.size)
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
    _CapsuleSetName(capsule, fns.name_used_versioned if versioned else fns.name_used)
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
    from warp.arrays.array import array

    if not isinstance(a, array):
        raise TypeError(f"to_dlpack expects a warp array, got {type(a).__name__}")
    return dlpack_method(a)
