"""Views and copies of an array: ``reshape``, ``flatten``, ``view``, ``transpose``, ``contiguous``, ``to``.

The functions take the array (``wp.array``); its methods of the same names delegate here. Views
share the array's memory (``array._make_view``); copies come from ``array._clone``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from warp.arrays.indexing import resolve_reshape
from warp.arrays.layout import contiguous_strides, resolve_dtype, view_layout
from warp.runtime.devices import get_device

if TYPE_CHECKING:
    from warp.arrays.array import array


def reshape(arr: array, shape: Any) -> array:
    """A view of ``arr`` with a new shape (one dimension may be -1); ``arr`` must be contiguous."""
    arr._check_concrete("reshape()")
    new_shape = resolve_reshape(shape, arr._size, arr._shape)
    if not arr._is_contiguous:
        raise RuntimeError("reshaping non-contiguous arrays is unsupported; call .contiguous() first")
    grad = arr._grad.reshape(new_shape) if arr._grad is not None else None
    return arr._make_view(0, new_shape, contiguous_strides(new_shape, arr._info.itemsize), grad=grad)


def flatten(arr: array) -> array:
    """A 1-D view of a contiguous array."""
    arr._check_concrete("flatten()")
    if not arr._is_contiguous:
        raise RuntimeError("flattening non-contiguous arrays is unsupported; call .contiguous() first")
    return arr.reshape(-1)


def view(arr: array, dtype: Any) -> array:
    """``arr``'s memory reinterpreted as another dtype (see ``array.view``)."""
    arr._check_concrete("view()")
    dtype = resolve_dtype(dtype)
    shape, strides = view_layout(arr._shape, arr._strides, arr._dtype, dtype)
    grad = arr._grad.view(dtype) if arr._grad is not None else None
    return arr._make_view(0, shape, strides, dtype=dtype, grad=grad)


def transpose(arr: array, axes: Any = None) -> array:
    """A view of ``arr`` with permuted dimensions (reversed by default)."""
    arr._check_concrete("transpose()")
    axes = tuple(reversed(range(arr._ndim))) if axes is None else tuple(int(a) for a in axes)
    if sorted(axes) != list(range(arr._ndim)):
        raise ValueError(f"axes {axes} are not a permutation of the array's {arr._ndim} dimensions")
    grad = arr._grad.transpose(axes) if arr._grad is not None else None
    return arr._make_view(0, tuple(arr._shape[a] for a in axes), tuple(arr._strides[a] for a in axes),
                          grad=grad)


def contiguous(arr: array) -> array:
    """``arr`` if contiguous, else a contiguous copy."""
    arr._check_concrete("contiguous()")
    if arr._is_contiguous:
        return arr
    return arr._clone()


def to_device(arr: array, device: Any, requires_grad: bool | None = None) -> array:
    """``arr`` if already on ``device``, else a copy there."""
    arr._check_concrete("to()")
    device = get_device(device)
    if device == arr._device:
        return arr
    return arr._clone(device, requires_grad)
