"""Framework tensors viewed as warp arrays: the steps the PyTorch and Paddle conversions share.

A framework module finds a tensor's pointer, shape, element strides, warp scalar type and
device; these helpers turn that into a layout (byte strides, vector/matrix elements folded
from trailing dimensions), a ``wp.array`` or launch descriptor over the same memory, and the
in-place launch argument used when a tensor is passed straight to ``wp.launch``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from warp.extending import (
    array,
    ArrayDescriptor,
    Device,
    fold_element_dims,
    is_generic_dtype,
    make_descriptor,
    resolve_dtype,
    wrap_memory,
)

#: ``(ptr, shape, byte_strides, warp dtype, device)`` of a tensor viewed as warp elements
Layout = tuple[int, tuple[int, ...], tuple[int, ...], Any, Device]
LayoutFn = Callable[[Any, Any, str], Layout]


def element_layout(ptr: int, shape: Sequence[int], elem_strides: Sequence[int], scalar: Any, itemsize: int,
                   dtype: Any, device: Device, what: str) -> Layout:
    """The layout of a tensor of ``scalar`` elements viewed as ``dtype`` (None: the scalar type).

    A vector/matrix ``dtype`` folds the matching trailing dimensions into elements; 0-d tensors
    become one-element arrays; more than four dimensions is a ValueError naming ``what``.
    """
    shape = tuple(int(n) for n in shape)
    strides = tuple(int(s) * itemsize for s in elem_strides)
    if not shape:
        shape, strides = (1,), (itemsize,)
    if dtype is None or dtype is scalar or is_generic_dtype(dtype):
        target = scalar
    else:
        target = resolve_dtype(dtype)
        if target is not scalar:
            shape, strides = fold_element_dims(shape, strides, scalar, target, what)
    if len(shape) > 4:
        raise ValueError(f"{what}: tensors with {len(shape)} dimensions cannot be warp arrays (at most 4)")
    return ptr, shape, strides, target, device


def wrap_tensor(t: Any, layout: Layout, grad: Any, return_ctype: bool,
                wrap_grad: Callable[[Any, Any], array], capacity: int | None = None) -> Any:
    """A ``wp.array`` (or, with ``return_ctype``, a launch descriptor) over tensor ``t``'s memory.

    ``grad`` is None, a warp array, or a framework tensor that ``wrap_grad(tensor, dtype)``
    wraps as the array's gradient. The result keeps ``t`` (and ``grad``) alive. ``capacity``:
    the bytes of the tensor's storage from its first element on (default: those it spans).
    """
    ptr, shape, strides, target, device = layout
    if return_ctype:
        grad_ptr = 0 if grad is None else ((grad.ptr or 0) if isinstance(grad, array) else grad.data_ptr())
        return make_descriptor(ptr, shape, strides, target, device, (t, grad), grad_ptr)
    grad_array = None
    if grad is not None:
        grad_array = grad if isinstance(grad, array) else wrap_grad(grad, target)
    return wrap_memory(ptr, shape, strides, target, device, t, grad_array, capacity)


def launch_arg(t: Any, dtype: Any, layout_of: LayoutFn) -> ArrayDescriptor:
    """A launch argument viewing tensor ``t`` in place (no gradient).

    A tensor that cannot be viewed as ``dtype`` keeps its own element type, so that the launch
    reports the mismatch with the kernel and parameter names.
    """
    try:
        layout = layout_of(t, dtype, "wp.launch")
    except TypeError:
        layout = layout_of(t, None, "wp.launch")
    ptr, shape, strides, target, device = layout
    return make_descriptor(ptr, shape, strides, target, device, t)
