"""Arrays over memory that another library owns (framework tensors, DLPack producers).

:func:`wrap_memory` is the fast constructor interop plugins use: the caller has already
validated the layout (a tensor's shape and strides), so it skips the normalization that
``wp.array(ptr=...)`` does, and the array keeps ``owner`` alive instead of running a deleter.
"""

from __future__ import annotations

from typing import Any

from warp.arrays.array import array
from warp.types.array_type import MAX_DIMS
from warp.types.scalars import type_repr


def wrap_memory(ptr: int, shape: tuple[int, ...], strides: tuple[int, ...], dtype: Any, device: Any,
                owner: Any, grad: array | None = None, capacity: int | None = None) -> array:
    """A ``wp.array`` of ``shape`` ``dtype`` elements at ``ptr`` (byte ``strides``) on ``device``.

    ``owner`` (e.g. a tensor) is referenced by the array and its views for as long as they live.
    ``grad``, if given, becomes the array's gradient (same shape and dtype). ``capacity`` is the
    number of bytes usable from ``ptr`` on (default: the bytes the array spans).
    """
    if not 1 <= len(shape) <= MAX_DIMS:
        raise ValueError(f"arrays have 1 to {MAX_DIMS} dimensions, not {len(shape)} (shape {shape})")
    a = array.__new__(array)
    a._grad = None
    a._requires_grad = False
    a._setup(ptr, shape, strides, dtype, device, owner, capacity)
    if grad is not None:
        if grad._shape != shape or grad._dtype != dtype:
            raise ValueError(
                f"gradient of shape {grad._shape} and dtype {type_repr(grad._dtype)} does not match the "
                f"array (shape {shape}, dtype {type_repr(dtype)})"
            )
        a._grad = grad
        a._requires_grad = True
    a._update_desc()
    return a
