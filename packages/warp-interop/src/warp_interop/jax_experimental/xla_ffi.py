"""XLA's foreign function interface (FFI) from Python: call frames, buffers, attributes, errors.

A handler is a ``ctypes`` callback ``XLA_FFI_Error* handler(XLA_FFI_CallFrame*)`` (layouts from
``xla/ffi/api/c_api.h``, shipped in ``jax.ffi.include_dir()``), wrapped with
``jax.ffi.pycapsule`` and registered with ``jax.ffi.register_ffi_target``. XLA first calls a
handler with a metadata extension asking which FFI API version it was built against; later
calls carry the operands (input buffers), results (output buffers) and the attributes given to
``jax.ffi.ffi_call`` as keywords. An exception raised by the Python side becomes an XLA error,
which JAX raises with the same message. ctypes takes the GIL when XLA calls in from its own
threads.
"""

from __future__ import annotations

import ctypes
import threading
import traceback
from dataclasses import dataclass
from typing import Any, Callable

import ml_dtypes  # installed with JAX: its bfloat16 dtype
import numpy as np

c_size_t, c_int, c_int64, c_void_p = ctypes.c_size_t, ctypes.c_int, ctypes.c_int64, ctypes.c_void_p

#: The FFI API version our handlers report (the fields used exist since that version).
API_VERSION = (0, 1)
EXTENSION_METADATA = 1
STAGE_EXECUTE = 3
ATTR_ARRAY, ATTR_DICTIONARY, ATTR_SCALAR, ATTR_STRING = 1, 2, 3, 4
ERROR_INVALID_ARGUMENT, ERROR_INTERNAL = 3, 13

#: XLA_FFI_DataType -> NumPy dtype
DTYPES = {
    1: np.dtype(bool), 2: np.dtype(np.int8), 3: np.dtype(np.int16), 4: np.dtype(np.int32),
    5: np.dtype(np.int64), 6: np.dtype(np.uint8), 7: np.dtype(np.uint16), 8: np.dtype(np.uint32),
    9: np.dtype(np.uint64), 10: np.dtype(np.float16), 11: np.dtype(np.float32), 12: np.dtype(np.float64),
    16: np.dtype(ml_dtypes.bfloat16),
}


class ExtensionBase(ctypes.Structure):
    pass


ExtensionBase._fields_ = [("struct_size", c_size_t), ("type", c_int), ("next", ctypes.POINTER(ExtensionBase))]


class ApiVersion(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("major_version", c_int),
                ("minor_version", c_int)]


class Metadata(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("api_version", ApiVersion), ("traits", ctypes.c_uint32),
                ("state_type_id", c_int64)]


class MetadataExtension(ctypes.Structure):
    _fields_ = [("extension_base", ExtensionBase), ("metadata", ctypes.POINTER(Metadata))]


class Buffer(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("dtype", c_int),
                ("data", c_void_p), ("rank", c_int64), ("dims", ctypes.POINTER(c_int64))]


class _Operands(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("size", c_int64),
                ("types", ctypes.POINTER(c_int)), ("values", ctypes.POINTER(c_void_p))]


class ByteSpan(ctypes.Structure):
    _fields_ = [("ptr", c_void_p), ("len", c_size_t)]


class _Attrs(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("size", c_int64),
                ("types", ctypes.POINTER(c_int)), ("names", ctypes.POINTER(ctypes.POINTER(ByteSpan))),
                ("values", ctypes.POINTER(c_void_p))]


class CallFrame(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", ctypes.POINTER(ExtensionBase)),
                ("api", c_void_p), ("ctx", c_void_p), ("stage", c_int), ("args", _Operands),
                ("rets", _Operands), ("attrs", _Attrs), ("future", c_void_p)]


class _Scalar(ctypes.Structure):
    _fields_ = [("dtype", c_int), ("value", c_void_p)]


class _Array(ctypes.Structure):
    _fields_ = [("dtype", c_int), ("size", c_size_t), ("data", c_void_p)]


class _ErrorCreateArgs(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("message", ctypes.c_char_p),
                ("errc", c_int)]


class _StreamGetArgs(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("ctx", c_void_p),
                ("stream", c_void_p)]


class _DeviceOrdinalGetArgs(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("ctx", c_void_p),
                ("device_ordinal", ctypes.c_int32)]


