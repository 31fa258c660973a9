"""Paddle interoperability: zero-copy conversions, device, dtype and stream maps.

``from_paddle`` wraps a tensor's memory (``data_ptr()`` and element strides) without copying;
with gradients it wraps ``tensor.grad``, allocating it (zeros) when missing. ``to_paddle`` goes
through DLPack and, with gradients, makes ``tensor.grad`` share the array's gradient memory
(Paddle's ``grad`` setter copies, so the gradient's storage is shared explicitly). Tensors
passed straight to ``wp.launch`` are used in place, never copied.
"""

from __future__ import annotations

from typing import Any

import warp
from warp.extending import (
    ArrayDescriptor,
    Device,
    get_device,
    int16,
    int32,
    int64,
    uint16,
    uint32,
    uint64,
)

from warp_interop.checks import check_warp_array
from warp_interop.frameworks import require
from warp_interop.dtype_maps import DtypeMap, DtypePairs
from warp_interop.tensor_views import Layout, element_layout, launch_arg, wrap_tensor


def _paddle(what: str) -> Any:
    return require("paddle", what)


def _paddle_dtypes(paddle: Any) -> DtypePairs:
    pairs = [
        (paddle.float16, warp.float16, 2), (paddle.float32, warp.float32, 4),
        (paddle.float64, warp.float64, 8),
        (paddle.int8, warp.int8, 1), (paddle.int16, warp.int16, 2), (paddle.int32, warp.int32, 4),
        (paddle.int64, warp.int64, 8), (paddle.uint8, warp.uint8, 1), (paddle.bool, warp.bool, 1),
        (paddle.bfloat16, warp.bfloat16, 2),
    ]
    # paddle.uint16 is an alias of bfloat16; only the 32/64-bit unsigned types are real
    for name, wp_type, size in (("uint32", warp.uint32, 4), ("uint64", warp.uint64, 8)):
        t = getattr(paddle, name, None)
        if t is not None and t != getattr(paddle, "bfloat16", None):
            pairs.append((t, wp_type, size))
    # Documented mapping: unsigned 16/32/64-bit warp types map to the signed paddle type of that width.
    signed = {warp.uint16: paddle.int16, warp.uint32: paddle.int32, warp.uint64: paddle.int64}
    return pairs, signed


#: paddle dtype -> (warp scalar type, itemsize) and warp scalar -> paddle dtype (built on first use)
_DTYPES = DtypeMap("paddle", _paddle_dtypes)


def dtype_from_paddle(paddle_dtype: Any) -> Any:
    """The warp scalar type of a paddle dtype (``paddle.float32`` -> ``wp.float32``).

    Raises TypeError for types warp does not have (complex types).
    """
    return _DTYPES.to_warp(paddle_dtype, "dtype_from_paddle")


def dtype_to_paddle(warp_dtype: Any) -> Any:
    """The paddle dtype of a warp scalar type (``wp.uint16/32/64`` map to signed types of that width)."""
    return _DTYPES.from_warp(warp_dtype, "dtype_to_paddle")


def device_from_paddle(paddle_device: Any) -> Device:
    """The warp device of a paddle place (``Place``, ``CPUPlace``, ``CUDAPlace``, ``CUDAPinnedPlace``)
    or device string (``"cpu"``, ``"gpu:0"``)."""
    if isinstance(paddle_device, str):
        name = paddle_device.strip().lower()
        if name == "cpu":
            return get_device("cpu")
        kind, _, index = name.partition(":")
        if kind in ("gpu", "cuda"):
            return get_device(f"cuda:{int(index) if index else 0}")
        raise RuntimeError(
            f"paddle device '{paddle_device}' has no corresponding warp device (only cpu and gpu)"
        )
    place = paddle_device
    if hasattr(place, "is_cpu_place"):  # Place, CPUPlace, CUDAPlace, CUDAPinnedPlace
        if place.is_cpu_place() or place.is_cuda_pinned_place():
            return get_device("cpu")
        if place.is_gpu_place():
            return get_device(f"cuda:{place.gpu_device_id()}")
    raise RuntimeError(f"paddle device {paddle_device!r} has no corresponding warp device (only cpu and gpu)")


def device_to_paddle(warp_device: Any = None) -> str:
    """The paddle device string (``"cpu"``, ``"gpu:0"``) of a warp device."""
    device = get_device(warp_device)
    if device.is_cpu:
        return "cpu"
    if device.alias.startswith("cuda"):
        return f"gpu:{device.ordinal}"
    raise RuntimeError(f"warp device '{device}' is not compatible with Paddle")


def _tensor_layout(t: Any, dtype: Any, what: str) -> Layout:
    """``(ptr, shape, byte_strides, warp dtype, device)`` viewing paddle tensor ``t`` as ``dtype``."""
    scalar, itemsize = _DTYPES.element(t.dtype, what)
    shape = tuple(t.shape)
    return element_layout(t.data_ptr(), shape, t.strides if shape else (), scalar, itemsize, dtype,
                          device_from_paddle(t.place), what)


