"""Indexed-array gathers and scatters as kernels on the data's device: the implementation of the
``warp_device_indexed_ops`` hook (:class:`warp.plugins.indexed_ops.DeviceIndexedOps`) for every
device but the CPU.

``wp.indexedarray`` fills, assignments, gathers (``contiguous()``, ``numpy()``) and ``wp.copy``
of indexed arrays whose data is on a CUDA device run these kernels there: no host staging, so
graph capture records them. One fill kernel and one copy kernel per dimension count (1..4), generic
over the element type (``dtype=Any``; ``wp.indexedarray`` passes its data reinterpreted as
unsigned words, so one kernel serves every element type of a size). Each side of a copy is a
strided array plus one ``int32`` index array per dimension; a bit of ``whole`` per dimension says
that dimension is taken whole (its index array is then None and never read).

Index checks: the kernels skip an element whose index falls outside the data (a guard on the
device instead of a fault); ``wp.indexedarray`` raises ``IndexError`` for such indices from a host
check before launching, except during graph capture, where the host cannot read the indices (as
NVIDIA Warp, which checks nothing there).

A core plugin (``warp.plugins.manager.CORE_PLUGINS``) written with core builtins only, so it works
in core-only embedding (``WARP_DISABLE_PLUGINS=all``); the array class reaches it through the hook,
never by importing it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import warp as wp  # kernels below resolve wp.tid at compile time
from warp.arrays.array import array
from warp.decorators import func, kernel
from warp.plugins import hookimpl
from warp.runtime.devices import Device
from warp.runtime.launch import launch
from warp.types.scalars import int32

__all__ = ["IndexedKernelOps", "warp_device_indexed_ops"]


@func
def _pick(index: array(dtype=int32), whole: int, j: int) -> int:
    """Position in the data of position ``j`` of the view along one dimension."""
    if whole != 0:
        return j
    return index[j]


@func
def _inside(i: int, n: int) -> bool:
    return i >= 0 and i < n


@kernel(enable_backward=False)
def _fill_1d(data: array(dtype=Any, ndim=1), i0: array(dtype=int32), whole: int, value: Any) -> None:
    j0 = wp.tid()
    k0 = _pick(i0, whole & 1, j0)
    if _inside(k0, data.shape[0]):
        data[k0] = value


@kernel(enable_backward=False)
def _fill_2d(
    data: array(dtype=Any, ndim=2), i0: array(dtype=int32), i1: array(dtype=int32), whole: int, value: Any
) -> None:
    j0, j1 = wp.tid()
    k0 = _pick(i0, whole & 1, j0)
    k1 = _pick(i1, whole & 2, j1)
    if _inside(k0, data.shape[0]) and _inside(k1, data.shape[1]):
        data[k0, k1] = value


@kernel(enable_backward=False)
def _fill_3d(
    data: array(dtype=Any, ndim=3),
    i0: array(dtype=int32),
    i1: array(dtype=int32),
    i2: array(dtype=int32),
    whole: int,
    value: Any,
) -> None:
    j0, j1, j2 = wp.tid()
    k0 = _pick(i0, whole & 1, j0)
    k1 = _pick(i1, whole & 2, j1)
    k2 = _pick(i2, whole & 4, j2)
    if _inside(k0, data.shape[0]) and _inside(k1, data.shape[1]) and _inside(k2, data.shape[2]):
        data[k0, k1, k2] = value


@kernel(enable_backward=False)
def _fill_4d(
    data: array(dtype=Any, ndim=4),
    i0: array(dtype=int32),
    i1: array(dtype=int32),
    i2: array(dtype=int32),
    i3: array(dtype=int32),
    whole: int,
    value: Any,
) -> None:
    j0, j1, j2, j3 = wp.tid()
    k0 = _pick(i0, whole & 1, j0)
    k1 = _pick(i1, whole & 2, j1)
    k2 = _pick(i2, whole & 4, j2)
    k3 = _pick(i3, whole & 8, j3)
    inside = _inside(k0, data.shape[0]) and _inside(k1, data.shape[1])
    if inside and _inside(k2, data.shape[2]) and _inside(k3, data.shape[3]):
        data[k0, k1, k2, k3] = value


@kernel(enable_backward=False)
def _copy_1d(
    dest: array(dtype=Any, ndim=1),
    d0: array(dtype=int32),
    dest_whole: int,
    src: array(dtype=Any, ndim=1),
    s0: array(dtype=int32),
    src_whole: int,
) -> None:
    j0 = wp.tid()
    a0 = _pick(d0, dest_whole & 1, j0)
    b0 = _pick(s0, src_whole & 1, j0)
    if _inside(a0, dest.shape[0]) and _inside(b0, src.shape[0]):
        dest[a0] = src[b0]


@kernel(enable_backward=False)
def _copy_2d(
    dest: array(dtype=Any, ndim=2),
    d0: array(dtype=int32),
    d1: array(dtype=int32),
    dest_whole: int,
    src: array(dtype=Any, ndim=2),
    s0: array(dtype=int32),
    s1: array(dtype=int32),
    src_whole: int,
) -> None:
    j0, j1 = wp.tid()
    a0 = _pick(d0, dest_whole & 1, j0)
    a1 = _pick(d1, dest_whole & 2, j1)
    b0 = _pick(s0, src_whole & 1, j0)
    b1 = _pick(s1, src_whole & 2, j1)
    inside = _inside(a0, dest.shape[0]) and _inside(a1, dest.shape[1])
    if inside and _inside(b0, src.shape[0]) and _inside(b1, src.shape[1]):
        dest[a0, a1] = src[b0, b1]


@kernel(enable_backward=False)
def _copy_3d(
    dest: array(dtype=Any, ndim=3),
    d0: array(dtype=int32),
    d1: array(dtype=int32),
    d2: array(dtype=int32),
    dest_whole: int,
    src: array(dtype=Any, ndim=3),
    s0: array(dtype=int32),
    s1: array(dtype=int32),
    s2: array(dtype=int32),
    src_whole: int,
) -> None:
    j0, j1, j2 = wp.tid()
    a0 = _pick(d0, dest_whole & 1, j0)
    a1 = _pick(d1, dest_whole & 2, j1)
    a2 = _pick(d2, dest_whole & 4, j2)
    b0 = _pick(s0, src_whole & 1, j0)
    b1 = _pick(s1, src_whole & 2, j1)
    b2 = _pick(s2, src_whole & 4, j2)
    inside = _inside(a0, dest.shape[0]) and _inside(a1, dest.shape[1]) and _inside(a2, dest.shape[2])
    if inside and _inside(b0, src.shape[0]) and _inside(b1, src.shape[1]) and _inside(b2, src.shape[2]):
        dest[a0, a1, a2] = src[b0, b1, b2]


@kernel(enable_backward=False)
def _copy_4d(
    dest: array(dtype=Any, ndim=4),
    d0: array(dtype=int32),
    d1: array(dtype=int32),
    d2: array(dtype=int32),
    d3: array(dtype=int32),
    dest_whole: int,
    src: array(dtype=Any, ndim=4),
    s0: array(dtype=int32),
    s1: array(dtype=int32),
    s2: array(dtype=int32),
    s3: array(dtype=int32),
    src_whole: int,
) -> None:
    j0, j1, j2, j3 = wp.tid()
    a0 = _pick(d0, dest_whole & 1, j0)
    a1 = _pick(d1, dest_whole & 2, j1)
    a2 = _pick(d2, dest_whole & 4, j2)
    a3 = _pick(d3, dest_whole & 8, j3)
    b0 = _pick(s0, src_whole & 1, j0)
    b1 = _pick(s1, src_whole & 2, j1)
    b2 = _pick(s2, src_whole & 4, j2)
    b3 = _pick(s3, src_whole & 8, j3)
    inside = _inside(a0, dest.shape[0]) and _inside(a1, dest.shape[1]) and _inside(a2, dest.shape[2])
    inside = inside and _inside(a3, dest.shape[3]) and _inside(b0, src.shape[0])
    if inside and _inside(b1, src.shape[1]) and _inside(b2, src.shape[2]) and _inside(b3, src.shape[3]):
        dest[a0, a1, a2, a3] = src[b0, b1, b2, b3]


#: dimension count -> kernel
FILL_KERNELS = {1: _fill_1d, 2: _fill_2d, 3: _fill_3d, 4: _fill_4d}
COPY_KERNELS = {1: _copy_1d, 2: _copy_2d, 3: _copy_3d, 4: _copy_4d}


def _side(data: Any, indices: Sequence[Any | None]) -> tuple[tuple[int, ...], list[Any], int]:
    """The view's shape, the index arguments (None for whole dimensions) and the ``whole`` bits."""
    shape = tuple(n if idx is None else idx.shape[0] for n, idx in zip(data.shape, indices))
    whole = sum(1 << k for k, idx in enumerate(indices) if idx is None)
    return shape, list(indices), whole


