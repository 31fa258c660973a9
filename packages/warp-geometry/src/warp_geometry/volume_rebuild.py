"""Topologies of allocated volumes, and the capacities of rebuildable ones.

``Volume.allocate_by_tiles`` / ``allocate_by_voxels`` turn points into a tree here (points to
index coordinates, then leaves). A volume allocated with ``rebuildable=True`` keeps its id while
:meth:`Volume.rebuild` replaces its topology with that of new points, within capacities fixed at
allocation (active voxels, leaves, lower and upper nodes); a topology that does not fit leaves the
volume empty and sets the status flags naming what overflowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

import warp as wp
from warp_geometry import nanovdb
from warp_geometry.volume_topology import grid_from_leaves

#: status codes written by allocation and rebuild of rebuildable volumes (bit flags)
REBUILD_SUCCESS = 0
REBUILD_VOXEL_CAPACITY_EXCEEDED = 1
REBUILD_LEAF_CAPACITY_EXCEEDED = 2
REBUILD_LOWER_CAPACITY_EXCEEDED = 4
REBUILD_UPPER_CAPACITY_EXCEEDED = 8
REBUILD_INVALID_INPUT = 16

_EXCEEDED = (
    (REBUILD_VOXEL_CAPACITY_EXCEEDED, "active voxels"),
    (REBUILD_LEAF_CAPACITY_EXCEEDED, "leaves"),
    (REBUILD_LOWER_CAPACITY_EXCEEDED, "lower nodes"),
    (REBUILD_UPPER_CAPACITY_EXCEEDED, "upper nodes"),
)


class RebuildInfo(NamedTuple):
    """What :meth:`Volume.get_rebuild_info` reports: the rebuild mode ("tiles", "voxels" or None
    for a volume that cannot be rebuilt in place) and the capacities reserved for it."""

    mode: str | None
    max_voxels: int
    max_tiles: int
    max_lower_nodes: int
    max_upper_nodes: int


@dataclass(frozen=True)
class RebuildSpec:
    """How a rebuildable volume turns points into its topology: its mode and capacities, and the
    index-space map and background value it was allocated with (copied then)."""

    info: RebuildInfo
    #: the index-to-world matrix (world = mat @ ijk + translation)
    mat: np.ndarray
    translation: np.ndarray
    #: the background value (None: an index grid)
    bg_value: Any


def refuse_capture(device: Any, owner: str) -> None:
    """Raise ``RuntimeError`` while a graph capture is active on ``device``: this topology is built
    on the host (NumPy) and uploaded, which a capture cannot record or replay (rebuildable
    volumes on CUDA devices build theirs with kernels instead)."""
    if wp.get_device(device).is_capturing:
        raise RuntimeError(
            f"{owner} cannot be recorded by graph capture on device '{wp.get_device(device)}': this "
            "volume topology is built on the host (only rebuildable volumes, from points given as "
            "wp.vec3i/wp.vec3 or (N, 3) int32/float32 arrays on the volume's device with an int32 "
            "point_mask, are built by kernels); allocate or rebuild the volume outside the capture"
        )


def index_coords(points: Any, mat: np.ndarray, translation: Any, point_mask: Any, owner: str) -> np.ndarray:
    """``(N, 3)`` int64 index coordinates of points: integer points are index coordinates, float
    points world positions (world = ``mat`` @ ijk + ``translation``), mapped to the voxel whose
    centre is nearest (index coordinates are voxel centres; a float32 position of a voxel centre
    may land just below it); points whose ``point_mask`` entry is 0 are dropped."""
    pts = points.numpy() if isinstance(points, wp.array) else np.asarray(points)
    pts = pts.reshape(-1, 3)
    if np.issubdtype(pts.dtype, np.integer):
        ijk = pts.astype(np.int64)
    else:
        offsets = pts.astype(np.float64) - np.asarray(translation, np.float64).reshape(3)
        scaled = np.linalg.solve(np.asarray(mat, np.float64), offsets.T).T
        ijk = np.floor(scaled + 0.5).astype(np.int64)
    if point_mask is not None:
        mask = point_mask.numpy() if isinstance(point_mask, wp.array) else np.asarray(point_mask)
        mask = mask.reshape(-1)
        if mask.shape[0] != ijk.shape[0]:
            raise ValueError(f"{owner}: point_mask has {mask.shape[0]} entries for {ijk.shape[0]} points")
        ijk = ijk[mask != 0]
    return ijk


def tile_origins(ijk: np.ndarray) -> np.ndarray:
    """The distinct leaf (8^3 tile) origins containing index coordinates ``ijk``."""
    return np.unique(ijk >> 3, axis=0) * 8


def voxels_grid(ijk: np.ndarray) -> nanovdb.GridArrays:
    """An on-index grid whose active voxels are exactly ``ijk`` (duplicates merged), indexed in
    the order of the leaves and, inside a leaf, of the voxel slots."""
    ijk = np.unique(ijk, axis=0)
    grid = grid_from_leaves(ijk >> 3 << 3, nanovdb.ON_INDEX, 0)
    slots = np.zeros(len(grid.leaf_origin) * 512, bool)
    if len(ijk):
        leaf_of = {tuple(o): n for n, o in enumerate(np.asarray(grid.leaf_origin, np.int64))}
        leaf = np.array([leaf_of[tuple(o)] for o in (ijk >> 3 << 3)], np.int64)
        local = ijk & 7
        slots[leaf * 512 + (local[:, 0] << 6) + (local[:, 1] << 3) + local[:, 2]] = True
    grid.leaf_active = slots
    grid.leaf_value = np.where(slots, np.cumsum(slots), 0).astype(np.uint64)
    return grid


def overflow(ijk: np.ndarray, info: RebuildInfo) -> int:
    """The status flags of the capacities the topology of ``ijk`` (voxels in "voxels" mode, the
    tiles containing them in "tiles" mode) exceeds; :data:`REBUILD_SUCCESS` when it fits."""
    if info.mode == "tiles":
        leaves = np.unique(ijk >> 3, axis=0)
        voxels = len(leaves) * 512
    else:
        voxels = len(np.unique(ijk, axis=0))
        leaves = np.unique(ijk >> 3, axis=0)
    counts = (voxels, len(leaves), len(np.unique(ijk >> 7, axis=0)), len(np.unique(ijk >> 12, axis=0)))
    limits = (info.max_voxels, info.max_tiles, info.max_lower_nodes, info.max_upper_nodes)
    flags = REBUILD_SUCCESS
    for (flag, _), n, limit in zip(_EXCEEDED, counts, limits):
        if n > limit:
            flags |= flag
    return flags


def overflow_message(flags: int, info: RebuildInfo, owner: str) -> str:
    """What a status of ``flags`` says, for the error raised when no ``status`` array was given."""
    exceeded = ", ".join(what for flag, what in _EXCEEDED if flags & flag)
    return (
        f"{owner}: the topology exceeds the volume's capacity ({exceeded}; capacities {info}); "
        "the volume was left empty (pass status= to get the flags instead of this error)"
    )


def capacities(
    mode: str, owner: str, max_voxels: Any, max_leaves: Any, max_lower: Any, max_upper: Any
) -> RebuildInfo:
    """The :class:`RebuildInfo` of a rebuildable volume; ``max_voxels`` is None in "tiles" mode
    (512 voxels per tile). Every capacity must be given, as a non-negative int."""
    named = {
        "max_tiles" if mode == "tiles" else "max_leaf_nodes": max_leaves,
        "max_lower_nodes": max_lower,
        "max_upper_nodes": max_upper,
    }
    if mode == "voxels":
        named = {"max_active_voxels": max_voxels, **named}
    for name, value in named.items():
        if value is None:
            raise ValueError(f"{owner}: rebuildable=True needs {name} (the capacity reserved for rebuilds)")
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{owner}: {name} must be a non-negative int, got {value!r}")
    leaves = int(max_leaves)
    voxels = leaves * 512 if mode == "tiles" else int(max_voxels)
    return RebuildInfo(mode, voxels, leaves, int(max_lower), int(max_upper))


def check_not_rebuild_args(owner: str, **args: Any) -> None:
    """Capacities or a status given without ``rebuildable=True`` are a mistake: say so."""
    given = [name for name, value in args.items() if value is not None]
    if given:
        raise ValueError(f"{owner}: {', '.join(given)} only apply with rebuildable=True")


def check_status(status: Any, owner: str) -> None:
    """``TypeError`` unless ``status`` is None or a ``wp.uint32`` array with an element."""
    if status is None:
        return
    if not isinstance(status, wp.array) or status.dtype != wp.uint32 or status.size < 1:
        raise TypeError(f"{owner}: status must be a wp.array of wp.uint32 with one element, got {status!r}")


def write_status(status: Any, flags: int, owner: str) -> None:
    """Store ``flags`` in the one-element ``wp.uint32`` array ``status`` (when given)."""
    if status is None:
        return
    check_status(status, owner)
    status.fill_(wp.uint32(flags))


def tiles_grid(origins: np.ndarray, typed: tuple[int, Any] | None) -> nanovdb.GridArrays:
    """A grid whose leaves start at ``origins``: every voxel active, holding the background of
    ``typed`` (grid type, value), or for None an index grid (voxel indices 1.., 0: none)."""
    if typed is None:
        grid = grid_from_leaves(np.asarray(origins, np.int64), nanovdb.INDEX, 0)
        grid.leaf_value = np.arange(1, len(grid.leaf_origin) * 512 + 1, dtype=np.uint64)
        return grid
    return grid_from_leaves(np.asarray(origins, np.int64), *typed)


def coords_out(ijk: np.ndarray, out: Any, dtype: Any, owner: str, device: Any) -> Any:
    """``(N, 3)`` coordinates as a new array of ``dtype`` (``wp.int32`` rows or ``wp.vec3i``), or
    written into the first N rows of ``out`` (the other rows are left as they are)."""
    rows = np.asarray(ijk, np.int32).reshape(-1, 3)
    if out is None:
        return wp.array(rows, dtype=dtype, device=device)
    vectors = isinstance(out, wp.array) and out.dtype == wp.vec3i and out.ndim == 1
    matrix = isinstance(out, wp.array) and out.dtype == wp.int32 and out.ndim == 2 and out.shape[1] == 3
    if not (vectors or matrix):
        raise TypeError(f"{owner}: out must be an (M, 3) wp.int32 array or a wp.vec3i array, got {out!r}")
    if out.shape[0] < len(rows):
        raise ValueError(f"{owner}: out has {out.shape[0]} rows for {len(rows)} coordinates")
    if len(rows):
        wp.copy(out[: len(rows)], wp.array(rows, dtype=out.dtype, device=out.device))
    return out
