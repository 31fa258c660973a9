"""PyTorch interoperability: zero-copy conversions, device, dtype and stream maps.

``from_torch`` wraps a tensor's memory (``data_ptr()``, shape and strides) without copying and,
when gradients are asked for, wraps ``tensor.grad`` (allocating it with ``torch.zeros_like``
when missing) as the array's gradient, so warp kernels and ``wp.Tape`` write the gradients
PyTorch optimizers read. ``to_torch`` goes the other way, aliasing the array's gradient as
``tensor.grad``. Tensors passed straight to ``wp.launch`` become array descriptors (no grads).
"""

from __future__ import annotations

from typing import Any

import warp
from warp.extending import ArrayDescriptor, Device, get_device, type_repr

from warp_interop.checks import check_warp_array
from warp_interop.frameworks import require
from warp_interop.dtype_maps import DtypeMap, DtypePairs
from warp_interop.tensor_views import Layout, element_layout, launch_arg, wrap_tensor

_devices: dict[Any, Device] = {}


def _torch(what: str) -> Any:
    return require("torch", what)


def _torch_dtypes(torch: Any) -> DtypePairs:
    pairs = [
        (torch.float16, warp.float16), (torch.float32, warp.float32), (torch.float64, warp.float64),
        (torch.int8, warp.int8), (torch.int16, warp.int16), (torch.int32, warp.int32),
        (torch.int64, warp.int64), (torch.uint8, warp.uint8), (torch.bool, warp.bool),
        (torch.bfloat16, warp.bfloat16),
    ]
    for name, wp_type in (("uint16", warp.uint16), ("uint32", warp.uint32), ("uint64", warp.uint64)):
        t = getattr(torch, name, None)
        if t is not None:
            pairs.append((t, wp_type))
    # Documented mapping: unsigned 16/32/64-bit warp types map to the signed torch type of that width.
    signed = {warp.uint16: torch.int16, warp.uint32: torch.int32, warp.uint64: torch.int64}
    return [(t, w, t.itemsize) for t, w in pairs], signed


#: torch dtype -> (warp scalar type, itemsize) and warp scalar -> torch dtype (built on first use)
_DTYPES = DtypeMap("torch", _torch_dtypes)


def dtype_from_torch(torch_dtype: Any) -> Any:
    """The warp scalar type of a ``torch.dtype`` (``torch.float32`` -> ``wp.float32``).

    Raises TypeError for types warp does not have (complex types).
    """
    return _DTYPES.to_warp(torch_dtype, "dtype_from_torch")


def dtype_to_torch(warp_dtype: Any) -> Any:
    """The ``torch.dtype`` of a warp scalar type (``wp.uint16/32/64`` map to signed types of that width).

    Vector and matrix types map to the dtype of their components.
    """
    return _DTYPES.from_warp(warp_dtype, "dtype_to_torch")


def device_from_torch(torch_device: Any) -> Device:
    """The warp device of a torch device (``torch.device`` or string such as ``"cuda:0"``)."""
    try:
        return _devices[torch_device]
    except (KeyError, TypeError):
        pass
    torch = _torch("device_from_torch")
    dev = torch.device(torch_device) if not isinstance(torch_device, torch.device) else torch_device
    if dev.type == "cpu":
        result = get_device("cpu")
    elif dev.type == "cuda":
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        result = get_device(f"cuda:{index}")
    else:
        raise RuntimeError(f"torch device '{dev}' has no corresponding warp device (only cpu and cuda)")
    if not isinstance(torch_device, str) or dev.index is not None or dev.type == "cpu":
        _devices[torch_device] = result
    return result


def device_to_torch(warp_device: Any = None) -> str:
    """The torch device string (``"cpu"``, ``"cuda:0"``) of a warp device."""
    device = get_device(warp_device)
    if device.is_cpu:
        return "cpu"
    if getattr(device, "is_cuda", False) or device.alias.startswith("cuda"):
        return f"cuda:{device.ordinal}"
    raise RuntimeError(f"warp device '{device}' is not compatible with PyTorch")


def _tensor_layout(t: Any, dtype: Any, what: str) -> Layout:
    """``(ptr, shape, byte_strides, warp dtype, device)`` viewing tensor ``t`` as ``dtype`` elements."""
    try:
        scalar, itemsize = _DTYPES.element(t.dtype, what)
    except AttributeError:
        raise TypeError(f"{what}: expected a torch.Tensor, got {type(t).__name__}") from None
    device = device_from_torch(t.device)
    return element_layout(t.data_ptr(), t.shape, t.stride(), scalar, itemsize, dtype, device, what)


def _grad_tensor(t: Any, requires_grad: bool | None, grad: Any, torch: Any) -> Any:
    if grad is not None:
        return grad
    if requires_grad is None:
        requires_grad = t.requires_grad
    if not requires_grad:
        return None
    g = t.grad
    if g is None:
        g = torch.zeros_like(t)
        t.grad = g
    return g


