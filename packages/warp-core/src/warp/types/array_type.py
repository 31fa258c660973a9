"""The compiler's view of an array: element type plus number of dimensions.

``wp.array(dtype=float, ndim=2)`` used as an annotation describes the same thing; the compiler
turns annotations and concrete arrays into an :class:`ArrayType`, which is hashable and is what
the IR, the overload matcher and the kernel cache key see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warp.types.scalars import canonical_type, type_repr

#: Most dimensions an array may have.
MAX_DIMS = 4

#: Layout of an array argument as kernels see it (little endian): data pointer, grad pointer,
#: shape[4] as int32, strides[4] in bytes as int64. 64 bytes.
ARRAY_DESC_FORMAT = "<QQ4i4q"
ARRAY_DESC_SIZE = 64
#: Value of the grad pointer field of an *adjoint* array argument (adjoint arrays have no
#: gradient of their own) marking a ``retain_grad`` array's gradient: the adjoints of stores
#: leave its elements in place instead of consuming (zeroing) them. Never a valid address.
ADJOINT_RETAIN_MARK = 1


@dataclass(frozen=True)
class ArrayType:
    """Type of an array value in kernels: ``dtype`` and ``ndim``."""

    dtype: Any
    ndim: int = 1
    is_array_type = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", canonical_type(self.dtype))
        if not 1 <= self.ndim <= MAX_DIMS:
            raise ValueError(f"arrays have 1 to {MAX_DIMS} dimensions, not {self.ndim}")

    def __repr__(self) -> str:
        return f"array(dtype={type_repr(self.dtype)}, ndim={self.ndim})"

    __str__ = __repr__


@dataclass(frozen=True)
class FixedArrayType(ArrayType):
    """Type of a kernel-local array of fixed ``shape`` (``wp.zeros(shape, dtype)`` in a kernel).

    Its values are ordinary array values whose elements live on the stack of the function that
    created them; NVIDIA Warp calls the type ``fixedarray``.
    """

    shape: tuple[int, ...] = ()

    def __repr__(self) -> str:
        return f"fixedarray(dtype={type_repr(self.dtype)}, shape={self.shape})"

    __str__ = __repr__
