"""``wp.HashGrid``: points bucketed into a hashed grid of cells, for neighbour queries in kernels.

A point ``p`` lies in the integer cell ``floor(p / cell_width)`` (per axis, in float32 as the
kernels compute it), clamped so that no cell arithmetic overflows (:mod:`warp_geometry.hash_grid_cells`).
Cells map to ``dim_x * dim_y * dim_z`` buckets, so space wraps around and far-apart cells may
share a bucket (the queries return them too: callers filter by distance, as in NVIDIA Warp).
Building sorts the point indices by bucket on the grid's device, in kernels
(:mod:`warp_geometry.hash_grid_build`: no round trip through the host, so a build on a CUDA
device stays there and can be captured in a CUDA graph), and records each bucket's range.

Grids of ``wp.float16`` and ``wp.float64`` points (``HashGrid(..., dtype=)``) bucket the points
converted to float32 (exactly for float16; float64 rounding is covered by the queries' padding),
so their queries return the same candidates as a float32 grid of the converted points. Points
may carry group ids (``build(..., groups=)``): a query given a group visits only that group's
points (the query skips the other groups).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import warp as wp
from warp.extending import DeviceMismatchError
from warp_geometry.descriptors import Descriptor, Releasable
from warp_geometry.hash_grid_build import BuildScratch, sort_by_bucket



@wp.struct
class HashGridData:
    """Kernel-side hash grid: point indices sorted by bucket and each bucket's range."""

    point_ids: wp.array(dtype=wp.int32)
    cell_starts: wp.array(dtype=wp.int32)
    cell_ends: wp.array(dtype=wp.int32)
    #: group id of each sorted point (empty when the grid was built without groups: all group 0)
    point_groups: wp.array(dtype=wp.int32)
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
        raise RuntimeError(f"wp.HashGrid: cell count exceeds supported limit: {dims[0]}x{dims[1]}x{dims[2]} "
                           "cells do not fit 32-bit bucket indices")
    return dims[0], dims[1], dims[2]


#: point scalar types a grid accepts
GRID_DTYPES = (wp.float16, wp.float32, wp.float64)


def _grid_dtype(dtype: Any) -> Any:
    for t in GRID_DTYPES:
        if dtype is t:
            return t
    names = ", ".join(f"wp.{t.__name__}" for t in GRID_DTYPES)
    raise TypeError(f"wp.HashGrid: dtype must be one of {names}, got {dtype!r}")