def _grad_tensor(t: Any, requires_grad: bool | None, grad: Any, paddle: Any) -> Any:
    if grad is not None:
        return grad
    if requires_grad is None:
        requires_grad = not t.stop_gradient
    if not requires_grad:
        return None
    if t.grad is None:
        t.grad = paddle.zeros_like(t)
    return t.grad


def from_paddle(t: Any, dtype: Any = None, requires_grad: bool | None = None, grad: Any = None,
                return_ctype: bool = False, retain_grad: bool = False) -> Any:
    """Wrap a paddle tensor as a ``wp.array`` without copying.

    ``dtype`` may be a vector/matrix type matching the tensor's trailing dimensions. With
    ``requires_grad`` (default: ``not t.stop_gradient``) the array's gradient wraps ``t.grad``,
    which is allocated (zeros) when missing; ``grad`` (a tensor or warp array) supplies it
    explicitly. ``return_ctype=True`` returns a cheaper descriptor only kernel launches accept.
    ``retain_grad=True`` sets the array's ``retain_grad`` (it needs a gradient).
    """
    paddle = _paddle("from_paddle")
    if not isinstance(t, paddle.Tensor):
        raise TypeError(f"from_paddle: expected a paddle.Tensor, got {type(t).__name__}")
    if retain_grad and return_ctype:
        raise ValueError("from_paddle: retain_grad=True needs a wp.array, not return_ctype=True")
    layout = _tensor_layout(t, dtype, "from_paddle")
    g = _grad_tensor(t, requires_grad, grad, paddle)
    result = wrap_tensor(t, layout, g, return_ctype,
                         lambda g, target: from_paddle(g, dtype=target, requires_grad=False))
    if retain_grad:
        result.retain_grad = True
    return result


def tensor_launch_arg(t: Any, dtype: Any) -> ArrayDescriptor:
    """A launch argument viewing paddle tensor ``t`` in place (no gradient).

    A tensor that cannot be viewed as ``dtype`` keeps its own element type, so that the launch
    reports the mismatch with the kernel and parameter names.
    """
    return launch_arg(t, dtype, _tensor_layout)


def _share_grad(t: Any, grad: Any, paddle: Any) -> None:
    """Make ``t.grad`` use ``grad``'s storage (the ``grad`` setter alone would copy it)."""
    t.grad = grad
    shared = t.grad
    try:
        shared.get_tensor()._share_data_with(grad.get_tensor())
    except AttributeError as exc:  # a Paddle without DenseTensor._share_data_with
        raise RuntimeError(
            f"to_paddle: this Paddle version ({paddle.__version__}) cannot share gradient memory with warp"
        ) from exc


#: unsigned warp types exported as the signed type of the same width (the documented mapping)
_SIGNED = {uint16: int16, uint32: int32, uint64: int64}


def to_paddle(a: Any, requires_grad: bool | None = None) -> Any:
    """A paddle tensor sharing ``a``'s memory; with gradients, ``tensor.grad`` shares ``a.grad``'s.

    ``requires_grad`` defaults to ``a.requires_grad``. Vector/matrix elements become trailing
    dimensions (``n`` vec3s -> shape ``[n, 3]``).
    """
    paddle = _paddle("to_paddle")
    check_warp_array(a, "to_paddle")
    if requires_grad is None:
        requires_grad = a.requires_grad
    signed = _SIGNED.get(a.dtype)
    t = paddle.utils.dlpack.from_dlpack(a if signed is None else a.view(signed))
    if requires_grad:
        t.stop_gradient = False
        if a.grad is not None:
            _share_grad(t, to_paddle(a.grad, requires_grad=False), paddle)
    return t


def stream_from_paddle(stream_or_device: Any = None) -> Any:
    """The warp CUDA stream wrapping a paddle CUDA stream (or a paddle device's current stream)."""
    paddle = _paddle("stream_from_paddle")
    cuda = getattr(paddle.device, "cuda", None)
    stream_class = getattr(cuda, "Stream", None) if cuda is not None else None
    if stream_class is not None and isinstance(stream_or_device, stream_class):
        stream = stream_or_device
    else:
        name = stream_or_device if stream_or_device is not None else paddle.device.get_device()
        device = device_from_paddle(name)
        if device.is_cpu:
            raise RuntimeError(
                f"stream_from_paddle: paddle device '{name}' has no CUDA stream (CUDA devices only)"
            )
        if cuda is None:
            raise RuntimeError(f"stream_from_paddle: this paddle build has no CUDA support (device '{name}')")
        stream = cuda.current_stream(device.ordinal)
    device = device_from_paddle(stream.place) if hasattr(stream, "place") else get_device("cuda")
    stream_type = getattr(warp, "Stream", None)
    if stream_type is None:
        raise RuntimeError(
            "stream_from_paddle: warp has no CUDA streams in this installation (no CUDA backend)"
        )
    return stream_type(device, cuda_stream=stream.cuda_stream)
