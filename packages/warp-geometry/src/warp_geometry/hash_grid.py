"""``wp.HashGrid``: points bucketed into a hashed grid of cells, for neighbour queries in kernels.

A point ``p`` lies in the integer cell ``floor(p / cell_width)`` (per axis, in float32 as the
kernels compute it), clamped to ``[-CELL_LIMIT, CELL_LIMIT]`` so that no cell arithmetic
overflows 32 bits: points beyond the limit (infinities included) share the outermost cells and
NaN coordinates go to ``-CELL_LIMIT``; queries clamp their boxes the same way, and clamping
never brings two points farther apart, so a query still finds every point within its radius.
Cell ``(i, j, k)`` is stored in bucket ``(i mod dim_x) + dim_x * ((j mod
dim_y) + dim_y * (k mod dim_z))``, so space wraps around and far-apart cells may share a
bucket (the queries return them too: callers filter by distance, as in NVIDIA Warp). Building
sorts the point indices by bucket (NumPy) and records each bucket's range.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import warp as wp
from warp_geometry.checks import check_vec3_array
from warp_geometry.descriptors import Descriptor


@wp.struct
class HashGridData:
    """Kernel-side hash grid: point indices sorted by bucket and each bucket's range."""

    point_ids: wp.array(dtype=wp.int32)
    cell_starts: wp.array(dtype=wp.int32)
    cell_ends: wp.array(dtype=wp.int32)
    inv_cell_width: wp.float32
    dim_x: wp.int32
    dim_y: wp.int32
    dim_z: wp.int32
    num_points: wp.int32


def _dims(dim_x: Any, dim_y: Any, dim_z: Any) -> tuple[int, int, int]:
    dims = []
    for name, d in (("dim_x", dim_x), ("dim_y", dim_y), ("dim_z", dim_z)):
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 1:
            raise ValueError(f"wp.HashGrid: {name} must be a positive integer, got {d!r}")
        dims.append(int(d))
    if dims[0] * dims[1] * dims[2] >= 2**31:
        raise ValueError(f"wp.HashGrid: {dims[0]}x{dims[1]}x{dims[2]} cells do not fit 32-bit bucket indices")
    return dims[0], dims[1], dims[2]


CELL_LIMIT = 2**29
"""Largest cell coordinate (in absolute value): boxes of 2 * CELL_LIMIT + 1 cells fit int32."""


def cell_of(scaled: np.ndarray) -> np.ndarray:
    """Clamped integer cell of coordinates in cell units (``hash_grid_queries._cell`` in NumPy)."""
    with np.errstate(invalid="ignore"):
        inside = np.floor(np.where(np.abs(scaled) < CELL_LIMIT, scaled, 0.0)).astype(np.int64)
        return np.where(scaled >= CELL_LIMIT, CELL_LIMIT, np.where(scaled > -CELL_LIMIT, inside, -CELL_LIMIT))


def bucket_of(points: np.ndarray, inv_cell_width: np.float32, dims: tuple[int, int, int]) -> np.ndarray:
    """Bucket index of every point (float32 arithmetic, as in the kernels)."""
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = points.astype(np.float32, copy=False) * inv_cell_width
    cells = cell_of(scaled)
    dx, dy, dz = dims
    return (np.mod(cells[:, 0], dx) + dx * (np.mod(cells[:, 1], dy) + dy * np.mod(cells[:, 2], dz))).astype(
        np.int32
    )


class HashGrid:
    """A hash grid of ``dim_x * dim_y * dim_z`` buckets for neighbour queries on points.

    ``build(points, radius)`` buckets ``points`` (a ``wp.vec3`` array) into cubic cells of width
    ``radius``; kernels then iterate candidate neighbours of a point with
    ``wp.hash_grid_query(id, p, max_dist)`` and ``wp.hash_grid_query_next(query, index)``.
    """

    def __init__(self, dim_x: int, dim_y: int, dim_z: int, device: Any = None):
        self.dims = _dims(dim_x, dim_y, dim_z)
        self.device = wp.get_device(device)
        num_cells = self.dims[0] * self.dims[1] * self.dims[2]
        self._starts = wp.zeros(num_cells, dtype=wp.int32, device=self.device)
        self._ends = wp.zeros(num_cells, dtype=wp.int32, device=self.device)
        self._ids = wp.zeros(0, dtype=wp.int32, device=self.device)
        self._capacity = 0
        self._descriptor = Descriptor(HashGridData, self.device)
        self.cell_width = 0.0
        self.reserved = False
        self._write(0, np.float32(0.0))

    @property
    def id(self) -> int:
        """Unique ``uint64`` identifier of this grid in kernels."""
        return self._descriptor.address

    def _write(self, num_points: int, inv_width: np.float32) -> None:
        self._descriptor.update(
            point_ids=self._ids,
            cell_starts=self._starts,
            cell_ends=self._ends,
            inv_cell_width=float(inv_width),
            dim_x=self.dims[0],
            dim_y=self.dims[1],
            dim_z=self.dims[2],
            num_points=num_points,
        )

    def reserve(self, num_points: int) -> None:
        """Allocate room for ``num_points`` points (``build`` grows the storage as needed)."""
        if not isinstance(num_points, (int, np.integer)) or num_points < 0:
            raise ValueError(
                f"wp.HashGrid.reserve: num_points must be a non-negative integer, got {num_points!r}"
            )
        if num_points > self._capacity:
            grown = wp.zeros(int(num_points), dtype=wp.int32, device=self.device)
            grown.numpy()[: self._capacity] = self._ids.numpy()  # keep the current build usable
            self._ids = grown
            self._capacity = int(num_points)
        self.reserved = True
        n = self._descriptor.value.num_points
        self._write(min(n, self._capacity), np.float32(self._descriptor.value.inv_cell_width))

    def build(self, points: Any, radius: float) -> None:
        """Bucket ``points`` (``wp.vec3`` array) into cells of width ``radius``; call again when they move."""
        check_vec3_array(points, "wp.HashGrid.build", "points")
        if points.device != self.device:
            raise ValueError(
                f"wp.HashGrid.build: points are on {points.device} but the grid on {self.device}"
            )
        radius = float(radius)
        with np.errstate(over="ignore", divide="ignore"):
            inv = np.float32(1.0) / np.float32(radius)
        if not np.isfinite(radius) or radius <= 0.0 or not np.isfinite(inv) or inv <= 0.0:
            raise ValueError(
                f"wp.HashGrid.build: radius must be a positive finite number whose float32 inverse "
                f"is positive and finite, got {radius!r}"
            )
        n = int(points.shape[0])
        if n > self._capacity:
            self.reserve(n)
        buckets = bucket_of(points.numpy(), inv, self.dims)
        order = np.argsort(buckets).astype(np.int32)  # order inside a bucket is irrelevant
        counts = np.bincount(buckets, minlength=self._starts.shape[0])
        ends = np.cumsum(counts)
        self._ids.numpy()[:n] = order
        self._starts.assign((ends - counts).astype(np.int32))
        self._ends.assign(ends.astype(np.int32))
        self.cell_width = radius
        self.reserved = True
        self._write(n, inv)
