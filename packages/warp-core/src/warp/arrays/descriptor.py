"""Low-level array descriptors: what ``from_torch(..., return_ctype=True)`` returns.

A descriptor is the kernel-argument form of an array (data and gradient pointers, shape and
byte strides, packed as kernels read them) plus the element type, dimension count and device a
launch checks. It is much cheaper to make than a ``wp.array`` and is accepted wherever a kernel
launch takes an array argument; everything else (indexing, ``numpy()``, gradients, copies)
raises a ``TypeError`` saying so. It keeps ``owner`` (the memory's owner, e.g. a tensor) alive.
"""

from __future__ import annotations

import struct
from typing import Any

from warp.arrays.array import _array_type, array
from warp.arrays.layout import element_info, is_contiguous_layout
from warp.types.array_type import ADJOINT_RETAIN_MARK, ARRAY_DESC_FORMAT, MAX_DIMS, ArrayType
from warp.types.scalars import type_repr

_pack = struct.Struct(ARRAY_DESC_FORMAT).pack
_unpack = struct.Struct(ARRAY_DESC_FORMAT).unpack
_PAD = tuple((0,) * k for k in range(MAX_DIMS + 1))


def _launch_only_message(name: str) -> str:
    return (f"'{name}' is not available on an array descriptor (from_*(..., return_ctype=True)): "
            "descriptors can only be passed to kernel launches; create a wp.array instead")


class ArrayDescriptor(array):
    """Kernel-launch-only view of memory (NVIDIA Warp's ``array_t``): see the module docstring."""

    #: What keeps the memory alive (a tensor, ...).
    _owner: Any
    #: Address of the gradient memory (0: none), as packed in the kernel argument.
    _grad_ptr: int

    @property
    def data(self) -> int:
        """Address of the first element (the ``data`` field of NVIDIA Warp's ``array_t``)."""
        return self._ptr

    @property  # type: ignore[misc]
    def grad(self) -> int:  # type: ignore[override]
        """Address of the gradient memory, 0 when there is none (``array_t.grad``); an adjoint
        launch reads it through :func:`adjoint_of`."""
        return self._grad_ptr

    def __getattr__(self, name: str) -> Any:
        raise TypeError(_launch_only_message(name))

    @property
    def __array_interface__(self) -> Any:  # type: ignore[override]
        raise AttributeError(_launch_only_message("__array_interface__"))

    def __repr__(self) -> str:
        return (f"ArrayDescriptor(ptr=0x{self._ptr:x}, shape={self._shape}, dtype={type_repr(self._dtype)}, "
                f"device={self._device})")

    __str__ = __repr__


def _launch_only(name: str) -> Any:
    def method(self: ArrayDescriptor, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(_launch_only_message(name))

    method.__name__ = name
    return method


for _name in ("numpy", "list", "cptr", "__array__", "__getitem__", "__setitem__", "__len__", "__dlpack__",
              "__dlpack_device__", "zero_", "fill_", "assign", "reshape", "flatten", "view", "transpose",
              "contiguous", "to"):
    setattr(ArrayDescriptor, _name, _launch_only(_name))


def make_descriptor(ptr: int, shape: tuple[int, ...], strides: tuple[int, ...], dtype: Any, device: Any,
                    owner: Any, grad_ptr: int = 0) -> ArrayDescriptor:
    """A descriptor of ``shape`` elements of ``dtype`` at ``ptr`` (byte ``strides``) on ``device``."""
    ndim = len(shape)
    if not 1 <= ndim <= MAX_DIMS:
        raise ValueError(f"array descriptors have 1 to {MAX_DIMS} dimensions, not {ndim}")
    d = ArrayDescriptor.__new__(ArrayDescriptor)
    pad = _PAD[MAX_DIMS - ndim]
    d._desc = _pack(ptr, grad_ptr, *shape, *pad, *strides, *pad)
    d._array_type = _array_type(dtype, ndim)
    d._dtype = dtype
    d._ndim = ndim
    d._shape = shape
    d._strides = strides
    d._ptr = ptr
    d._device = device
    d._is_contiguous = is_contiguous_layout(shape, strides, element_info(dtype).itemsize)
    d._is_annotation = False
    d._grad = None
    d._requires_grad = False
    d._owner = owner
    d._grad_ptr = grad_ptr
    return d


def adjoint_of(a: array) -> array | None:
    """The gradient array an adjoint launch uses for ``a`` when none is given: ``a.grad`` for a
    ``wp.array``; for a descriptor, a descriptor over its gradient memory (None when it has none)."""
    if not isinstance(a, ArrayDescriptor):
        return a.grad
    if not a._grad_ptr:
        return None
    return make_descriptor(a._grad_ptr, a._shape, a._strides, a._dtype, a._device, a._owner)


def descriptor_from_bytes(desc: bytes, array_type: ArrayType, device: Any,
                          owner: Any) -> ArrayDescriptor | None:
    """The descriptor packed in ``desc`` (64 bytes: an array's ``__ctype__()``, a struct's array
    field) read as an array of ``array_type`` on ``device``; None for a null data address."""
    ptr, grad_ptr, *dims = _unpack(desc)
    if ptr == 0:
        return None
    ndim = array_type.ndim
    return make_descriptor(ptr, tuple(dims[:ndim]), tuple(dims[MAX_DIMS : MAX_DIMS + ndim]), array_type.dtype,
                           device, owner, grad_ptr=grad_ptr)


def retained_adjoint(grad: array) -> ArrayDescriptor:
    """``grad`` as the adjoint argument of a ``retain_grad`` array: the same memory, its grad
    field holding :data:`ADJOINT_RETAIN_MARK` so that the adjoints of stores leave it in place."""
    return make_descriptor(grad._ptr or 0, grad.shape, grad.strides, grad.dtype, grad.device, owner=grad,
                           grad_ptr=ADJOINT_RETAIN_MARK)


def is_own_gradient(a: Any, g: array) -> bool:
    """True if adjoint ``g`` is the gradient of forward argument ``a`` (``a.grad``; for a
    descriptor, memory at the gradient address it carries)."""
    if isinstance(a, ArrayDescriptor):
        return bool(a._grad_ptr) and g._ptr == a._grad_ptr
    return isinstance(a, array) and g is a.grad


def caller_adjoint(a: Any, g: Any) -> Any:
    """The adjoint argument for an adjoint ``g`` a caller gives for forward argument ``a``: a
    gradient array that is not ``a``'s own is marked retained (stores' adjoints read it and
    leave it in place: it is the caller's buffer, e.g. a framework's incoming gradient)."""
    if isinstance(g, array) and g._ptr is not None and not is_own_gradient(a, g):
        return retained_adjoint(g)
    return g

