"""Shared pieces of the grid iso-surface extractors: the field check, node placement, grid-edge
crossing flags and the cell-edge table."""

from __future__ import annotations

from typing import Any

import numpy as np

import warp
from warp.arrays import array, array2d, array3d
from warp.decorators import func, kernel
from warp.geometry import mc_tables
from warp.types.composite import vector
from warp.types.scalars import float32, int32
from warp.utils import array_scan

vec3 = vector(3, float32)
vec3i = vector(3, int32)


@func
def axis_step(d: int32) -> vec3i:
    """The unit step along grid axis ``d`` (0, 1 or 2): from an edge's first node to its other."""
    return vec3i(int32(d == 0), int32(d == 1), int32(d == 2))


@func
def edge_end(d: int32, i: int32, j: int32, k: int32) -> vec3i:
    """The other node of the grid edge along axis ``d`` from node ``(i, j, k)``."""
    s = axis_step(d)
    return vec3i(i + s[0], j + s[1], k + s[2])


@func
def edge_index(field: array3d(dtype=float32), d: int32, i: int32, j: int32, k: int32) -> int32:
    """The number of the grid edge along axis ``d`` from node ``(i, j, k)`` of ``field``'s node
    grid (axis-major: ``3 * nx * ny * nz`` numbers, some naming edges past the grid's end)."""
    return ((d * field.shape[0] + i) * field.shape[1] + j) * field.shape[2] + k


@func
def cell_edge_index(
    field: array3d(dtype=float32), edges_of_cell: array2d(dtype=int32), e: int32, i: int32, j: int32, k: int32
) -> int32:
    """The grid-edge number (:func:`edge_index`) of edge ``e`` of cell ``(i, j, k)`` (``edges_of_cell``:
    :func:`edge_base`)."""
    return edge_index(
        field, edges_of_cell[e, 3], i + edges_of_cell[e, 0], j + edges_of_cell[e, 1], k + edges_of_cell[e, 2]
    )


@func
def cell_index(field: array3d(dtype=float32), i: int32, j: int32, k: int32) -> int32:
    """The number of cell ``(i, j, k)`` of ``field``'s grid (row-major over the cells)."""
    return (i * (field.shape[1] - 1) + j) * (field.shape[2] - 1) + k


@kernel
def edge_flags(
    field: array3d(dtype=float32), threshold: float32, flags: array(dtype=int32)
) -> None:
    d, i, j, k = warp.tid()
    q = edge_end(d, i, j, k)
    flag = 0
    if q[0] < field.shape[0] and q[1] < field.shape[1] and q[2] < field.shape[2]:
        if (field[i, j, k] < threshold) != (field[q[0], q[1], q[2]] < threshold):
            flag = 1
    flags[edge_index(field, d, i, j, k)] = flag


def edge_base() -> np.ndarray:
    """Per cell edge: offset of its lower corner in the cell and its axis (int32, shape (12, 4))."""
    rows = []
    for a, b in mc_tables.EDGE_TO_CORNERS:
        oa, ob = mc_tables.CUBE_CORNER_OFFSETS[a], mc_tables.CUBE_CORNER_OFFSETS[b]
        axis = next(n for n in range(3) if oa[n] != ob[n])
        rows.append([*map(min, oa, ob), axis])
    return np.array(rows, dtype=np.int32)


def check_field(what: str, field: Any) -> None:
    """Raise unless ``field`` is a 3-D float32 array with at least 2 nodes on each axis."""
    if not isinstance(field, array):
        raise TypeError(f"{what} needs a 3-D wp.array of float32 field values, got {type(field).__name__}")
    if field.ndim != 3:
        raise ValueError(f"{what} needs a 3-D array of field values, got {field.ndim} dimension(s)")
    if field.dtype != float32:
        raise TypeError(f"{what} needs float32 field values, got an array of {field.dtype.__name__}")
    if min(field.shape) < 2:
        raise ValueError(f"{what} needs a field with at least 2 nodes on each axis, got shape {field.shape}")


def node_bounds(shape: tuple[int, ...], lower: Any, upper: Any) -> tuple[Any, Any]:
    """``(lower, spacing)`` as vec3: node ``(i, j, k)`` lies at ``lower + spacing * (i, j, k)``.
    By default ``lower`` is the origin and ``upper`` the last node's index (index coordinates)."""
    cells = np.array([n - 1 for n in shape], dtype=np.float64)
    lo = np.zeros(3) if lower is None else np.array([float(v) for v in lower])
    hi = cells if upper is None else np.array([float(v) for v in upper])
    return vec3(*lo), vec3(*((hi - lo) / cells))


def exclusive_scan(flags: array) -> tuple[array, int]:
    """The exclusive prefix sums of an int32 array and its total."""
    n = flags.shape[0]
    out = warp.empty(n, dtype=int32, device=flags.device)
    array_scan(flags, out, inclusive=False)
    return out, int(out[n - 1 : n].numpy()[0] + flags[n - 1 : n].numpy()[0])
