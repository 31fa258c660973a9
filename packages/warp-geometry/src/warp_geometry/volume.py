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
from warp_geometry import nanovdb
from warp_geometry.descriptors import Descriptor
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


_FIELDS = {nanovdb.FLOAT: ("f", wp.float32), nanovdb.INT32: ("i", wp.int32), nanovdb.VEC3F: ("v", wp.vec3)}


def _dtype_of_value(value: Any) -> tuple[int, Any]:
    """(grid type, background) for a background value given from Python."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("wp.Volume: bg_value must be a float, an int or a 3-vector")
    if isinstance(value, (int, np.integer)) or getattr(value, "dtype", None) in (np.int32, np.int64):
        return nanovdb.INT32, np.int32(value)
    if np.ndim(value) == 1 and len(value) == 3:
        return nanovdb.VEC3F, np.asarray(value, np.float32)
    if isinstance(value, (float, np.floating)) or np.ndim(value) == 0:
        return nanovdb.FLOAT, np.float32(value)
    raise TypeError(f"wp.Volume: bg_value must be a float, an int or a 3-vector, got {value!r}")


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
             nanovdb.ON_INDEX: "OnIndex"}


class Volume:
    """A sparse volume (NanoVDB grid) usable in kernels through ``id``.

    Build one with :meth:`load_from_nvdb`, :meth:`allocate`, :meth:`allocate_by_tiles` or
    :meth:`load_from_numpy`, or from the bytes of a NanoVDB grid (``wp.Volume(data)``).
    """

    #: sampling modes of ``volume_sample_*``
    CLOSEST = 0
    LINEAR = 1

    def __init__(self, data: Any, copy: bool = True, device: Any = None):
        if isinstance(data, nanovdb.GridArrays):
            grid = data
        else:
            raw = data.numpy().tobytes() if isinstance(data, wp.array) else bytes(data)
            grid = nanovdb.decode(raw)
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
        return cls._from_file(data, 0, device)

    @classmethod
    def _from_file(cls, data: bytes, index: int, device: Any) -> Volume:
        volume = cls(nanovdb.read_file(io.BytesIO(data), index), device=device)
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
    ) -> Volume:
        """A volume with one leaf (8^3 tile) for each point: ``wp.vec3i`` points are index-space
        voxel coordinates, ``wp.vec3`` points world positions."""
        if voxel_size is None:
            raise ValueError("wp.Volume.allocate_by_tiles: voxel_size is required")
        sizes = voxel_sizes(voxel_size, "wp.Volume.allocate_by_tiles")
        pts = tile_points.numpy() if isinstance(tile_points, wp.array) else np.asarray(tile_points)
        pts = pts.reshape(-1, 3)
        if np.issubdtype(pts.dtype, np.integer):
            ijk = pts.astype(np.int64)
        else:
            ijk = np.floor((pts - np.asarray(translation)) / sizes).astype(np.int64)
        origins = np.unique(ijk >> 3, axis=0) * 8
        return cls._from_leaves(origins, sizes, bg_value, translation, device)

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
        grid_type, bg = _dtype_of_value(bg_value)
        grid = grid_from_leaves(np.asarray(origins, np.int64), grid_type, bg)
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
        return g

    @property
    def id(self) -> int:
        """Unique ``uint64`` identifier of this volume in kernels."""
        return self._descriptor.address

    @property
    def dtype(self) -> Any:
        """The value type (``wp.float32``, ``wp.int32``, ``wp.vec3``), or ``wp.uint64`` for index grids."""
        return _FIELDS.get(self._grid.grid_type, (None, wp.uint64))[1]

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

    def get_voxels(self) -> Any:
        """Index-space coordinates of the voxels that have storage (``get_voxel_count()`` of
        them, in the order of their storage), a ``wp.vec3i`` array."""
        g = self._grid
        slots = np.arange(512)
        offsets = np.stack([slots >> 6, (slots >> 3) & 7, slots & 7], axis=1)
        ijk = (np.asarray(g.leaf_origin, np.int64)[:, None, :] + offsets[None, :, :]).reshape(-1, 3)
        if self.is_index:
            index = self._arrays["leaf_index"].numpy()
            stored = index >= 0
            ijk = ijk[stored][np.argsort(index[stored], kind="stable")]
        return wp.array(ijk.astype(np.int32), dtype=wp.vec3i, device=self.device)

    def get_grid_info(self) -> GridInfo:
        """Name, size, position in its file, type and index-to-world transform of the grid."""
        g = self._grid
        return GridInfo(
            name=g.name,
            size_in_bytes=len(nanovdb.encode(g)),
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
        """The volume as a NanoVDB grid buffer (a ``wp.uint8`` array)."""
        return wp.array(
            np.frombuffer(nanovdb.encode(self._sync()), np.uint8), dtype=wp.uint8, device=self.device
        )

    def save_to_nvdb(self, path: Any, codec: str = "none") -> None:
        """Write the volume as an ``.nvdb`` file (``codec``: "none" or "zip")."""
        codes = {"none": 0, "zip": 1}
        if codec not in codes:
            raise ValueError(f"wp.Volume.save_to_nvdb: codec must be 'none' or 'zip', got {codec!r}")
        buf = nanovdb.encode(self._sync())
        if hasattr(path, "write"):
            nanovdb.write_file(path, buf, codes[codec])
            return
        with open(path, "wb") as f:
            nanovdb.write_file(f, buf, codes[codec])
