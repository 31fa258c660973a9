"""``wp.utils.array_cast`` in kernels on the arrays' device (part of the ``warp_device_array_utils``
hook, :class:`warp.plugins.array_utils.DeviceArrayUtils`).

Both arrays are seen as arrays of their scalar components (a ``vec3f`` array of shape ``(n,)`` as
float32 components of shape ``(n, 3)``, a ``mat22`` one as ``(n, 4)``): every dimension whose
stride lets it merge with the next one is merged, so contiguous arrays become one 1-D run of
components and strided views keep at most four dimensions. One generic kernel converts component
``i`` (row-major) of the source into component ``i`` of the destination with the destination's
scalar constructor (``dst.dtype(x)``), for the first ``count`` components; a second one does the
same through 4-D views for strided arrays. The kernels are generic over both element types
(``dtype=Any``): one overload is compiled per scalar type pair used.

Conversions are those of the kernel language, the C casts of the host path (NumPy ``astype``)
wherever C defines the result: integers wrap to narrower integers, floats to integers truncate,
integers and wider floats round to the nearest float (bfloat16: one rounding; integers through
float64), ``bool`` is "not zero" (NaN is true). Where C leaves the result undefined (NaN or a
float out of the integer type's range, negative floats to unsigned types) the device saturates
(NaN gives 0, out-of-range values the type's minimum or maximum), which NumPy on the host need not
do.
"""

from __future__ import annotations

import math
from typing import Any

import warp as wp

#: largest launch the kernels index with ``int`` thread ids
_INT32_MAX = 2**31 - 1


@wp.kernel(enable_backward=False)
def _cast_flat(src: wp.array(dtype=Any), dst: wp.array(dtype=Any)):
    i = wp.tid()
    dst[i] = dst.dtype(src[i])


@wp.func
def _unravel(i: int, n1: int, n2: int, n3: int):
    """The row-major index ``(i0, i1, i2, i3)`` of flat index ``i`` in a 4-D shape ``(_, n1, n2, n3)``."""
    r = i // n3
    i3 = i - r * n3
    q = r // n2
    i2 = r - q * n2
    i0 = q // n1
    i1 = q - i0 * n1
    return i0, i1, i2, i3


@wp.kernel(enable_backward=False)
def _cast_strided(src: wp.array4d(dtype=Any), dst: wp.array4d(dtype=Any)):
    i = wp.tid()
    s0, s1, s2, s3 = _unravel(i, src.shape[1], src.shape[2], src.shape[3])
    d0, d1, d2, d3 = _unravel(i, dst.shape[1], dst.shape[2], dst.shape[3])
    dst[d0, d1, d2, d3] = dst.dtype(src[s0, s1, s2, s3])


def _scalar_type(dtype: Any) -> Any:
    return getattr(dtype, "_wp_scalar_type_", dtype)


def _component_dims(a: Any) -> list[tuple[int, int]] | None:
    """(size, byte stride) of every dimension of ``a`` seen as an array of scalar components
    (element dimensions, then the components of one element as one dimension), with dimensions
    of size 1 dropped and mergeable neighbours merged; None for element types without scalar
    components (structs)."""
    scalar = _scalar_type(a.dtype)
    if not wp.types.is_scalar_type(scalar):
        return None
    size = scalar._bits_ // 8
    components = math.prod(getattr(a.dtype, "_shape_", ()))
    dims = [*zip(a.shape, a.strides), (components, size)]
    merged: list[tuple[int, int]] = []
    for n, stride in dims:
        if n == 1:
            continue
        if merged and merged[-1][1] == n * stride:  # the outer one steps over this one whole
            merged[-1] = (merged[-1][0] * n, stride)
        else:
            merged.append((n, stride))
    return merged


def _view(a: Any, dims: list[tuple[int, int]], ndim: int) -> Any:
    """``a``'s scalar components as an ``ndim``-D array (1 or 4) of the given (size, byte stride)
    dimensions, padded with leading dimensions of size 1."""
    scalar = _scalar_type(a.dtype)
    if ndim == 1:
        n, stride = dims[0] if dims else (1, scalar._bits_ // 8)
        return wp.array(ptr=a.ptr, shape=(n,), strides=(stride,), dtype=scalar, device=a.device)
    padded = [(1, 0)] * (4 - len(dims)) + dims
    shape = tuple(n for n, _ in padded)
    strides = tuple(s for _, s in padded)
    return wp.array(ptr=a.ptr, shape=shape, strides=strides, dtype=scalar, device=a.device)


def array_cast(in_array: Any, out_array: Any, count: int) -> bool:
    """Convert the first ``count`` scalar components of ``in_array`` (row-major, components of an
    element after each other) into the first ``count`` components of ``out_array``, in kernels.
    Not handled: struct elements, strided views needing more than four dimensions."""
    src_dims, dst_dims = _component_dims(in_array), _component_dims(out_array)
    if src_dims is None or dst_dims is None or count > _INT32_MAX:
        return False
    if len(src_dims) > 4 or len(dst_dims) > 4:
        return False
    if count == 0:
        return True
    flat = len(src_dims) <= 1 and len(dst_dims) <= 1
    kernel, ndim = (_cast_flat, 1) if flat else (_cast_strided, 4)
    inputs = [_view(in_array, src_dims, ndim), _view(out_array, dst_dims, ndim)]
    wp.launch(kernel, dim=count, inputs=inputs, device=in_array.device, record_tape=False)
    return True