def from_torch(t: Any, dtype: Any = None, requires_grad: bool | None = None, grad: Any = None,
               return_ctype: bool = False, retain_grad: bool = False) -> Any:
    """Wrap a torch tensor as a ``wp.array`` without copying.

    ``dtype`` may be a vector/matrix type whose shape matches the tensor's trailing dimensions
    (a ``(n, 2)`` float32 tensor with ``dtype=wp.vec2`` is ``n`` vec2s). With ``requires_grad``
    (default: ``t.requires_grad``) the array's gradient wraps ``t.grad``, which is allocated
    (zeros) when missing; ``grad`` (a tensor or warp array) supplies the gradient explicitly.
    ``return_ctype=True`` returns a cheaper descriptor that only kernel launches accept.
    ``retain_grad=True`` sets the array's ``retain_grad`` (it needs a gradient).
    """
    torch = _torch("from_torch")
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"from_torch: expected a torch.Tensor, got {type(t).__name__}")
    if retain_grad and return_ctype:
        raise ValueError("from_torch: retain_grad=True needs a wp.array, not return_ctype=True")
    layout = _tensor_layout(t, dtype, "from_torch")
    g = _grad_tensor(t, requires_grad, grad, torch)
    result = wrap_tensor(t, layout, g, return_ctype,
                         lambda g, target: from_torch(g, dtype=target, requires_grad=False),
                         _storage_capacity(t))
    if retain_grad:
        result.retain_grad = True
    return result


def _storage_capacity(t: Any) -> int | None:
    """Bytes of ``t``'s storage from its first element to the storage's end (a view's array may
    be grown into them, as in Warp), or None when the storage cannot be inspected."""
    try:
        return int(t.untyped_storage().nbytes()) - int(t.storage_offset()) * int(t.element_size())
    except (AttributeError, RuntimeError, NotImplementedError):
        return None


def tensor_launch_arg(t: Any, dtype: Any) -> ArrayDescriptor:
    """A launch argument viewing tensor ``t`` (no gradient: launches see the data only).

    A tensor that cannot be viewed as ``dtype`` elements keeps its own element type, so that
    the launch reports the mismatch with the kernel and parameter names.
    """
    return launch_arg(t, dtype, _tensor_layout)


def to_torch(a: Any, requires_grad: bool | None = None) -> Any:
    """A torch tensor sharing ``a``'s memory; with gradients, ``tensor.grad`` aliases ``a.grad``.

    ``requires_grad`` defaults to ``a.requires_grad``. Vector/matrix elements become trailing
    dimensions (``n`` vec3s -> shape ``(n, 3)``).
    """
    torch = _torch("to_torch")
    check_warp_array(a, "to_torch")
    if requires_grad is None:
        requires_grad = a.requires_grad
    torch_dtype = dtype_to_torch(a.dtype)
    if a.device.is_cpu:
        host = a.numpy()
        if host.dtype.fields is not None:
            raise TypeError(f"to_torch: arrays of {type_repr(a.dtype)} (structs) have no torch equivalent")
        if host.dtype.name == "bfloat16":  # ml_dtypes data: torch.from_numpy takes its bits
            host = host.view("i2")
        elif host.dtype.kind == "u" and host.dtype.itemsize > 1:
            host = host.view(f"i{host.dtype.itemsize}")
        t = torch.from_numpy(host)
    else:
        t = torch.from_dlpack(a)
    if t.dtype != torch_dtype:
        t = t.view(torch_dtype)
    if requires_grad:
        t.requires_grad_(True)
        if a.grad is not None:
            t.grad = to_torch(a.grad, requires_grad=False)
    return t


def stream_from_torch(stream_or_device: Any = None) -> Any:
    """The warp CUDA stream wrapping a torch CUDA stream (or a torch device's current stream)."""
    torch = _torch("stream_from_torch")
    if isinstance(stream_or_device, torch.cuda.Stream):
        stream = stream_or_device
    else:
        dev = torch.device("cuda" if stream_or_device is None else stream_or_device)
        if dev.type != "cuda":
            raise RuntimeError(
                f"stream_from_torch: torch device '{dev}' has no CUDA stream (CUDA devices only)"
            )
        if not torch.cuda.is_available():
            raise RuntimeError(
                "stream_from_torch: PyTorch has no CUDA device in this process (CUDA streams only)"
            )
        stream = torch.cuda.current_stream(dev)
    device = device_from_torch(stream.device)
    return _warp_stream_class("stream_from_torch")(device, cuda_stream=stream.cuda_stream)


def stream_to_torch(stream_or_device: Any = None) -> Any:
    """The torch CUDA stream (``torch.cuda.ExternalStream``) wrapping a warp stream or device's stream."""
    torch = _torch("stream_to_torch")
    stream_class = getattr(warp, "Stream", None)
    if stream_class is not None and isinstance(stream_or_device, stream_class):
        stream = stream_or_device
    else:
        device = get_device(stream_or_device)
        if device.is_cpu:
            raise RuntimeError(
                f"stream_to_torch: warp device '{device}' has no CUDA stream (CUDA devices only)"
            )
        _warp_stream_class("stream_to_torch")
        stream = warp.get_stream(device)
    return torch.cuda.ExternalStream(stream.cuda_stream, device=device_to_torch(stream.device))


def _warp_stream_class(what: str) -> Any:
    stream_class = getattr(warp, "Stream", None)
    if stream_class is None:
        raise RuntimeError(f"{what}: warp has no CUDA streams in this installation (no CUDA backend)")
    return stream_class