class HashGrid(Releasable):
    """A hash grid of ``dim_x * dim_y * dim_z`` buckets for neighbour queries on points.

    ``build(points, radius)`` buckets ``points`` (a ``wp.vec3`` array) into cubic cells of width
    ``radius``; kernels then iterate candidate neighbours of a point with
    ``wp.hash_grid_query(id, p, max_dist)`` and ``wp.hash_grid_query_next(query, index)``.
    """

    def __init__(self, dim_x: int, dim_y: int, dim_z: int, device: Any = None, dtype: Any = wp.float32):
        self.dtype = _grid_dtype(dtype)
        self.dims = _dims(dim_x, dim_y, dim_z)
        self.device = wp.get_device(device)
        num_cells = self.dims[0] * self.dims[1] * self.dims[2]
        self._starts = wp.zeros(num_cells, dtype=wp.int32, device=self.device)
        self._ends = wp.zeros(num_cells, dtype=wp.int32, device=self.device)
        self._ids = wp.zeros(0, dtype=wp.int32, device=self.device)
        self._groups = wp.zeros(0, dtype=wp.int32, device=self.device)  # room for group ids
        self._no_groups = self._groups  # what kernels see after a build without groups
        self._point_groups = self._no_groups
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
        groups = self._point_groups
        key = (self._ids.ptr, groups.ptr, groups.shape[0], num_points, float(inv_width))
        if key == self._written:
            return
        self._written = key
        self._descriptor.update(
            point_ids=self._ids,
            cell_starts=self._starts,
            cell_ends=self._ends,
            point_groups=self._point_groups,
            inv_cell_width=float(inv_width),
            dim_x=self.dims[0],
            dim_y=self.dims[1],
            dim_z=self.dims[2],
            num_points=num_points,
        )

    def reserve(self, num_points: int, with_groups: bool = False) -> None:
        """Allocate room for ``num_points`` points (``build`` grows the storage as needed), and
        for their group ids with ``with_groups=True``."""
        if self.device.is_capturing:
            raise NotImplementedError(
                "wp.HashGrid.reserve cannot run inside a graph capture: reserve before capture"
            )
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
        if with_groups:
            self.reserve_groups(int(num_points))
        self.reserved = True
        n = self._descriptor.value.num_points
        self._write(min(n, self._capacity), np.float32(self._descriptor.value.inv_cell_width))

    def reserve_groups(self, num_points: int) -> None:
        """Allocate room for the group ids of ``num_points`` points."""
        if self._groups.shape[0] < num_points:
            grouped = self._point_groups is self._groups
            self._groups = wp.zeros(int(num_points), dtype=wp.int32, device=self.device)
            if grouped:
                self._point_groups = self._groups

    def _check_input(self, value: Any, name: str, dtype: Any) -> Any:
        """``value`` if it is a ``wp.array`` of ``dtype`` on the grid's device (any shape and strides)."""
        owner = "wp.HashGrid.build"
        if not isinstance(value, wp.array):
            raise TypeError(f"{owner}: '{name}' must be a wp.array of {wp.types.type_repr(dtype)}, "
                            f"got {type(value).__name__}")
        if value.dtype != dtype:
            raise TypeError(f"{owner}: '{name}' must hold {wp.types.type_repr(dtype)} (the grid's dtype is "
                            f"wp.{self.dtype.__name__}), got {wp.types.type_repr(value.dtype)}")
        if value.device != self.device:
            raise DeviceMismatchError(f"{owner}: {name} must live on the same device as the grid: {name} are "
                                      f"on {value.device}, the grid on {self.device}")
        return value

    def build(self, points: Any, radius: float, groups: Any = None) -> None:
        """Bucket ``points`` (an array of 3-vectors of the grid's dtype, any shape: indices are
        row-major positions) into cells of width ``radius``; call again when they move.
        ``groups`` (int32 array of the same shape) gives each point a group id for grouped queries.

        Inside a graph capture on the CPU the build is recorded: each replay rebuilds the grid from
        the values the arrays hold then (storage grows at replay as needed).
        """
        self._check_input(points, "points", wp.types.vector(3, self.dtype))
        if groups is not None:
            self._check_input(groups, "groups", wp.int32)
            if groups.size != points.size:
                raise ValueError(
                    f"wp.HashGrid.build: groups has {groups.size} entries for {points.size} points"
                )
        radius = float(radius)
        with np.errstate(over="ignore", divide="ignore"):
            inv = np.float32(1.0) / np.float32(radius)
        if not np.isfinite(radius) or radius <= 0.0 or not np.isfinite(inv) or inv <= 0.0:
            raise ValueError(
                f"wp.HashGrid.build: radius must be a positive finite number whose float32 inverse "
                f"is positive and finite, got {radius!r}"
            )
        if self.device.is_capturing and self.device.is_cpu:
            # a CPU capture records the build itself: each replay rebuilds from the values the
            # arrays hold then, growing the storage as needed
            rebuild = lambda: self._build_now(points, radius, groups)  # noqa: E731
            self.device.target.capture_host_callback(self.device, rebuild)
        else:
            self._build_now(points, radius, groups)

    def _build_now(self, points: Any, radius: float, groups: Any) -> None:
        flat = points.contiguous().flatten()
        n = int(flat.shape[0])
        if n > self._capacity:
            self._grow_while_capturing_check(n)
            self.reserve(n)
        if groups is None:
            group_ids = self._no_groups
            self._point_groups = self._no_groups
        else:
            group_ids = groups.contiguous().flatten()
            if self._groups.shape[0] < n:
                self._grow_while_capturing_check(n)
            self.reserve_groups(n)
            self._point_groups = self._groups
        inv = np.float32(1.0) / np.float32(radius)  # checked by build
        sort_by_bucket(flat, float(inv), self.dims, self._scratch, self._ids, self._starts, self._ends,
                       group_ids, self._point_groups)
        self.cell_width = radius
        self.reserved = True
        self._write(n, inv)

    def _grow_while_capturing_check(self, n: int) -> None:
        if self.device.is_capturing:
            raise RuntimeError(
                f"wp.HashGrid.build: {n} points do not fit the grid's storage inside a graph capture on "
                f"{self.device}: build (or reserve) with at least as many points before capturing"
            )
