"""Indexed-array gathers and scatters on the data's device (not the CPU), as kernels there.

``wp.indexedarray`` and ``wp.copy`` call these for data on a device other than the CPU; they hand
the work to the ``warp_device_indexed_ops`` hook (:mod:`warp.plugins.indexed_ops`; warp-core's
``warp.indexed_kernels`` implements it), so nothing is staged through host memory and graph
capture records the launches. Each side is a data array (any strides) and one index array or
None per dimension.

Elements travel as unsigned words: the data is reinterpreted as ``uintN`` (one word per element)
or a vector of words of the widest size that the element size, the data's address and its
strides allow. So one kernel per dimension count and element size serves every element type
(floats, float16/bfloat16 bits, vectors, matrices, quaternions, transforms, structs), and a fill
value is the element's bytes as NumPy stores them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from warp.plugins.indexed_ops import device_indexed_ops
from warp.types.composite import vector
from warp.types.scalars import uint8, uint16, uint32, uint64

if TYPE_CHECKING:
    from warp.arrays.array import array

#: word size in bytes -> (warp type, NumPy type)
_WORDS: dict[int, tuple[Any, Any]] = {
    8: (uint64, np.uint64),
    4: (uint32, np.uint32),
    2: (uint16, np.uint16),
    1: (uint8, np.uint8),
}


def _word_size(itemsize: int, arrays: Sequence[array]) -> int:
    """The widest word (8, 4, 2 or 1 bytes) dividing the element size and every array's address
    and strides (so that each word access is aligned)."""
    for size in _WORDS:
        if itemsize % size == 0 and all(
            (a.ptr or 0) % size == 0 and all(s % size == 0 for s in a.strides) for a in arrays
        ):
            return size
    return 1


def _word_type(itemsize: int, size: int) -> Any:
    """The type of ``itemsize`` bytes as words of ``size`` bytes: a scalar or a vector of words."""
    scalar = _WORDS[size][0]
    count = itemsize // size
    return scalar if count == 1 else vector(count, scalar)


def _as_words(a: array, word_type: Any) -> array:
    """``a`` seen as elements of ``word_type`` (same element size, same shape and strides)."""
    return a._make_view(0, a.shape, a.strides, dtype=word_type)


def fill_on_device(data: array, indices: Sequence[array | None], pattern: bytes) -> bool:
    """Set the elements of ``data`` selected by ``indices`` to the element whose bytes are
    ``pattern``, in a kernel on ``data``'s device; False when no implementation handles it (the
    CPU, or no plugin for the device)."""
    ops = device_indexed_ops(data.device)
    if ops is None:
        return False
    size = _word_size(len(pattern), [data])
    word_type = _word_type(len(pattern), size)
    words = [int(w) for w in np.frombuffer(pattern, dtype=_WORDS[size][1])]
    value = word_type(words[0]) if len(words) == 1 else word_type(*words)
    return ops.fill(_as_words(data, word_type), list(indices), value)


def copy_on_device(
    dest: array, dest_indices: Sequence[array | None], src: array, src_indices: Sequence[array | None]
) -> bool:
    """``dest`` through ``dest_indices`` = ``src`` through ``src_indices`` (one shape, one dtype,
    one device) in a kernel there; False when no implementation handles it."""
    if dest.device != src.device or dest.dtype != src.dtype:
        return False
    ops = device_indexed_ops(dest.device)
    if ops is None:
        return False
    itemsize = dest._info.itemsize
    word_type = _word_type(itemsize, _word_size(itemsize, [dest, src]))
    return ops.copy(
        _as_words(dest, word_type), list(dest_indices), _as_words(src, word_type), list(src_indices)
    )


__all__ = ["copy_on_device", "fill_on_device"]