HandlerType = ctypes.CFUNCTYPE(c_void_p, ctypes.POINTER(CallFrame))
_ErrorCreate = ctypes.CFUNCTYPE(c_void_p, ctypes.POINTER(_ErrorCreateArgs))
_StreamGet = ctypes.CFUNCTYPE(c_void_p, ctypes.POINTER(_StreamGetArgs))
_DeviceOrdinalGet = ctypes.CFUNCTYPE(c_void_p, ctypes.POINTER(_DeviceOrdinalGetArgs))
# Offsets of function pointers in XLA_FFI_Api: struct_size, extension_start, api_version (24 bytes),
# internal_api, then Error_Create, Error_GetMessage, Error_Destroy, Handler_Register, Stream_Get, ...
_API_ERROR_CREATE = 48
_API_STREAM_GET = 48 + 4 * 8
_ERROR_CREATE_SIZE = 28  # offsetof(errc) + sizeof(errc)
_STREAM_GET_SIZE = 32
#: XLA_FFI_DeviceOrdinal_Get, the 18th function (newer APIs only: checked against struct_size)
_API_DEVICE_ORDINAL_GET = 48 + 17 * 8
_DEVICE_ORDINAL_GET_SIZE = 28


@dataclass
class FfiBuffer:
    """An XLA buffer seen by a handler: JAX shape and dtype, data pointer and device.

    CPU buffers expose ``__array_interface__`` (so ``np.asarray`` and ``wp.launch`` accept them);
    GPU buffers expose ``__cuda_array_interface__``.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    ptr: int
    on_gpu: bool = False

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        """Size of the buffer in bytes."""
        return self.size * self.dtype.itemsize

    def _interface(self) -> dict[str, Any]:
        return {"version": 3, "shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr, False),
                "strides": None}

    @property
    def __array_interface__(self) -> dict[str, Any]:
        if self.on_gpu:
            raise AttributeError("__array_interface__ is only available for CPU buffers")
        return self._interface()

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        if not self.on_gpu:
            raise AttributeError("__cuda_array_interface__ is only available for GPU buffers")
        return self._interface()


@dataclass
class ExecutionContext:
    """The context of one FFI call: the CUDA stream (None on the CPU), XLA's raw context and the
    ordinal of the device the call runs on (0 on the CPU)."""

    stream: int | None
    raw: int
    device_ordinal: int = 0


@dataclass
class CallArguments:
    """One decoded FFI call: input and output buffers, attributes by name, execution context."""

    inputs: list[FfiBuffer]
    outputs: list[FfiBuffer]
    attrs: dict[str, Any]
    ctx: ExecutionContext


def _buffers(operands: _Operands, on_gpu: bool) -> list[FfiBuffer]:
    result = []
    for i in range(operands.size):
        buf = ctypes.cast(operands.values[i], ctypes.POINTER(Buffer)).contents
        dtype = DTYPES.get(buf.dtype)
        if dtype is None:
            raise TypeError(f"XLA buffer of data type {buf.dtype} has no warp equivalent")
        shape = tuple(buf.dims[k] for k in range(buf.rank))
        result.append(FfiBuffer(shape, dtype, buf.data or 0, on_gpu))
    return result


def _attribute(kind: int, value: int) -> Any:
    if kind == ATTR_SCALAR:
        scalar = ctypes.cast(value, ctypes.POINTER(_Scalar)).contents
        dtype = DTYPES.get(scalar.dtype)
        if dtype is None:
            raise TypeError(f"attribute of XLA data type {scalar.dtype} is not supported")
        return np.frombuffer(ctypes.string_at(scalar.value, dtype.itemsize), dtype=dtype)[0].item()
    if kind == ATTR_ARRAY:
        arr = ctypes.cast(value, ctypes.POINTER(_Array)).contents
        dtype = DTYPES.get(arr.dtype)
        if dtype is None:
            raise TypeError(f"array attribute of XLA data type {arr.dtype} is not supported")
        return np.frombuffer(ctypes.string_at(arr.data, arr.size * dtype.itemsize), dtype=dtype).copy()
    if kind == ATTR_STRING:
        span = ctypes.cast(value, ctypes.POINTER(ByteSpan)).contents
        return ctypes.string_at(span.ptr, span.len).decode()
    raise TypeError("dictionary attributes are not supported")


def decode(frame: CallFrame, on_gpu: bool = False) -> CallArguments:
    """The buffers, attributes and context of a call frame."""
    attrs = {}
    for i in range(frame.attrs.size):
        span = frame.attrs.names[i].contents
        name = ctypes.string_at(span.ptr, span.len).decode()
        attrs[name] = _attribute(frame.attrs.types[i], frame.attrs.values[i])
    stream = _stream(frame) if on_gpu else None
    ordinal = _device_ordinal(frame) if on_gpu else 0
    return CallArguments(_buffers(frame.args, on_gpu), _buffers(frame.rets, on_gpu), attrs,
                         ExecutionContext(stream, frame.ctx or 0, ordinal))


def _api_function(frame: CallFrame, offset: int, prototype: Any) -> Any:
    address = ctypes.cast(frame.api + offset, ctypes.POINTER(c_void_p)).contents.value
    return prototype(address)


def _stream(frame: CallFrame) -> int | None:
    args = _StreamGetArgs(_STREAM_GET_SIZE, None, frame.ctx, None)
    error = _api_function(frame, _API_STREAM_GET, _StreamGet)(ctypes.byref(args))
    return None if error else (args.stream or 0)


def _device_ordinal(frame: CallFrame) -> int:
    """The device ordinal of the call (XLA_FFI_DeviceOrdinal_Get; 0 where the API predates it)."""
    api_size = ctypes.c_size_t.from_address(frame.api).value
    if api_size < _API_DEVICE_ORDINAL_GET + 8:
        return 0
    args = _DeviceOrdinalGetArgs(_DEVICE_ORDINAL_GET_SIZE, None, frame.ctx, 0)
    error = _api_function(frame, _API_DEVICE_ORDINAL_GET, _DeviceOrdinalGet)(ctypes.byref(args))
    if error:
        raise RuntimeError("XLA could not say which device the FFI call runs on")
    return int(args.device_ordinal)


def _error(frame: CallFrame, message: str, code: int = ERROR_INTERNAL) -> int:
    text = message.encode("utf-8", "replace")
    args = _ErrorCreateArgs(_ERROR_CREATE_SIZE, None, text, code)
    return _api_function(frame, _API_ERROR_CREATE, _ErrorCreate)(ctypes.byref(args)) or 0


def _fill_metadata(frame: CallFrame) -> bool:
    """Answer XLA's metadata query (API version, traits); True if this call was one."""
    ext = frame.extension_start
    while ext:
        if ext.contents.type == EXTENSION_METADATA:
            metadata = ctypes.cast(ext, ctypes.POINTER(MetadataExtension)).contents.metadata.contents
            metadata.api_version.major_version, metadata.api_version.minor_version = API_VERSION
            metadata.traits = 0
            return True
        ext = ext.contents.next
    return False


