"""Arrays: the ``wp.array`` class, constructors, copies and annotation helpers."""

from warp.arrays.annotations import array1d, array2d, array3d, array4d
from warp.arrays.array import array
from warp.arrays.creation import (
    as_array,
    clone,
    copy,
    empty,
    empty_like,
    from_numpy,
    full,
    full_like,
    ones,
    ones_like,
    zeros,
    zeros_like,
)

__all__ = [
    "array",
    "array1d",
    "array2d",
    "array3d",
    "array4d",
    "as_array",
    "clone",
    "copy",
    "empty",
    "empty_like",
    "from_numpy",
    "full",
    "full_like",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
]
