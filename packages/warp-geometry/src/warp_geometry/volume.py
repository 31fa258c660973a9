"""``wp.Volume``: a sparse NanoVDB grid (float, int32, vec3f or index) queryable from kernels by ``id``.

The grid lives as arrays per tree level (:class:`warp_geometry.nanovdb.GridArrays`): kernels walk
root tiles, upper (32^3), lower (16^3) and leaf (8^3) nodes through child-index arrays, so a
volume loaded from an ``.nvdb`` file keeps its exact tree (tiles included), and
``save_to_nvdb`` writes it back in the NanoVDB format.
"""

from __future__ import annotations

import io
import numbers
import os
from typing import Any, NamedTuple

import numpy as np

import warp as wp
from warp_geometry import nanovdb, nanovdb_checks
from warp_geometry.descriptors import Descriptor, Releasable
from warp_geometry.nanovdb_blind import BlindData, append_blind_data, blind_data
from warp_geometry.volume_features import FeatureArrayInfo, feature_info, feature_values
from warp_geometry.volume_topology import grid_from_leaves


@wp.struct
class VolumeData:
    """Kernel-side volume: the index/world map and the tree's arrays (one value type populated)."""

    grid_type: wp.int32
    num_roots: wp.int32
    voxel_count: wp.int32
    background_f: wp.float32
    background_v: wp.vec3
    background_i: wp.int32
    mat: wp.mat33
    inv_mat: wp.mat33
    vec: wp.vec3
    root_origin: wp.array(dtype=wp.vec3i)
    root_child: wp.array(dtype=wp.int32)
    upper_child: wp.array(dtype=wp.int32)
    lower_child: wp.array(dtype=wp.int32)
    root_f: wp.array(dtype=wp.float32)
    upper_f: wp.array(dtype=wp.float32)
    lower_f: wp.array(dtype=wp.float32)
    leaf_f: wp.array(dtype=wp.float32)
    root_v: wp.array(dtype=wp.vec3)
    upper_v: wp.array(dtype=wp.vec3)
    lower_v: wp.array(dtype=wp.vec3)
    leaf_v: wp.array(dtype=wp.vec3)
    root_i: wp.array(dtype=wp.int32)
    upper_i: wp.array(dtype=wp.int32)
    lower_i: wp.array(dtype=wp.int32)
    leaf_i: wp.array(dtype=wp.int32)
    leaf_index: wp.array(dtype=wp.int32)
    #: float64, vec3d, vec4f and vec4d grids: values widened to vec4d (unused components 0)
    background_w: wp.vec4d
    root_w: wp.array(dtype=wp.vec4d)
    upper_w: wp.array(dtype=wp.vec4d)
    lower_w: wp.array(dtype=wp.vec4d)
    leaf_w: wp.array(dtype=wp.vec4d)


_FIELDS = {nanovdb.FLOAT: ("f", wp.float32), nanovdb.INT32: ("i", wp.int32), nanovdb.VEC3F: ("v", wp.vec3)}
#: grid types kept widened to vec4d in kernels: (number of components, value type)
WIDE = {
    nanovdb.DOUBLE: (1, wp.float64),
    nanovdb.VEC3D: (3, wp.vec3d),
    nanovdb.VEC4F: (4, wp.vec4f),
    nanovdb.VEC4D: (4, wp.vec4d),
}
_GRID_OF_TYPE = {wp.float32: nanovdb.FLOAT, wp.int32: nanovdb.INT32, wp.vec3f: nanovdb.VEC3F,
                 **{t: grid_type for grid_type, (_, t) in WIDE.items()}}
_BG_TYPES = "a float, an int, a 3- or 4-vector (float32 or float64)"


