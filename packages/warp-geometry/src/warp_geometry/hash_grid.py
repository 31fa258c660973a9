"""``wp.HashGrid``: points bucketed into a hashed grid of cells, for neighbour queries in kernels.

A point ``p`` lies in the integer cell ``floor(p / cell_width)`` (per axis, in float32 as the
kernels compute it); cell ``(i, j, k)`` is stored in bucket ``(i mod dim_x) + dim_x * ((j mod
dim_y) + dim_y * (k mod dim_z))``, so space wraps around and far-apart cells may share a
bucket (the queries return them too: callers filter by distance, as in NVIDIA Warp). Building
sorts the point indices by bucket on the grid's device (:mod:`warp_geometry.hash_grid_build`)
and records each bucket's range.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import warp as wp
from warp_geometry.checks import check_vec3_array
from warp_geometry.descriptors import Descriptor
from warp_geometry.hash_grid_build import BuildScratch, sort_by_bucket


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
        self._scratch = BuildScratch(num_cells, self.device)
        self._descriptor = Descriptor(HashGridData, self.device)
        self._written: tuple[Any, ...] | None = None
        self.cell_width = 0.0
        self.reserved = False
        self._write(0, np.float32(0.0))

    @property
    def id(self) -> int:
        """Unique ``uint64`` identifier of this grid in kernels."""
        return self._descriptor.address

    def _write(self, num_points: int, inv_width: np.float32) -> None:
        # written only when it changes: rebuilding the same number of points with the same
        # radius launches kernels only (it can be captured in a CUDA graph)
        key = (self._ids.ptr, num_points, float(inv_width))
        if key == self._written:
            return
        self._written = key
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
            if self._capacity:
                wp.copy(grown, self._ids, count=self._capacity)  # keep the current build usable
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
        if not np.isfinite(radius) or radius <= 0.0:
            raise ValueError(f"wp.HashGrid.build: radius must be a positive finite number, got {radius!r}")
        n = int(points.shape[0])
        if n > self._capacity:
            self.reserve(n)
        inv = np.float32(1.0) / np.float32(radius)
        sort_by_bucket(points, float(inv), self.dims, self._scratch, self._ids, self._starts, self._ends)
        self.cell_width = radius
        self.reserved = True
        self._write(n, inv)
