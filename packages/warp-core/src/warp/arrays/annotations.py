"""Fixed-dimension array helpers: ``array1d`` .. ``array4d``.

``wp.array2d(dtype=float)`` is the annotation ``wp.array(dtype=float, ndim=2)``; with data or a
shape they construct concrete arrays like :class:`warp.arrays.array.array`. Subscripting works
too: ``wp.array2d[wp.float32]``.
"""

from __future__ import annotations

from warp.arrays.array import array


class array1d(array):
    """``array`` with ``ndim=1``."""

    _fixed_ndim_ = 1


class array2d(array):
    """``array`` with ``ndim=2``."""

    _fixed_ndim_ = 2


class array3d(array):
    """``array`` with ``ndim=3``."""

    _fixed_ndim_ = 3


class array4d(array):
    """``array`` with ``ndim=4``."""

    _fixed_ndim_ = 4


__all__ = ["array1d", "array2d", "array3d", "array4d"]
