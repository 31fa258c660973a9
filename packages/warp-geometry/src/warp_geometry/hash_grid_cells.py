"""Cells of a ``wp.HashGrid``: clamped integer cell coordinates and their buckets.

A point ``p`` lies in the integer cell ``floor(p * inv_cell_width)`` per axis (float32), clamped
to ``[-CELL_LIMIT, CELL_LIMIT]`` so that no cell arithmetic overflows 32 bits: coordinates
beyond the limit (infinities included) share the outermost cells and NaN goes to cell 0
(as in NVIDIA Warp). Clamping never brings two points farther apart, so a query that clamps its box
the same way still finds every point within its radius. Cell ``(i, j, k)`` is stored in bucket
``(i mod dim_x) + dim_x * ((j mod dim_y) + dim_y * (k mod dim_z))``.

The same rules exist twice: as kernel functions (the build and the queries) and in NumPy
(:func:`cell_of`, :func:`bucket_of`: tests and host-side checks).
"""

from __future__ import annotations

import numpy as np

import warp as wp

CELL_LIMIT = 2**29
"""Largest cell coordinate (in absolute value): boxes of 2 * CELL_LIMIT + 1 cells fit int32."""

_LIMIT = wp.constant(CELL_LIMIT)
_LIMIT_F = wp.constant(float(CELL_LIMIT))


@wp.func
def cell(v: float) -> int:
    """Clamped integer cell of ``v`` (in cell units); NaN gives cell 0."""
    if v >= _LIMIT_F:
        return _LIMIT
    if v > -_LIMIT_F:
        return int(wp.floor(v))
    if v <= -_LIMIT_F:
        return -_LIMIT
    return 0


@wp.func
def clamped(v: float) -> float:
    """``v`` clamped to the cell limits like :func:`cell` (NaN gives 0)."""
    if v >= _LIMIT_F:
        return _LIMIT_F
    if v > -_LIMIT_F:
        return v
    if v <= -_LIMIT_F:
        return -_LIMIT_F
    return 0.0


@wp.func
def wrap(c: int, dim: int) -> int:
    """``c mod dim`` in ``[0, dim)``."""
    w = c % dim
    if w < 0:
        w += dim
    return w


@wp.func
def bucket(p: wp.vec3, inv_cell_width: float, dim_x: int, dim_y: int, dim_z: int) -> int:
    """Bucket of the point ``p``."""
    x = wrap(cell(p[0] * inv_cell_width), dim_x)
    y = wrap(cell(p[1] * inv_cell_width), dim_y)
    z = wrap(cell(p[2] * inv_cell_width), dim_z)
    return x + dim_x * (y + dim_y * z)


def cell_of(scaled: np.ndarray) -> np.ndarray:
    """Clamped integer cells of coordinates in cell units (:func:`cell` in NumPy)."""
    with np.errstate(invalid="ignore"):
        inside = np.floor(np.where(np.abs(scaled) < CELL_LIMIT, scaled, 0.0)).astype(np.int64)
        return np.where(
            scaled >= CELL_LIMIT,
            CELL_LIMIT,
            np.where(scaled > -CELL_LIMIT, inside, np.where(scaled <= -CELL_LIMIT, -CELL_LIMIT, 0)),
        )


def bucket_of(points: np.ndarray, inv_cell_width: np.float32, dims: tuple[int, int, int]) -> np.ndarray:
    """Bucket of every point of an ``(n, 3)`` array (:func:`bucket` in NumPy, float32 arithmetic)."""
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = points.astype(np.float32, copy=False) * inv_cell_width
    cells = cell_of(scaled)
    dx, dy, dz = dims
    return (np.mod(cells[:, 0], dx) + dx * (np.mod(cells[:, 1], dy) + dy * np.mod(cells[:, 2], dz))).astype(
        np.int32
    )
