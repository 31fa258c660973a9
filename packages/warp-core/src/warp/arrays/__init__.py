"""Arrays: the ``wp.array`` class, constructors, copies and annotation helpers."""

from warp.compiler.frontend.kernel_forms import ARRAY_FUNCTION_FORMS, register_kernel_form

from warp.arrays.annotations import array1d, array2d, array3d, array4d
from warp.arrays.array import array
from warp.arrays.indexed import indexedarray, indexedarray1d, indexedarray2d, indexedarray3d, indexedarray4d
from warp.arrays.creation import (
    as_array,
    clone,
    copy,
    empty,
    empty_like,
    from_ipc_handle,
    from_numpy,
    full,
    full_like,
    ones,
    ones_like,
    zeros,
    zeros_like,
)

# in kernel code, wp.zeros / wp.empty make local arrays, wp.copy copies a value, wp.array(ptr=...)
# views memory: the compiler's translations of these calls
for _name, _function in (("zeros", zeros), ("empty", empty), ("copy", copy), ("array", array)):
    register_kernel_form(_function, ARRAY_FUNCTION_FORMS[_name])

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
    "from_ipc_handle",
    "from_numpy",
    "indexedarray",
    "indexedarray1d",
    "indexedarray2d",
    "indexedarray3d",
    "indexedarray4d",
    "full",
    "full_like",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
]
