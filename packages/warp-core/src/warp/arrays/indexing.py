"""Python-scope indexing of arrays: integer indices and basic slices producing views.

:func:`resolve_index` turns a key into the layout of the result: either a view (new pointer,
shape and strides) or, when every dimension gets an integer, the position of one element.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from warp.arrays.layout import MAX_DIMS
from warp.errors import ArrayShapeError


@dataclass
class IndexResult:
    """Layout of ``a[key]``: ``element`` holds the integer indices when the result is one element."""

    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    element: tuple[int, ...] | None


def _expand_ellipsis(key: tuple[Any, ...], ndim: int) -> tuple[Any, ...]:
    count = sum(1 for k in key if k is Ellipsis)
    if count == 0:
        return key
    if count > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    pos = next(i for i, k in enumerate(key) if k is Ellipsis)
    fill = (slice(None),) * max(ndim - (len(key) - 1), 0)
    return key[:pos] + fill + key[pos + 1 :]


def resolve_index(key: Any, shape: tuple[int, ...], strides: tuple[int, ...]) -> IndexResult:
    """Resolve ``key`` (ints, slices, ``...``) against a layout; raises IndexError like NumPy."""
    if not isinstance(key, tuple):
        key = (key,)
    ndim = len(shape)
    key = _expand_ellipsis(key, ndim)
    if len(key) > ndim:
        raise IndexError(
            f"too many indices for array: array is {ndim}-dimensional, but {len(key)} were indexed"
        )
    offset = 0
    new_shape: list[int] = []
    new_strides: list[int] = []
    ints: list[int] = []
    for axis, k in enumerate(key):
        n = shape[axis]
        s = strides[axis]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            if length > 0:
                offset += start * s
            new_shape.append(length)
            new_strides.append(s * step)
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            i = int(k)
            if i < 0:
                i += n
            if not 0 <= i < n:
                raise IndexError(f"index {int(k)} is out of bounds for axis {axis} with size {n}")
            offset += i * s
            ints.append(i)
        else:
            raise TypeError(
                f"array indices must be integers, slices or '...', not {type(k).__name__} "
                "(use .numpy() for advanced indexing)"
            )
    rest = len(key)
    new_shape.extend(shape[rest:])
    new_strides.extend(strides[rest:])
    if not new_shape:
        return IndexResult(offset, (), (), tuple(ints))
    return IndexResult(offset, tuple(new_shape), tuple(new_strides), None)


def resolve_reshape(shape: Any, size: int, old_shape: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """Resolve a target shape for ``reshape`` of ``size`` elements (of shape ``old_shape``) (one
    dimension may be -1); :class:`ArrayShapeError` when the sizes differ."""
    dims = [int(shape)] if isinstance(shape, (int, np.integer)) else [int(d) for d in shape]
    if not 1 <= len(dims) <= MAX_DIMS:
        raise ValueError(
            f"invalid array shape {tuple(dims)}: arrays have 1 to {MAX_DIMS} dimensions, not {len(dims)}"
        )
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension (-1) in reshape")
    if any(d < -1 for d in dims):
        raise ValueError(f"invalid shape {tuple(dims)} for reshape")
    source = f"array of size {size}" if old_shape is None else f"array of shape {old_shape} (size {size})"
    if unknown:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or size % known != 0:
            raise ArrayShapeError(f"cannot reshape {source} into shape {tuple(dims)}")
        dims[unknown[0]] = size // known
    if math.prod(dims) != size:
        raise ArrayShapeError(f"cannot reshape {source} into shape {tuple(dims)} (size {math.prod(dims)})")
    return tuple(dims)