def _dtype_of_value(value: Any) -> tuple[int, Any]:
    """(grid type, background) for a background value given from Python: a warp scalar or vector
    gives its own type (``wp.float64(1.0)``: a float64 grid, ``wp.vec4d``: vec4d); Python and
    NumPy numbers give float32 or int32, sequences of 3 or 4 numbers vec3f or vec4f."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"wp.Volume: bg_value must be {_BG_TYPES}")
    grid_type = _GRID_OF_TYPE.get(type(value))
    if grid_type is not None:
        dtype = nanovdb.GridArrays(grid_type=grid_type).value_dtype
        return grid_type, np.asarray(getattr(value, "value", value), dtype.base)
    if isinstance(value, (int, np.integer)) or getattr(value, "dtype", None) in (np.int32, np.int64):
        return nanovdb.INT32, np.int32(value)
    if np.ndim(value) == 1 and len(value) == 3:
        return nanovdb.VEC3F, np.asarray(value, np.float32)
    if np.ndim(value) == 1 and len(value) == 4:
        return nanovdb.VEC4F, np.asarray(value, np.float32)
    if isinstance(value, (float, np.floating)) or np.ndim(value) == 0:
        return nanovdb.FLOAT, np.float32(value)
    raise TypeError(f"wp.Volume: bg_value must be {_BG_TYPES}, got {value!r}")


def _widened(values: np.ndarray, n: int) -> np.ndarray:
    """Values of a wide grid as ``(count, 4)`` float64 rows (components past ``n`` are 0)."""
    rows = np.asarray(values, np.float64).reshape(-1, n)
    return np.pad(rows, ((0, 0), (0, 4 - n)))


def voxel_sizes(voxel_size: Any, owner: str) -> np.ndarray:
    """The per-axis voxel sizes of a scalar or a 3-sequence: ``TypeError`` for other types,
    ``ValueError`` for a wrong length or sizes that are not positive and finite."""
    if isinstance(voxel_size, (str, bytes)) or voxel_size is None or isinstance(voxel_size, bool):
        raise TypeError(
            f"{owner}: voxel_size must be a number or a sequence of 3 numbers, got {voxel_size!r}"
        )
    if isinstance(voxel_size, (numbers.Real, np.number)):
        sizes = np.full(3, float(voxel_size))
    else:
        try:
            items = list(voxel_size)
        except TypeError:
            raise TypeError(
                f"{owner}: voxel_size must be a number or a sequence of 3 numbers, got {voxel_size!r}"
            ) from None
        if not all(isinstance(v, (numbers.Real, np.number)) and not isinstance(v, bool) for v in items):
            raise TypeError(f"{owner}: voxel_size must hold numbers, got {voxel_size!r}")
        if len(items) != 3:
            raise ValueError(f"{owner}: voxel_size must have 3 entries (x, y, z), got {len(items)}")
        sizes = np.array(items, dtype=np.float64)
    if not np.all(np.isfinite(sizes)) or not np.all(sizes > 0.0):
        raise ValueError(f"{owner}: voxel_size must be positive and finite, got {voxel_size!r}")
    return sizes


class ActiveStats(NamedTuple):
    """What :meth:`Volume.get_active_stats` reports: active voxels and allocated tree nodes."""

    #: number of active voxels
    voxel_count: int
    #: number of leaf nodes (8^3 tiles)
    leaf_count: int
    #: number of lower internal nodes (128^3)
    lower_node_count: int
    #: number of upper internal nodes (4096^3)
    upper_node_count: int


class RebuildInfo(NamedTuple):
    """What :meth:`Volume.get_rebuild_info` reports: the rebuild mode ("tiles", "voxels" or None
    for a volume that cannot be rebuilt in place) and the capacities reserved for it."""

    mode: str | None
    max_voxels: int
    max_tiles: int
    max_lower_nodes: int
    max_upper_nodes: int


def _index_coords(points: Any, sizes: np.ndarray, translation: Any, point_mask: Any, owner: str,
                  rounding: bool) -> np.ndarray:
    """``(N, 3)`` int64 index coordinates of points: integer points are index coordinates, float
    points world positions (floored, or rounded to the nearest voxel centre when ``rounding``);
    points whose ``point_mask`` entry is 0 are dropped."""
    pts = points.numpy() if isinstance(points, wp.array) else np.asarray(points)
    pts = pts.reshape(-1, 3)
    if np.issubdtype(pts.dtype, np.integer):
        ijk = pts.astype(np.int64)
    else:
        scaled = (pts.astype(np.float64) - np.asarray(translation, np.float64)) / sizes
        ijk = np.floor(scaled + (0.5 if rounding else 0.0)).astype(np.int64)
    if point_mask is not None:
        mask = point_mask.numpy() if isinstance(point_mask, wp.array) else np.asarray(point_mask)
        mask = mask.reshape(-1)
        if mask.shape[0] != ijk.shape[0]:
            raise ValueError(f"{owner}: point_mask has {mask.shape[0]} entries for {ijk.shape[0]} points")
        ijk = ijk[mask != 0]
    return ijk


class GridInfo(NamedTuple):
    """What :meth:`Volume.get_grid_info` reports about a volume's grid."""

    #: the grid's name
    name: str
    #: size of the grid buffer in bytes
    size_in_bytes: int
    #: position of the grid in the file it was loaded from (0 otherwise)
    grid_index: int
    #: number of grids in that file (1 otherwise)
    grid_count: int
    #: value type name as NanoVDB spells it ("float", "int32", "Vec3f", "Index", "OnIndex")
    type_str: str
    #: index-to-world translation
    translation: Any
    #: index-to-world matrix (9 values, row major)
    transform_matrix: Any


