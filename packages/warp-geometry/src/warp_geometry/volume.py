"""``wp.Volume``: a sparse NanoVDB grid (float, int32, vec3f or index) queryable from kernels by ``id``.

The grid lives as arrays per tree level (:class:`warp_geometry.nanovdb.GridArrays`): kernels walk
root tiles, upper (32^3), lower (16^3) and leaf (8^3) nodes through child-index arrays, so a
volume loaded from an ``.nvdb`` file keeps its exact tree (tiles included), and
``save_to_nvdb`` writes it back in the NanoVDB format.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import warp as wp
from warp_geometry import nanovdb, nanovdb_checks, volume_files
from warp_geometry.descriptors import Descriptor, Releasable
from warp_geometry.nanovdb_blind import BlindData, append_blind_data, blind_data
from warp_geometry.volume_features import FeatureArrayInfo, feature_info, feature_values
from warp_geometry import volume_rebuild as rebuilds
from warp_geometry.volume_device_build import DeviceTopology, supported as device_supported
from warp_geometry.volume_values import (
    dtype_of_value,
    grid_fields,
    index_map,
    leaf_values,
    value_type,
    voxel_sizes,
)
from warp_geometry.volume_rebuild import index_coords, RebuildInfo, RebuildSpec
from warp_geometry.volume_data import TYPE_STR, ActiveStats, GridInfo, VolumeData

__all__ = ["ActiveStats", "GridInfo", "Volume", "VolumeData"]


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
    #: status flags of allocation and :meth:`rebuild` of rebuildable volumes
    REBUILD_SUCCESS = rebuilds.REBUILD_SUCCESS
    REBUILD_VOXEL_CAPACITY_EXCEEDED = rebuilds.REBUILD_VOXEL_CAPACITY_EXCEEDED
    REBUILD_LEAF_CAPACITY_EXCEEDED = rebuilds.REBUILD_LEAF_CAPACITY_EXCEEDED
    REBUILD_LOWER_CAPACITY_EXCEEDED = rebuilds.REBUILD_LOWER_CAPACITY_EXCEEDED
    REBUILD_UPPER_CAPACITY_EXCEEDED = rebuilds.REBUILD_UPPER_CAPACITY_EXCEEDED
    REBUILD_INVALID_INPUT = rebuilds.REBUILD_INVALID_INPUT

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
        #: how :meth:`rebuild` makes a new topology (None: the volume is not rebuildable)
        self._rebuild: RebuildSpec | None = None
        #: the fixed-capacity tree a rebuildable volume on a CUDA device builds with kernels
        self._device_topology: DeviceTopology | None = None
        self._set_grid(grid)

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def load_from_nvdb(cls, file_or_buffer: Any, device: Any = None) -> Volume:
        """Load the first grid of an ``.nvdb`` file (a path, an open binary file, or the file's bytes).

        A buffer that holds a bare grid (no file header) is accepted too. Codecs: none and ZIP.
        """
        data = volume_files.read_bytes(file_or_buffer)
        if nanovdb.is_grid_buffer(data):
            return cls(data, device=device)
        grids = volume_files.checked_grids(data)
        return cls._from_file(data, 0, device, grids[0] if grids else None)

    @classmethod
    def _from_file(cls, data: bytes, index: int, device: Any, grid: bytes | None = None) -> Volume:
        if grid is None:
            grid = volume_files.file_grid(data, index)
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
        rebuilds.refuse_capture(device, "wp.Volume.allocate")
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
        return cls._from_leaves(origins, np.diag(sizes), bg_value, translation, device)

    @classmethod
    def allocate_by_tiles(
        cls,
        tile_points: Any,
        voxel_size: float | None = None,
        bg_value: Any = 0.0,
        translation: Any = (0.0, 0.0, 0.0),
        device: Any = None,
        transform: Any = None,
        point_mask: Any = None,
        rebuildable: bool = False,
        max_tiles: int | None = None,
        max_lower_nodes: int | None = None,
        max_upper_nodes: int | None = None,
        status: Any = None,
    ) -> Volume:
        """A volume with one leaf (8^3 tile) for each point: integer points (``wp.vec3i`` or
        ``(N, 3)`` int32) are index-space voxel coordinates, ``wp.vec3`` points world positions
        (in the tile of the nearest voxel); points whose ``point_mask`` entry is 0 are skipped.
        ``bg_value`` None makes an index grid. ``transform`` (3x3, world = transform @ ijk +
        translation) replaces the diagonal of ``voxel_size`` as the index-to-world map.

        With ``rebuildable=True`` the volume can be given new tiles in place by :meth:`rebuild`,
        up to ``max_tiles`` leaves, ``max_lower_nodes`` and ``max_upper_nodes`` (all required);
        ``status`` (one ``wp.uint32``) receives the ``REBUILD_*`` flags of this first topology."""
        owner = "wp.Volume.allocate_by_tiles"
        if voxel_size is None and transform is None:
            raise ValueError(f"{owner}: voxel_size (or transform) is required")
        mat = index_map(voxel_size, transform, owner)
        if not rebuildable:
            rebuilds.refuse_capture(device, owner)
            rebuilds.check_not_rebuild_args(
                owner,
                max_tiles=max_tiles,
                max_lower_nodes=max_lower_nodes,
                max_upper_nodes=max_upper_nodes,
                status=status,
            )
            ijk = index_coords(tile_points, mat, translation, point_mask, owner)
            return cls._from_leaves(rebuilds.tile_origins(ijk), mat, bg_value, translation, device)
        info = rebuilds.capacities("tiles", owner, None, max_tiles, max_lower_nodes, max_upper_nodes)
        bg = None if bg_value is None else dtype_of_value(bg_value)  # (grid type, a copy of the value)
        spec = RebuildSpec(info, mat, np.asarray(translation, np.float64).reshape(3).copy(), bg)
        return cls._rebuildable(spec, tile_points, point_mask, status, owner, device)

    @classmethod
    def allocate_by_voxels(
        cls,
        voxel_points: Any,
        voxel_size: Any = 1.0,
        translation: Any = (0.0, 0.0, 0.0),
        device: Any = None,
        transform: Any = None,
        point_mask: Any = None,
        rebuildable: bool = False,
        max_active_voxels: int | None = None,
        max_leaf_nodes: int | None = None,
        max_lower_nodes: int | None = None,
        max_upper_nodes: int | None = None,
        status: Any = None,
    ) -> Volume:
        """An index volume whose active voxels are exactly the given ones (duplicates merged):
        integer points (``wp.vec3i`` or ``(N, 3)`` int32) are index coordinates, ``wp.vec3``
        points world positions (the nearest voxel); points whose ``point_mask`` entry is 0 are
        skipped. Its voxels' indices follow :meth:`get_voxels`. ``transform`` (3x3, world =
        transform @ ijk + translation) replaces the diagonal of ``voxel_size`` as the map.

        With ``rebuildable=True`` the volume can be given new voxels in place by :meth:`rebuild`,
        up to the capacities ``max_active_voxels``, ``max_leaf_nodes``, ``max_lower_nodes`` and
        ``max_upper_nodes`` (all required); ``status`` receives the ``REBUILD_*`` flags."""
        owner = "wp.Volume.allocate_by_voxels"
        mat = index_map(voxel_size, transform, owner)
        if not rebuildable:
            rebuilds.refuse_capture(device, owner)
            ijk = index_coords(voxel_points, mat, translation, point_mask, owner)
            rebuilds.check_not_rebuild_args(
                owner,
                max_active_voxels=max_active_voxels,
                max_leaf_nodes=max_leaf_nodes,
                max_lower_nodes=max_lower_nodes,
                max_upper_nodes=max_upper_nodes,
                status=status,
            )
            return cls._with_transform(rebuilds.voxels_grid(ijk), mat, translation, device)
        info = rebuilds.capacities(
            "voxels", owner, max_active_voxels, max_leaf_nodes, max_lower_nodes, max_upper_nodes
        )
        spec = RebuildSpec(info, mat, np.asarray(translation, np.float64).reshape(3).copy(), None)
        return cls._rebuildable(spec, voxel_points, point_mask, status, owner, device)

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
        cls, origins: np.ndarray, mat: np.ndarray, bg_value: Any, translation: Any, device: Any
    ) -> Volume:
        typed = None if bg_value is None else dtype_of_value(bg_value)
        return cls._with_transform(rebuilds.tiles_grid(origins, typed), mat, translation, device)

    @classmethod
    def _rebuildable(
        cls, spec: RebuildSpec, points: Any, point_mask: Any, status: Any, owner: str, device: Any
    ) -> Volume:
        """A rebuildable volume (``spec``) whose first topology is that of ``points``: built by
        kernels on a CUDA device (:mod:`warp_geometry.volume_device_build`), else on the host."""
        if spec.info.mode == "tiles":
            grid = rebuilds.tiles_grid(np.zeros((0, 3), np.int64), spec.bg_value)
        else:
            grid = rebuilds.voxels_grid(np.zeros((0, 3), np.int64))
        volume = cls._with_transform(grid, spec.mat, spec.translation, device)
        volume._rebuild = spec
        if volume.device.is_cuda:
            topology = DeviceTopology(spec, volume.device)
            volume._descriptor.value = VolumeData()
            volume._descriptor.update(**{**volume._arrays, **topology.fields()})
            volume._arrays = {**volume._arrays, **topology.fields()}
            volume._device_topology = topology
        volume._topology_from(points, point_mask, status, owner)
        return volume

    def rebuild(self, points: Any, status: Any = None, point_mask: Any = None) -> None:
        """Replace the topology of a rebuildable volume with that of ``points`` (tiles or voxels,
        as it was allocated; the same index-space map), keeping its id. Values start as the
        background (index grids: indices in the new order). A topology exceeding the capacities
        leaves the volume empty: ``status`` (one ``wp.uint32``) receives the ``REBUILD_*`` flags,
        and without it a RuntimeError says what overflowed."""
        owner = "wp.Volume.rebuild"
        if self._rebuild is None:
            raise RuntimeError(f"{owner}: this volume is not rebuildable (allocate it with rebuildable=True)")
        self._topology_from(points, point_mask, status, owner)

    def _topology_from(self, points: Any, point_mask: Any, status: Any, owner: str) -> None:
        """The topology of ``points`` (a rebuildable volume): kernels on a CUDA device for points
        on it (recorded by graph capture), else the host."""
        spec = self._rebuild
        assert spec is not None  # only rebuildable volumes get here
        topology = getattr(self, "_device_topology", None)
        if topology is not None and device_supported(points, point_mask, self.device):
            rebuilds.check_status(status, owner)
            topology.build(points, point_mask, status)
            if status is None and not self.device.is_capturing:
                flags = topology.flags()
                if flags:
                    raise RuntimeError(rebuilds.overflow_message(flags, spec.info, owner))
            return
        rebuilds.refuse_capture(self.device, owner)
        ijk = index_coords(points, spec.mat, spec.translation, point_mask, owner)
        if topology is not None:  # points the kernels do not read: the device build from a copy
            copy = wp.array(ijk.astype(np.int32).reshape(-1, 3), dtype=wp.vec3i, device=self.device)
            self._topology_from(copy, None, status, owner)
            return
        self._retopologize(ijk, status, owner)

    def _retopologize(self, ijk: np.ndarray, status: Any, owner: str) -> None:
        spec = self._rebuild
        assert spec is not None  # only rebuildable volumes get here
        flags = rebuilds.overflow(ijk, spec.info)
        if flags:
            ijk = ijk[:0]
        if spec.info.mode == "tiles":
            grid = rebuilds.tiles_grid(rebuilds.tile_origins(ijk), spec.bg_value)
        else:
            grid = rebuilds.voxels_grid(ijk)
        old = self._grid
        grid.mat, grid.vec, grid.voxel_size, grid.name = old.mat, old.vec, old.voxel_size, old.name
        self._set_grid(grid)
        rebuilds.write_status(status, flags, owner)
        if flags and status is None:
            raise RuntimeError(rebuilds.overflow_message(flags, spec.info, owner))

    @classmethod
    def _with_transform(
        cls, grid: nanovdb.GridArrays, mat: np.ndarray, translation: Any, device: Any
    ) -> Volume:
        """``grid`` with the index-to-world map world = ``mat`` @ ijk + ``translation``; its voxel
        size is NanoVDB's: the image of the index vector (1, 1, 1) by ``mat``."""
        grid.mat = np.array(mat, np.float64)
        grid.vec = np.asarray(translation, np.float64).reshape(3)
        grid.voxel_size = grid.mat @ np.ones(3)
        return cls(grid, device=device)

    # -- state ----------------------------------------------------------------------------
    @property
    def _grid(self) -> nanovdb.GridArrays:
        """The grid as arrays on the host; for a topology built on the device, read back now."""
        topology = getattr(self, "_device_topology", None)
        if topology is not None:
            return topology.host_grid(self._host_grid)
        return self._host_grid

    @_grid.setter
    def _grid(self, g: nanovdb.GridArrays) -> None:
        self._host_grid = g

    def _set_grid(self, g: nanovdb.GridArrays) -> None:
        self._grid = g
        dev = self.device
        fields, count = grid_fields(g, dev)
        self._voxel_count = count
        self._arrays = fields
        if getattr(self, "_descriptor", None) is None:
            self._descriptor = Descriptor(VolumeData, dev)
        else:  # a new topology in place: the id stays
            self._descriptor.value = VolumeData()
        self._descriptor.update(**fields)

    def _sync(self) -> nanovdb.GridArrays:
        """The grid with the current voxel values (kernels may have stored into them)."""
        g = self._grid
        if getattr(self, "_device_topology", None) is None:  # (read back with the current values)
            g.leaf_value = leaf_values(g, self._arrays)
        return g

    @property
    def id(self) -> int:
        """Unique ``uint64`` identifier of this volume in kernels."""
        return self._descriptor.address

    @property
    def dtype(self) -> Any:
        """The value type (``wp.float32``, ``wp.int32``, ``wp.vec3``, ``wp.float64``, ``wp.vec3d``,
        ``wp.vec4f``, ``wp.vec4d``, ``wp.uint32``, ``wp.int64``), or ``wp.uint64`` for index grids."""
        return value_type(self._grid.grid_type)

    @property
    def is_index(self) -> bool:
        """Whether this is an index grid (values live in a separate array)."""
        return self._grid.grid_type in (nanovdb.INDEX, nanovdb.ON_INDEX)

    def get_voxel_size(self) -> tuple[float, float, float]:
        """The voxel size in world units along x, y, z."""
        return tuple(float(v) for v in self._grid.voxel_size)  # type: ignore[return-value]

    def get_voxel_count(self) -> int:
        """Voxels that have storage: all slots of allocated leaves (active ones for on-index grids);
        for a rebuildable volume, the voxel capacity reserved (:meth:`get_active_stats` counts)."""
        if self._rebuild is not None:
            return self._rebuild.info.max_voxels
        return self._voxel_count

    def get_tile_count(self) -> int:
        """Number of leaves (8^3 tiles)."""
        return len(self._grid.leaf_origin)

    @property
    def is_rebuildable(self) -> bool:
        """Whether :meth:`rebuild` can change the topology in place (allocated with ``rebuildable=True``)."""
        return self._rebuild is not None

    def get_rebuild_info(self) -> RebuildInfo:
        """The rebuild mode and reserved capacities (``RebuildInfo(None, 0, 0, 0, 0)``: not rebuildable)."""
        return RebuildInfo(None, 0, 0, 0, 0) if self._rebuild is None else self._rebuild.info

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

    def get_voxels(self, out: Any = None) -> Any:
        """Index-space coordinates of the voxels that have storage (in the order of their
        storage): an ``(N, 3)`` ``wp.int32`` array, as in NVIDIA Warp. With ``out`` (an
        ``(M, 3)`` int32 or ``wp.vec3i`` array, M >= N) they fill its first N rows."""
        g = self._grid
        slots = np.arange(512)
        offsets = np.stack([slots >> 6, (slots >> 3) & 7, slots & 7], axis=1)
        ijk = (np.asarray(g.leaf_origin, np.int64)[:, None, :] + offsets[None, :, :]).reshape(-1, 3)
        if self.is_index:
            index = self._arrays["leaf_index"].numpy()[: len(ijk)]  # (capacity arrays are longer)
            stored = index >= 0
            ijk = ijk[stored][np.argsort(index[stored], kind="stable")]
        return rebuilds.coords_out(ijk, out, wp.int32, "wp.Volume.get_voxels", self.device)

    def _size_in_bytes(self) -> int:
        """The NanoVDB buffer's size; for the grid types kept in memory only (float64, vec3d,
        vec4f, vec4d: no buffer layout here), the bytes of the grid's arrays."""
        g = self._grid
        if nanovdb.layout_of(g.grid_type) is None:
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
            type_str=TYPE_STR.get(g.grid_type, str(g.grid_type)),
            translation=wp.vec3f(*np.asarray(g.vec, np.float32)),
            transform_matrix=wp.mat33f(*np.asarray(g.mat, np.float32).ravel()),
        )

    def get_tiles(self, out: Any = None) -> Any:
        """Index-space origins of the leaves, a ``wp.vec3i`` array. With ``out`` (an ``(M, 3)``
        int32 or ``wp.vec3i`` array, M at least the number of leaves) they fill its first rows."""
        return rebuilds.coords_out(self._grid.leaf_origin, out, wp.vec3i, "wp.Volume.get_tiles", self.device)

    def array(self) -> Any:
        """The volume as a NanoVDB grid buffer (a ``wp.uint8`` array), its feature arrays included.

        For a volume loaded from an ``.nvdb`` file, the grids that follow it in the file come
        after it, as in the buffer NVIDIA Warp loads a file into (grid sizes say where each ends).
        """
        buf = append_blind_data(nanovdb.encode(self._sync()), self._features)
        if self._file is not None:
            buf += volume_files.following_grids(self._file, self._grid_index, self._grid_count)
        return wp.array(np.frombuffer(buf, np.uint8), dtype=wp.uint8, device=self.device)

    def save_to_nvdb(self, path: Any, codec: str = "none") -> None:
        """Write the volume as an ``.nvdb`` file (``codec``: "none" or "zip")."""
        code = volume_files.codec_id(codec)
        buf = append_blind_data(nanovdb.encode(self._sync()), self._features)
        volume_files.write_nvdb(path, buf, code)