_lock = threading.Lock()
#: (target name, platform) -> ctypes callback (kept alive for the life of the process: XLA may
#: call at any time)
_registered: dict[tuple[str, str], Any] = {}

#: the platforms a warp target is registered for: JAX's CPU and CUDA platforms (registering for
#: CUDA needs no GPU: XLA keeps the registration for when its CUDA plugin loads)
PLATFORMS = ("cpu", "CUDA")


def register_handler(name: str, run: Callable[[CallArguments], None], platform: str = "cpu") -> None:
    """Register ``run(call)`` as the XLA FFI target ``name`` for ``platform``; exceptions become
    XLA errors. On a GPU platform ``call.ctx`` carries XLA's stream and the device ordinal."""
    import jax

    on_gpu = platform.lower() in ("cuda", "gpu", "rocm")

    def handler(frame_ptr: Any) -> int:
        frame = frame_ptr.contents
        try:
            if _fill_metadata(frame):
                return 0
            if frame.stage != STAGE_EXECUTE:
                return 0
            run(decode(frame, on_gpu))
            return 0
        except Exception as exc:  # noqa: BLE001 - reported to XLA, which raises it in JAX
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            code = ERROR_INVALID_ARGUMENT if isinstance(exc, (TypeError, ValueError)) else ERROR_INTERNAL
            return _error(frame, f"warp FFI target '{name}': {detail}", code)

    with _lock:
        if (name, platform) in _registered:
            raise ValueError(f"an XLA FFI target named '{name}' is already registered for {platform}")
        callback = HandlerType(handler)
        _registered[(name, platform)] = callback
    address = ctypes.cast(callback, c_void_p).value
    jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(address), platform=platform)


def register_everywhere(name: str, run: Callable[[CallArguments], None]) -> None:
    """Register ``run`` as target ``name`` for every platform in :data:`PLATFORMS`."""
    for platform in PLATFORMS:
        register_handler(name, run, platform)
