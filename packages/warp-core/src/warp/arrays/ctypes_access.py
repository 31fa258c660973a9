"""ctypes access to an array: a typed pointer to its elements and its descriptor as a structure.

The functions take the array (``wp.array``); ``array.cptr`` and ``array.__ctype__`` delegate here.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any

from warp.types.ctypes_layout import ArrayDescriptorC, ctype_of

if TYPE_CHECKING:
    from warp.arrays.array import array


def element_pointer(arr: array) -> Any:
    """A ctypes pointer (typed by ``ctype_of``) to the elements of a contiguous CPU array; None
    for an array without elements; RuntimeError for other arrays."""
    arr._check_concrete("cptr()")
    if not arr._device.is_cpu or not arr._is_contiguous:
        layout = "contiguous" if arr._is_contiguous else "non-contiguous"
        raise RuntimeError(f"cptr() needs a contiguous CPU array, got a {layout} array on {arr._device}")
    if not arr._ptr:
        return None
    return ctypes.cast(arr._ptr, ctypes.POINTER(ctype_of(arr._dtype)))


def descriptor_struct(arr: array) -> ArrayDescriptorC:
    """``arr``'s kernel-argument descriptor as a ctypes structure (a copy)."""
    arr._check_concrete("__ctype__()")
    assert arr._desc is not None  # a concrete array always has its descriptor
    return ArrayDescriptorC.from_buffer_copy(arr._desc)