class IndexedKernelOps:
    """:class:`warp.plugins.indexed_ops.DeviceIndexedOps` by kernel launches on the data's device
    (its current stream)."""

    def fill(self, data: Any, indices: Sequence[Any | None], value: Any) -> bool:
        """Set the indexed elements of ``data`` to ``value`` (one launch over the view's shape)."""
        kernel_ = FILL_KERNELS.get(data.ndim)
        if kernel_ is None or len(indices) != data.ndim:
            return False
        shape, index_args, whole = _side(data, indices)
        if 0 in shape:
            return True
        launch(
            kernel_,
            dim=shape,
            inputs=[data, *index_args, whole, value],
            device=data.device,
            record_tape=False,
        )
        return True

    def copy(
        self, dest: Any, dest_indices: Sequence[Any | None], src: Any, src_indices: Sequence[Any | None]
    ) -> bool:
        """Gather from ``src`` through ``src_indices`` and scatter into ``dest`` through
        ``dest_indices`` (one launch over the views' common shape)."""
        kernel_ = COPY_KERNELS.get(dest.ndim)
        if kernel_ is None or src.ndim != dest.ndim or dest.dtype != src.dtype:
            return False
        if len(dest_indices) != dest.ndim or len(src_indices) != src.ndim:
            return False
        shape, dest_args, dest_whole = _side(dest, dest_indices)
        src_shape, src_args, src_whole = _side(src, src_indices)
        if shape != src_shape:
            return False
        if 0 in shape:
            return True
        launch(
            kernel_,
            dim=shape,
            inputs=[dest, *dest_args, dest_whole, src, *src_args, src_whole],
            device=dest.device,
            record_tape=False,
        )
        return True


_OPS = IndexedKernelOps()


@hookimpl
def warp_device_indexed_ops(device: Device) -> IndexedKernelOps | None:
    """The kernels above, for every device but the CPU (whose indexed arrays NumPy handles)."""
    return None if device.is_cpu else _OPS
