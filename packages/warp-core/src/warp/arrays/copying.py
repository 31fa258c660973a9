"""Copies between arrays (``wp.copy``, and the copies the array class makes of itself: ``.to()``,
``.contiguous()``, ``array(data=...)`` of CUDA memory, ``__dlpack__(copy=True)``).

Only the arrays' fields and methods are used, so the array class builds on this module.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from warp.arrays.capture_guard import refuse_while_capturing
from warp.arrays.conversion import is_bfloat16_element
from warp.arrays.indexed import copy_between_on_device, host_values, indexedarray, store_host_values
from warp.arrays.layout import element_info
from warp.errors import ArrayCopyError
from warp.plugins.manager import get_plugin_manager
from warp.targets import get_target
from warp.types import bfloat16_bits
from warp.types.scalars import type_repr


def copy_elements(
    dest: Any, src: Any, dest_offset: int = 0, src_offset: int = 0, count: int = 0, *, stream: Any = None
) -> None:
    """``wp.copy`` of two arrays (checked to be arrays by the caller): ``count`` elements (all of
    ``src`` from ``src_offset`` when 0).

    Offsets and counts are in elements: of the flattened arrays when both are contiguous, of the
    arrays themselves when one is a non-contiguous 1-d view (``a[::2]``). Non-contiguous arrays of
    more dimensions are copied whole and must have the same shape. On a recording ``wp.Tape`` the
    copy is differentiable (the destination window's gradient moves to the source window).
    ``stream`` (a stream of the device whose target copies; None: its current stream) orders
    contiguous copies of one dtype; the other copies go through the host and are done on return.
    """
    assert dest.device is not None and src.device is not None  # not annotations (checked by the caller)
    assert dest._ptr is not None and src._ptr is not None  # (an empty array's ptr says None)
    for what, v in (("Destination offset", dest_offset), ("Source offset", src_offset), ("count", count)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ArrayCopyError(f"copy: offsets and count must be integers, got {what} {v!r}")
        if v < 0:
            raise ArrayCopyError(f"copy: {what} must be non-negative, got {v}")
    if not (dest.is_contiguous and src.is_contiguous):
        _copy_strided(dest, src, int(dest_offset), int(src_offset), int(count))
        return
    if count == 0:
        count = src.size - src_offset
    if src_offset + count > src.size:
        raise ArrayCopyError(
            f"copy: source range [{src_offset}, {src_offset + count}) is out of bounds for source of size "
            f"{src.size} (the count exceeds the source size)"
        )
    if dest_offset + count > dest.size:
        raise ArrayCopyError(
            f"copy: destination range [{dest_offset}, {dest_offset + count}) is out of bounds for "
            f"destination of size {dest.size}"
        )
    if count <= 0:
        return
    get_plugin_manager().hook.warp_array_copied(
        dest=dest, src=src, dest_offset=dest_offset, src_offset=src_offset, count=count
    )
    itemsize = element_info(src.dtype).itemsize
    if src.dtype == dest.dtype:
        # The target of the non-host side copies (host <-> device, device <-> device, host <-> host).
        target = get_target(src.device if dest.device.is_cpu else dest.device)
        target.copy(
            dest._ptr + dest_offset * itemsize,
            dest.device,
            src._ptr + src_offset * itemsize,
            src.device,
            count * itemsize,
            stream=stream,
            keep=(dest, src),
        )
        return
    for device in {dest.device, src.device}:
        refuse_while_capturing(device, "a converting wp.copy() (between different dtypes)")
    d = dest._storage().reshape((dest.size, *element_info(dest.dtype).inner_shape))
    s = src._storage().reshape((src.size, *element_info(src.dtype).inner_shape))
    _copy_values(d[dest_offset : dest_offset + count], s[src_offset : src_offset + count], dest, src)
    if not dest.device.is_cpu:
        dest._upload(d.reshape(dest.shape + element_info(dest.dtype).inner_shape))


def copy_indexed(dest: Any, src: Any, dest_offset: int = 0, src_offset: int = 0, count: int = 0) -> None:
    """``wp.copy`` where one side (or both) is a ``wp.indexedarray``: whole arrays of one shape,
    gathered from the source and scattered into the destination (any devices: in a kernel when
    both are on one device other than the CPU with one dtype, else through the host). Offsets and
    counts are refused (an indexed array has no flat element order to count in)."""
    if dest_offset or src_offset or count:
        raise ArrayCopyError(
            "copy: offsets and count are not supported when copying indexed arrays (as for NVIDIA Warp's "
            "indexed or Fabric arrays); copy whole arrays, or index the base array's view"
        )
    if dest.shape != src.shape:
        raise ArrayCopyError(
            f"copy: indexed arrays are copied whole and must have the same shape, got destination "
            f"shape={dest.shape}, source shape={src.shape}"
        )
    if dest.size == 0:
        return
    if copy_between_on_device(dest, src):  # data on one device other than the CPU: in a kernel there
        return
    for device in {dest.device, src.device}:
        refuse_while_capturing(device, "wp.copy() of an indexed array")
    info = element_info(dest.dtype)
    values = np.empty(dest.shape + info.inner_shape, dtype=info.np_dtype)
    _copy_values(values, host_values(src), dest, src)  # converted to the destination's storage
    if isinstance(dest, indexedarray):
        dest._scatter(values, "wp.copy()")
    else:
        store_host_values(dest, values)


def _copy_strided(dest: Any, src: Any, dest_offset: int, src_offset: int, count: int) -> None:
    """``copy`` where one array is not contiguous: whole arrays of one shape, or windows of 1-d ones."""
    whole = not (dest_offset or src_offset or count)
    if whole and dest.shape == src.shape:
        window_dest, window_src, count = dest, src, dest.size
    else:
        if dest.ndim != 1 or src.ndim != 1:
            if whole:
                raise ArrayCopyError(
                    "copy: non-contiguous arrays must have the same shape, got "
                    f"destination shape={dest.shape}, source shape={src.shape}"
                )
            raise ArrayCopyError(
                "copy: offsets and counts on non-contiguous arrays are only supported for 1-D arrays, got "
                f"destination shape={dest.shape}, source shape={src.shape}"
            )
        if count == 0:
            count = src.size - src_offset
        if src_offset + count > src.size:
            raise ArrayCopyError(
                f"copy: count {count} from offset {src_offset} exceeds the source size {src.size}"
            )
        if dest_offset + count > dest.size:
            raise ArrayCopyError(
                f"copy: count {count} from offset {dest_offset} exceeds the destination size {dest.size}"
            )
        window_dest = dest[dest_offset : dest_offset + count]
        window_src = src[src_offset : src_offset + count]
    if count == 0:
        return
    # one device other than the CPU, one dtype: a kernel there (the indexed-array copy kernels with
    # no index arrays), so graph capture records it; otherwise through the host
    on_device = src.device == dest.device and not dest.device.is_cpu and src.dtype == dest.dtype
    if not on_device:
        for device in {dest.device, src.device}:
            refuse_while_capturing(device, "wp.copy() of a non-contiguous array")
    get_plugin_manager().hook.warp_array_copied(
        dest=dest, src=src, dest_offset=dest_offset, src_offset=src_offset, count=count
    )
    if on_device and copy_between_on_device(window_dest, window_src):
        return
    refuse_while_capturing(dest.device, "wp.copy() of a non-contiguous array")
    host = window_dest._storage()
    _copy_values(host, window_src._storage(), dest, src)
    if not dest.device.is_cpu:  # type: ignore[union-attr]  # checked by copy()
        window_dest._upload(host)


def _copy_values(d: np.ndarray, s: np.ndarray, dest: Any, src: Any) -> None:
    """Copy storage ``s`` of ``src`` into storage ``d`` of ``dest``, converting values (bfloat16
    storage is bit patterns: converted through float32 when only one side holds bfloat16)."""
    src_bf16, dest_bf16 = is_bfloat16_element(src.dtype), is_bfloat16_element(dest.dtype)
    if src_bf16 and not dest_bf16:
        s = bfloat16_bits.from_bits(s)
    elif dest_bf16 and not src_bf16:
        s = bfloat16_bits.to_bits(s)
    try:
        np.copyto(d, s, casting="unsafe")
    except (ValueError, TypeError) as e:
        raise ValueError(
            f"copy: cannot copy {type_repr(src.dtype)} elements to {type_repr(dest.dtype)} elements: {e}"
        ) from None


__all__ = ["copy_elements", "copy_indexed"]