_TYPE_STR = {nanovdb.FLOAT: "float", nanovdb.INT32: "int32", nanovdb.VEC3F: "Vec3f", nanovdb.INDEX: "Index",
             nanovdb.ON_INDEX: "OnIndex", nanovdb.DOUBLE: "double", nanovdb.VEC3D: "Vec3d",
             nanovdb.VEC4F: "Vec4f", nanovdb.VEC4D: "Vec4d"}


class Volume(Releasable):
    """A sparse volume (NanoVDB grid) usable in kernels through ``id``.

    Build one with :meth:`load_from_nvdb`, :meth:`allocate`, :meth:`allocate_by_tiles` or
    :meth:`load_from_numpy`, or from the bytes of a NanoVDB grid (``wp.Volume(data)``).
    """

    #: sampling modes of ``volume_sample_*``
    CLOSEST = 0
    LINEAR = 1
    ActiveStats = ActiveStats
    FeatureArrayInfo = FeatureArrayInfo
    RebuildInfo = RebuildInfo

    def __init__(self, data: Any, copy: bool = True, device: Any = None):
        """``data``: the bytes of a NanoVDB grid (a ``wp.uint8`` array, bytes, ...), checked
        before use (a malformed grid raises :class:`~warp_geometry.nanovdb.NanoVDBError`, a
        ``RuntimeError``). The grid is always read into the volume's own arrays: ``copy=False``
        shares nothing, and later changes to ``data`` do not reach the volume."""
        #: the grid's blind data arrays (NanoVDB "feature arrays"; none for allocated volumes)
        self._features: list[BlindData] = []
        if isinstance(data, nanovdb.GridArrays):
            grid = data
        else:
            raw = data.numpy().tobytes() if isinstance(data, wp.array) else bytes(data)
            size = nanovdb_checks.check_grid(raw)
            nanovdb_checks.check_breadth_first(raw)
            grid = nanovdb.decode(raw[:size])
            self._features = blind_data(raw, size)
        self.device = wp.get_device(device if device is not None else getattr(data, "device", None))
        #: the ``.nvdb`` file's bytes the grid came from (None otherwise), the grid's position in
        #: it and the file's number of grids
        self._file: bytes | None = None
        self._grid_index, self._grid_count = 0, 1
        self._set_grid(grid)

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def load_from_nvdb(cls, file_or_buffer: Any, device: Any = None) -> Volume:
        """Load the first grid of an ``.nvdb`` file (a path, an open binary file, or the file's bytes).

        A buffer that holds a bare grid (no file header) is accepted too. Codecs: none and ZIP.
        """
        if isinstance(file_or_buffer, (str, os.PathLike)):
            with open(file_or_buffer, "rb") as f:
                data = f.read()
        elif hasattr(file_or_buffer, "read"):
            data = file_or_buffer.read()
        elif isinstance(file_or_buffer, wp.array):
            data = file_or_buffer.numpy().tobytes()
        else:
            data = bytes(file_or_buffer)
        if nanovdb.is_grid_buffer(data):
            return cls(data, device=device)
        # every grid of the file is checked (structure first, then the tree layout we read)
        grids = [nanovdb.read_file(io.BytesIO(data), i) for i in range(nanovdb.file_grid_count(data))]
        for grid in grids:
            nanovdb_checks.check_grid(grid, aligned=True)
        for grid in grids:
            nanovdb_checks.check_breadth_first(grid)
        return cls._from_file(data, 0, device, grids[0] if grids else None)

    @classmethod
    def _from_file(cls, data: bytes, index: int, device: Any, grid: bytes | None = None) -> Volume:
        if grid is None:
            grid = nanovdb.read_file(io.BytesIO(data), index)
        volume = cls(grid, device=device)
        volume._file = data
        volume._grid_index, volume._grid_count = index, nanovdb.file_grid_count(data)
        return volume

    def load_next_grid(self) -> Volume | None:
        """The next grid of the ``.nvdb`` file this volume was loaded from, as a new volume on the
        same device, or None after the last one (or for a volume not loaded from a file)."""
        if self._file is None or self._grid_index + 1 >= self._grid_count:
            return None
        return Volume._from_file(self._file, self._grid_index + 1, self.device)

    @classmethod
    def allocate(
        cls,
        min: Any,
        max: Any,
        voxel_size: Any,
        bg_value: Any = 0.0,
        translation: Any = (0.0, 0.0, 0.0),
        points_in_world_space: bool = False,
        device: Any = None,
    ) -> Volume:
        """A volume whose leaves cover the box ``[min, max]`` (index space, or world space when
        ``points_in_world_space``); every voxel of those leaves is active and holds ``bg_value``."""
        lo, hi = np.asarray(min, np.float64), np.asarray(max, np.float64)
        if lo.shape != (3,) or hi.shape != (3,):
            raise ValueError("wp.Volume.allocate: min and max must be 3-vectors")
        sizes = voxel_sizes(voxel_size, "wp.Volume.allocate")
        if points_in_world_space:
            lo = (lo - np.asarray(translation)) / sizes
            hi = (hi - np.asarray(translation)) / sizes
        first = np.floor(np.minimum(lo, hi)).astype(np.int64) >> 3
        last = np.floor(np.maximum(lo, hi)).astype(np.int64) >> 3
        axes = [np.arange(a, b + 1) * 8 for a, b in zip(first, last)]
        origins = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
        return cls._from_leaves(origins, sizes, bg_value, translation, device)

    @classmethod
    def allocate_by_tiles(
        cls,
        tile_points: Any,
        voxel_size: float | None = None,
        bg_value: Any = 0.0,
        translation: Any = (0.0, 0.0, 0.0),
        device: Any = None,
        point_mask: Any = None,
    ) -> Volume:
        """A volume with one leaf (8^3 tile) for each point: integer points (``wp.vec3i`` or
        ``(N, 3)`` int32) are index-space voxel coordinates, ``wp.vec3`` points world positions;
        points whose ``point_mask`` entry is 0 are skipped. ``bg_value`` None makes an index grid."""
        owner = "wp.Volume.allocate_by_tiles"
        if voxel_size is None:
            raise ValueError(f"{owner}: voxel_size is required")
        sizes = voxel_sizes(voxel_size, owner)
        ijk = _index_coords(tile_points, sizes, translation, point_mask, owner, rounding=False)
        origins = np.unique(ijk >> 3, axis=0) * 8
        return cls._from_leaves(origins, sizes, bg_value, translation, device)

    @classmethod
    def allocate_by_voxels(
        cls,
        voxel_points: Any,
        voxel_size: Any = 1.0,
        translation: Any = (0.0, 0.0, 0.0),
        device: Any = None,
        point_mask: Any = None,
    ) -> Volume:
        """An index volume whose active voxels are exactly the given ones (duplicates merged):
        integer points (``wp.vec3i`` or ``(N, 3)`` int32) are index coordinates, ``wp.vec3``
        points world positions (the nearest voxel); points whose ``point_mask`` entry is 0 are
        skipped. Its voxels' indices follow :meth:`get_voxels`."""
        owner = "wp.Volume.allocate_by_voxels"
        sizes = voxel_sizes(voxel_size, owner)
        ijk = _index_coords(voxel_points, sizes, translation, point_mask, owner, rounding=True)
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
        return cls._with_transform(grid, sizes, translation, device)

    @classmethod
    def load_from_numpy(
        cls,
        ndarray: np.ndarray,
        min_world: Any = (0.0, 0.0, 0.0),
        voxel_size: float = 1.0,
        bg_value: Any = 0.0,
        device: Any = None,
    ) -> Volume:
        """A volume holding a dense array (shape (X, Y, Z) or (X, Y, Z, 3)) at index coordinates 0..;
        ``voxel_size`` is a number or per-axis sizes (x, y, z)."""
        sizes = voxel_sizes(voxel_size, "wp.Volume.load_from_numpy")
        a = np.asarray(ndarray)
        if a.ndim not in (3, 4) or (a.ndim == 4 and a.shape[3] != 3):
            raise ValueError(
                f"wp.Volume.load_from_numpy: expected an (X, Y, Z) or (X, Y, Z, 3) array, got {a.shape}"
            )
        bg = np.zeros(3, np.float32) + bg_value if a.ndim == 4 else bg_value
        if a.ndim == 3 and np.issubdtype(a.dtype, np.integer):
            bg = int(bg_value)
        vol = cls.allocate((0, 0, 0), np.array(a.shape[:3]) - 1, sizes, bg, min_world, device=device)
        g = vol._grid
        origins = np.repeat(g.leaf_origin, 512, axis=0)
        n = np.arange(512)
        ijk = (
            origins
            + np.stack([n >> 6, (n >> 3) & 7, n & 7], axis=1)[np.tile(np.arange(512), len(g.leaf_origin))]
        )
        inside = np.all(ijk < np.array(a.shape[:3]), axis=1)
        assert g.leaf_value is not None  # allocate() fills it
        vals = g.leaf_value.copy()
        vals[inside] = a[tuple(ijk[inside].T)]
        g.leaf_value = vals
        vol._set_grid(g)
        return vol

    @classmethod
    def _from_leaves(
        cls, origins: np.ndarray, sizes: np.ndarray, bg_value: Any, translation: Any, device: Any
    ) -> Volume:
        if bg_value is None:  # an index grid: every voxel of the leaves has an index (1.., 0: none)
            grid = grid_from_leaves(np.asarray(origins, np.int64), nanovdb.INDEX, 0)
            grid.leaf_value = np.arange(1, len(grid.leaf_origin) * 512 + 1, dtype=np.uint64)
        else:
            grid_type, bg = _dtype_of_value(bg_value)
            grid = grid_from_leaves(np.asarray(origins, np.int64), grid_type, bg)
        return cls._with_transform(grid, sizes, translation, device)

    @classmethod
    def _with_transform(
        cls, grid: nanovdb.GridArrays, sizes: np.ndarray, translation: Any, device: Any
    ) -> Volume:
        grid.mat = np.diag(sizes)
        grid.vec = np.asarray(translation, np.float64).reshape(3)
        grid.voxel_size = sizes.copy()
        return cls(grid, device=device)

    # -- state ----------------------------------------------------------------------------
    def _set_grid(self, g: nanovdb.GridArrays) -> None:
        self._grid = g
        dev = self.device
        is_index = g.grid_type in (nanovdb.INDEX, nanovdb.ON_INDEX)
        fields: dict[str, Any] = {
            "grid_type": g.grid_type,
            "num_roots": len(g.root_origin),
            "mat": wp.mat33(*np.asarray(g.mat, np.float32).ravel()),
            "inv_mat": wp.mat33(*np.linalg.inv(np.asarray(g.mat, np.float64)).astype(np.float32).ravel()),
            "vec": wp.vec3(*np.asarray(g.vec, np.float32)),
            "root_origin": wp.array(
                np.asarray(g.root_origin, np.int32).reshape(-1, 3), dtype=wp.vec3i, device=dev
            ),
            "root_child": wp.array(g.root_child.astype(np.int32), dtype=wp.int32, device=dev),
            "upper_child": wp.array(g.upper_child.astype(np.int32), dtype=wp.int32, device=dev),
            "lower_child": wp.array(g.lower_child.astype(np.int32), dtype=wp.int32, device=dev),
        }
        if is_index:
            idx = np.asarray(g.leaf_value, np.int64) - 1  # NanoVDB index 0 is the background
            if g.grid_type == nanovdb.ON_INDEX:
                idx = np.where(g.leaf_active, idx, -1)
            fields["leaf_index"] = wp.array(idx.astype(np.int32), dtype=wp.int32, device=dev)
            count = int(idx.max() + 1) if idx.size else 0
        elif g.grid_type in WIDE:
            fields["leaf_index"] = wp.array(
                np.arange(len(g.leaf_origin) * 512, dtype=np.int32), dtype=wp.int32, device=dev
            )
            count = len(g.leaf_origin) * 512
            n = WIDE[g.grid_type][0]
            for level in ("root", "upper", "lower", "leaf"):
                values = _widened(getattr(g, f"{level}_value"), n)
                fields[f"{level}_w"] = wp.array(values, dtype=wp.vec4d, device=dev)
            fields["background_w"] = wp.vec4d(*_widened(g.background, n)[0])
        else:
            fields["leaf_index"] = wp.array(
                np.arange(len(g.leaf_origin) * 512, dtype=np.int32), dtype=wp.int32, device=dev
            )
            count = len(g.leaf_origin) * 512
            suffix, t = _FIELDS[g.grid_type]
            for level in ("root", "upper", "lower", "leaf"):
                values = getattr(g, f"{level}_value")
                fields[f"{level}_{suffix}"] = wp.array(np.ascontiguousarray(values), dtype=t, device=dev)
            fields[f"background_{suffix}"] = (
                t(*np.atleast_1d(g.background)) if suffix == "v" else g.background.item()
            )
        fields["voxel_count"] = count
        self._voxel_count = count
        self._arrays = fields
        self._descriptor = Descriptor(VolumeData, dev)
        self._descriptor.update(**fields)

    def _sync(self) -> nanovdb.GridArrays:
        """The grid with the current voxel values (kernels may have stored into them)."""
        g = self._grid
        if g.grid_type in _FIELDS:
            assert g.leaf_value is not None  # grids of these types hold values
            suffix = _FIELDS[g.grid_type][0]
            g.leaf_value = self._arrays[f"leaf_{suffix}"].numpy().reshape(g.leaf_value.shape).copy()
        elif g.grid_type in WIDE:
            assert g.leaf_value is not None  # grids of these types hold values
            n = WIDE[g.grid_type][0]
            rows = self._arrays["leaf_w"].numpy()[:, :n]
            g.leaf_value = rows.astype(g.value_dtype.base).reshape(g.leaf_value.shape)
        return g

    @property
    def id(self) -> int:
        """Unique ``uint64`` identifier of this volume in kernels."""
        return self._descriptor.address

    @property
    def dtype(self) -> Any:
        """The value type (``wp.float32``, ``wp.int32``, ``wp.vec3``, ``wp.float64``, ``wp.vec3d``,
        ``wp.vec4f``, ``wp.vec4d``), or ``wp.uint64`` for index grids."""
        grid_type = self._grid.grid_type
        if grid_type in WIDE:
            return WIDE[grid_type][1]
        return _FIELDS.get(grid_type, (None, wp.uint64))[1]

    @property
    def is_index(self) -> bool:
        """Whether this is an index grid (values live in a separate array)."""
        return self._grid.grid_type in (nanovdb.INDEX, nanovdb.ON_INDEX)

    def get_voxel_size(self) -> tuple[float, float, float]:
        """The voxel size in world units along x, y, z."""
        return tuple(float(v) for v in self._grid.voxel_size)  # type: ignore[return-value]

    def get_voxel_count(self) -> int:
        """Voxels that have storage: all slots of allocated leaves (active ones for on-index grids)."""
        return self._voxel_count

    def get_tile_count(self) -> int:
        """Number of leaves (8^3 tiles)."""
        return len(self._grid.leaf_origin)

    @property
    def is_rebuildable(self) -> bool:
        """Whether :meth:`rebuild` can change the topology in place (never here: allocate a new volume)."""
        return False

    def get_rebuild_info(self) -> RebuildInfo:
        """The rebuild mode and reserved capacities (``RebuildInfo(None, 0, 0, 0, 0)``: not rebuildable)."""
        return RebuildInfo(None, 0, 0, 0, 0)

    def get_active_stats(self) -> ActiveStats:
        """Numbers of active voxels, leaves, lower and upper nodes."""
        g = self._grid
        return ActiveStats(
            int(np.count_nonzero(g.leaf_active)), len(g.leaf_origin), len(g.lower_origin), len(g.upper_origin)
        )

    def get_feature_array_count(self) -> int:
        """Number of blind data arrays ("feature arrays") the grid was loaded with."""
        return len(self._features)

    def get_feature_array_info(self, feature_index: int) -> FeatureArrayInfo:
        """Name, value size, value count and value type of blind data array ``feature_index``
        (as the volume was created: later changes to the source buffer do not show)."""
        return feature_info(self._features, feature_index)

    def feature_array(self, feature_index: int, dtype: Any = None) -> Any:
        """Blind data array ``feature_index`` as a ``wp.array`` of ``dtype`` (default ``wp.uint8``)
        on the volume's device: a copy of the bytes stored with the grid."""
        return feature_values(self._features, feature_index, dtype, self.device)

    def get_voxels(self) -> Any:
        """Index-space coordinates of the voxels that have storage (``get_voxel_count()`` of
        them, in the order of their storage): an ``(N, 3)`` ``wp.int32`` array, as in NVIDIA Warp."""
        g = self._grid
        slots = np.arange(512)
        offsets = np.stack([slots >> 6, (slots >> 3) & 7, slots & 7], axis=1)
        ijk = (np.asarray(g.leaf_origin, np.int64)[:, None, :] + offsets[None, :, :]).reshape(-1, 3)
        if self.is_index:
            index = self._arrays["leaf_index"].numpy()
            stored = index >= 0
            ijk = ijk[stored][np.argsort(index[stored], kind="stable")]
        return wp.array(ijk.astype(np.int32).reshape(-1, 3), dtype=wp.int32, device=self.device)

    def _size_in_bytes(self) -> int:
        """The NanoVDB buffer's size; for the grid types kept in memory only (float64, vec3d,
        vec4f, vec4d: no buffer layout here), the bytes of the grid's arrays."""
        g = self._grid
        if g.grid_type in WIDE:
            return sum(int(a.nbytes) for a in vars(g).values() if isinstance(a, np.ndarray))
        return len(nanovdb.encode(g))

    def get_grid_info(self) -> GridInfo:
        """Name, size, position in its file, type and index-to-world transform of the grid."""
        g = self._grid
        return GridInfo(
            name=g.name,
            size_in_bytes=self._size_in_bytes(),
            grid_index=self._grid_index,
            grid_count=self._grid_count,
            type_str=_TYPE_STR.get(g.grid_type, str(g.grid_type)),
            translation=wp.vec3f(*np.asarray(g.vec, np.float32)),
            transform_matrix=wp.mat33f(*np.asarray(g.mat, np.float32).ravel()),
        )

    def get_tiles(self) -> Any:
        """Index-space origins of the leaves, a ``wp.vec3i`` array."""
        return wp.array(np.asarray(self._grid.leaf_origin, np.int32), dtype=wp.vec3i, device=self.device)

    def array(self) -> Any:
        """The volume as a NanoVDB grid buffer (a ``wp.uint8`` array), its feature arrays included.

        For a volume loaded from an ``.nvdb`` file, the grids that follow it in the file come
        after it, as in the buffer NVIDIA Warp loads a file into (grid sizes say where each ends).
        """
        buf = append_blind_data(nanovdb.encode(self._sync()), self._features)
        if self._file is not None:
            following = range(self._grid_index + 1, self._grid_count)
            buf += b"".join(nanovdb.read_file(io.BytesIO(self._file), i) for i in following)
        return wp.array(np.frombuffer(buf, np.uint8), dtype=wp.uint8, device=self.device)

    def save_to_nvdb(self, path: Any, codec: str = "none") -> None:
        """Write the volume as an ``.nvdb`` file (``codec``: "none" or "zip")."""
        codes = {"none": 0, "zip": 1}
        if codec not in codes:
            raise ValueError(f"wp.Volume.save_to_nvdb: codec must be 'none' or 'zip', got {codec!r}")
        buf = append_blind_data(nanovdb.encode(self._sync()), self._features)
        if hasattr(path, "write"):
            nanovdb.write_file(path, buf, codes[codec])
            return
        with open(path, "wb") as f:
            nanovdb.write_file(f, buf, codes[codec])
