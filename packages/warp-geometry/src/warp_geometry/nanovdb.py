"""NanoVDB grids and ``.nvdb`` files: a reader and a writer written from the public format description.

A NanoVDB grid is one little-endian buffer: a 672-byte grid header (magic, version, name, the
index-to-world map, bounding boxes, voxel size, class and type), a 64-byte tree header (byte
offsets of the node arrays and their counts), the root (background value and a table of tiles
keyed by 4096^3 regions, each a constant value or an upper node), upper nodes (32^3 children of
128^3 voxels), lower nodes (16^3 children of 8^3 voxels) and leaves (8^3 voxels). Inner nodes
hold a child mask and a table whose entries are either a child's byte offset (relative to the
node) or a tile value. An ``.nvdb`` file is a 16-byte header (magic, version, grid count, codec)
followed, per grid, by 176 bytes of metadata, the grid name and the grid buffer (zlib
compressed for the ZIP codec).

Supported value types: float, int32, vec3f and the index grids (ValueIndex, ValueOnIndex, whose
leaves hold offsets into an external array). :func:`decode` turns a buffer into
:class:`GridArrays` (NumPy arrays per tree level, what the kernels read) and :func:`encode` does
the reverse.
"""

from __future__ import annotations

import io
import struct
import zlib
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Iterator

import numpy as np

MAGIC_GRID = 0x314244566F6E614E  # "NanoVDB1"
MAGIC_FILE = 0x324244566F6E614E  # "NanoVDB2"
MAGIC_LEGACY = 0x304244566F6E614E  # "NanoVDB0" (grids and files of older versions)
VERSION = (32 << 21) | (7 << 10)

FLOAT, INT32, VEC3F, INDEX, ON_INDEX = 1, 4, 6, 19, 20
#: value types held in memory only (created by wp.Volume.allocate*; no NanoVDB layout table here,
#: so they are not encoded to or decoded from buffers)
DOUBLE, VEC3D, VEC4F, VEC4D, INT64, UINT32 = 2, 7, 17, 18, 5, 10
TYPE_NAMES = {FLOAT: "float", INT32: "int32", VEC3F: "vec3f", INDEX: "index", ON_INDEX: "on-index",
              DOUBLE: "double", VEC3D: "vec3d", VEC4F: "vec4f", VEC4D: "vec4d", INT64: "int64",
              UINT32: "uint32"}
CLASS_FOG_VOLUME, CLASS_INDEX_GRID = 2, 8
GRID_SIZE, TREE_SIZE = 672, 64

#: per grid type: root (background, size, tile value offset, tile size), table stride of inner
#: nodes, (table offset, node size) of upper, lower and leaf nodes -- NanoVDB's layout tables
_SCALAR32_LAYOUT: dict[str, Any] = dict(
    bg=28, root=64, tile_val=20, tile=32, stride=8, upper=(8256, 270400), lower=(1088, 33856), leaf=(96, 2144)
)
_INDEX_LAYOUT: dict[str, Any] = dict(
    bg=32, root=96, tile_val=24, tile=32, stride=8, upper=(8256, 270400), lower=(1088, 33856), leaf=(80, 96)
)
_LAYOUT: dict[int, dict[str, Any]] = {
    FLOAT: _SCALAR32_LAYOUT,
    INT32: _SCALAR32_LAYOUT,
    VEC3F: dict(
        bg=28,
        root=96,
        tile_val=20,
        tile=32,
        stride=16,
        upper=(8256, 532544),
        lower=(1088, 66624),
        leaf=(128, 6272),
    ),
    INDEX: _INDEX_LAYOUT,
    ON_INDEX: _INDEX_LAYOUT,
}
_VALUE_DTYPE = {
    FLOAT: np.dtype("<f4"),
    INT32: np.dtype("<i4"),
    VEC3F: np.dtype(("<f4", 3)),
    INDEX: np.dtype("<u8"),
    ON_INDEX: np.dtype("<u8"),
    DOUBLE: np.dtype("<f8"),
    VEC3D: np.dtype(("<f8", 3)),
    VEC4F: np.dtype(("<f4", 4)),
    VEC4D: np.dtype(("<f8", 4)),
    INT64: np.dtype("<i8"),
    UINT32: np.dtype("<u4"),
}
#: (log2 of children per axis, log2 of voxels per child axis) of upper, lower and leaf nodes
UPPER, LOWER, LEAF = (5, 7), (4, 3), (3, 0)


class NanoVDBError(ValueError, RuntimeError):
    """A buffer or file that is not a supported NanoVDB grid (a ``ValueError``, and a
    ``RuntimeError`` as NVIDIA Warp raises for malformed grids)."""


#: GridData.mFlags: IsBreadthFirst (each tree level's nodes are stored contiguously, as here)
FLAGS_BREADTH_FIRST = 1 << 5


def layout_of(grid_type: int) -> dict[str, Any] | None:
    """The buffer layout (node sizes, table offsets) of grids of ``grid_type``, None if unread."""
    return _LAYOUT.get(grid_type)


@dataclass
class GridArrays:
    """A NanoVDB grid as arrays: node origins, child links (-1: tile), values per tree level."""

    grid_type: int
    name: str = ""
    grid_class: int = CLASS_FOG_VOLUME
    voxel_size: np.ndarray = field(default_factory=lambda: np.ones(3))
    mat: np.ndarray = field(default_factory=lambda: np.eye(3))  # index -> world, row major
    vec: np.ndarray = field(default_factory=lambda: np.zeros(3))
    background: Any = 0
    root_origin: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int32))
    root_child: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    root_value: np.ndarray | None = None
    root_active: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    upper_origin: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int32))
    upper_child: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # (U*32768,)
    upper_value: np.ndarray | None = None
    upper_active: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    lower_origin: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int32))
    lower_child: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # (L*4096,)
    lower_value: np.ndarray | None = None
    lower_active: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    leaf_origin: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int32))
    leaf_value: np.ndarray | None = None  # (N*512,) + value shape; index grids: uint64 indices
    leaf_active: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))  # (N*512,)

    @property
    def value_dtype(self) -> np.dtype:
        return _VALUE_DTYPE[self.grid_type]

    def empty_values(self, n: int) -> np.ndarray:
        return np.zeros(n, self.value_dtype)


# -- reading ----------------------------------------------------------------------------------
def _bits(buf: bytes, offset: int, count: int, nbits: int) -> np.ndarray:
    """``count`` bit masks of ``nbits`` bits starting at ``offset`` with the node stride."""
    words = np.frombuffer(buf, "<u4", count=nbits // 32, offset=offset)
    return np.unpackbits(words.view(np.uint8), bitorder="little").astype(bool)


def _nodes(buf: bytes, start: int, count: int, size: int) -> np.ndarray:
    return np.frombuffer(buf, np.uint8, count=count * size, offset=start).reshape(count, size)


def _masks(raw: np.ndarray, offset: int, nbits: int) -> np.ndarray:
    words = np.ascontiguousarray(raw[:, offset : offset + nbits // 8])
    return np.unpackbits(words, axis=1, bitorder="little").astype(bool)


def child_mask(raw: np.ndarray, entries: int) -> np.ndarray:
    """The child masks of inner nodes ``raw`` (one row of bytes per node), flattened."""
    return _masks(raw, 32 + entries // 8, entries).reshape(-1)


def table_entries(raw: np.ndarray, offset: int, entries: int, stride: int) -> tuple[np.ndarray, np.ndarray]:
    """(child byte offsets as int64, raw entries) of every table entry of inner nodes ``raw``."""
    return _table(raw, offset, entries, stride, np.dtype("<i8"))


def _table(
    raw: np.ndarray, offset: int, entries: int, stride: int, dtype: np.dtype
) -> tuple[np.ndarray, np.ndarray]:
    """(child byte offsets as int64, tile values) of every table entry of every node."""
    block = np.ascontiguousarray(raw[:, offset : offset + entries * stride]).reshape(-1, stride)
    child = block[:, :8].copy().view("<i8").reshape(-1)
    values = block[:, : dtype.itemsize].copy().view(dtype.base).reshape((-1,) + dtype.shape)
    return child, values


def decode(buf: bytes) -> GridArrays:
    """Decode one NanoVDB grid buffer (raises :class:`NanoVDBError` for unsupported grids)."""
    buf = bytes(buf)
    if len(buf) < GRID_SIZE + TREE_SIZE:
        raise NanoVDBError(f"buffer of {len(buf)} bytes is too small for a NanoVDB grid")
    magic, _checksum, version = struct.unpack_from("<QQI", buf, 0)
    if magic not in (MAGIC_GRID, MAGIC_LEGACY):
        raise NanoVDBError(f"not a NanoVDB grid (magic {magic:#x})")
    major = version >> 21
    if major < 32:
        raise NanoVDBError(f"NanoVDB version {major}.x grids are not supported (32.x is)")
    grid_class, grid_type = struct.unpack_from("<II", buf, 632)
    if grid_type not in _LAYOUT:
        raise NanoVDBError(
            f"NanoVDB grid type {grid_type} is not supported (float, int32, vec3f and index grids are)"
        )
    if grid_type in (INDEX, ON_INDEX) and (major, (version >> 10) & 0x7FF) < (32, 5):
        raise NanoVDBError(
            f"NanoVDB {major}.{(version >> 10) & 0x7FF} index grids are not supported: their leaves "
            "use an older layout (index grids from NanoVDB 32.5 on are)"
        )
    lay = _LAYOUT[grid_type]
    dtype = _VALUE_DTYPE[grid_type]
    name = buf[40:296].split(b"\0", 1)[0].decode("utf-8", "replace")
    mapd = np.frombuffer(buf, "<f8", count=21, offset=296 + 88)
    g = GridArrays(
        grid_type=grid_type,
        name=name,
        grid_class=grid_class,
        voxel_size=np.frombuffer(buf, "<f8", count=3, offset=608).copy(),
        mat=mapd[:9].reshape(3, 3).copy(),
        vec=mapd[18:21].copy(),
    )
    tree = GRID_SIZE
    off_leaf, off_lower, off_upper, off_root = struct.unpack_from("<QQQQ", buf, tree)
    n_leaf, n_lower, n_upper = struct.unpack_from("<III", buf, tree + 32)
    root = tree + off_root
    g.background = np.frombuffer(buf, dtype, count=1, offset=root + lay["bg"])[0].copy()
    n_tiles = struct.unpack_from("<I", buf, root + 24)[0]
    upper_start, lower_start, leaf_start = tree + off_upper, tree + off_lower, tree + off_leaf
    up_size, lo_size, lf_size = lay["upper"][1], lay["lower"][1], lay["leaf"][1]

    tiles = _nodes(buf, root + lay["root"], n_tiles, lay["tile"])
    keys = tiles[:, 0:8].copy().view("<u8").reshape(-1)
    child = tiles[:, 8:16].copy().view("<i8").reshape(-1)
    g.root_active = tiles[:, 16:20].copy().view("<u4").reshape(-1) != 0
    g.root_value = np.ascontiguousarray(tiles[:, lay["tile_val"] : lay["tile_val"] + dtype.itemsize]).view(
        dtype.base
    )
    g.root_value = g.root_value.reshape((-1,) + dtype.shape)
    g.root_origin = _key_to_origin(keys)
    g.root_child = np.where(child != 0, (root + child - upper_start) // max(up_size, 1), -1).astype(np.int32)

    def inner(
        start: int, count: int, size: int, log2: int, table_off: int, child_start: int, child_size: int
    ):
        raw = _nodes(buf, start, count, size)
        entries = 1 << (3 * log2)
        # the node's bounding box starts at its first active value: the origin is that, masked
        dim = 1 << (log2 + (UPPER[1] if log2 == UPPER[0] else LOWER[1]))
        origin = raw[:, 0:12].copy().view("<i4").reshape(-1, 3) & np.int32(~(dim - 1))
        value_mask = _masks(raw, 32, entries).reshape(-1)
        child_mask = _masks(raw, 32 + entries // 8, entries).reshape(-1)
        offsets, values = _table(raw, table_off, entries, lay["stride"], dtype)
        node_addr = np.repeat(start + size * np.arange(count, dtype=np.int64), entries)
        links = np.where(child_mask, (node_addr + offsets - child_start) // max(child_size, 1), -1).astype(
            np.int32
        )
        return origin, links, values, value_mask

    g.upper_origin, g.upper_child, g.upper_value, g.upper_active = inner(
        upper_start, n_upper, up_size, UPPER[0], lay["upper"][0], lower_start, lo_size
    )
    g.lower_origin, g.lower_child, g.lower_value, g.lower_active = inner(
        lower_start, n_lower, lo_size, LOWER[0], lay["lower"][0], leaf_start, lf_size
    )
    raw = _nodes(buf, leaf_start, n_leaf, lf_size)
    g.leaf_origin = raw[:, 0:12].copy().view("<i4").reshape(-1, 3) & np.int32(~7)  # bbox min -> origin
    g.leaf_active = _masks(raw, 16, 512).reshape(-1)
    table = lay["leaf"][0]
    if grid_type in (INDEX, ON_INDEX):
        first = raw[:, table : table + 8].copy().view("<u8").reshape(-1, 1)
        n = np.arange(512, dtype=np.uint64)[None, :]
        if grid_type == INDEX:
            idx = first + n
        else:  # active voxels count up from the leaf's offset
            active = g.leaf_active.reshape(-1, 512)
            rank = np.cumsum(active, axis=1) - active
            idx = np.where(active, first + rank.astype(np.uint64), 0)
        g.leaf_value = idx.reshape(-1).astype(np.uint64)
    else:
        vals = np.ascontiguousarray(raw[:, table : table + 512 * dtype.itemsize])
        g.leaf_value = vals.view(dtype.base).reshape((-1,) + dtype.shape)
    return g


def _key_to_origin(keys: np.ndarray) -> np.ndarray:
    mask = np.uint64((1 << 21) - 1)
    parts = [(keys >> np.uint64(s)) & mask for s in (42, 21, 0)]
    coords = np.stack(parts, axis=1).astype(np.uint32) << np.uint32(12)
    return coords.view(np.int32).reshape(-1, 3)


def _origin_to_key(origin: np.ndarray) -> np.ndarray:
    u = origin.astype(np.int32).view(np.uint32).astype(np.uint64) >> np.uint64(12)
    return (u[:, 0] << np.uint64(42)) | (u[:, 1] << np.uint64(21)) | u[:, 2]


# -- writing ----------------------------------------------------------------------------------
def _pack_bits(mask: np.ndarray, count: int, nbits: int) -> np.ndarray:
    return np.packbits(mask.reshape(count, nbits), axis=1, bitorder="little")


def encode(g: GridArrays) -> bytes:
    """The NanoVDB buffer of ``g`` (child links must point at existing nodes)."""
    if g.grid_type not in _LAYOUT:
        raise NotImplementedError(
            f"writing NanoVDB grids of {TYPE_NAMES.get(g.grid_type, g.grid_type)} values is not provided "
            "(float, int32, vec3f and index grids are)"
        )
    lay = _LAYOUT[g.grid_type]
    dtype = g.value_dtype
    n_root, n_upper, n_lower, n_leaf = (
        len(g.root_origin),
        len(g.upper_origin),
        len(g.lower_origin),
        len(g.leaf_origin),
    )
    up_size, lo_size, lf_size = lay["upper"][1], lay["lower"][1], lay["leaf"][1]
    root_bytes = lay["root"] + n_root * lay["tile"]
    root = GRID_SIZE + TREE_SIZE
    upper_start = root + (root_bytes + 31) // 32 * 32
    lower_start = upper_start + n_upper * up_size
    leaf_start = lower_start + n_lower * lo_size
    total = leaf_start + n_leaf * lf_size
    out = bytearray(total)

    name = g.name.encode()[:255]
    struct.pack_into(
        "<QQIIIIQ", out, 0, MAGIC_GRID, 0xFFFFFFFFFFFFFFFF, VERSION, FLAGS_BREADTH_FIRST, 0, 1, total
    )
    out[40 : 40 + len(name)] = name
    mat = np.asarray(g.mat, np.float64).reshape(3, 3)
    inv = np.linalg.inv(mat)
    vec = np.asarray(g.vec, np.float64)
    struct.pack_into("<9f9f3ff", out, 296, *mat.ravel(), *inv.ravel(), *vec, 1.0)
    struct.pack_into("<9d9d3dd", out, 296 + 88, *mat.ravel(), *inv.ravel(), *vec, 1.0)
    lo, hi = _index_bbox(g)
    corners = np.array(
        [[x, y, z] for x in (lo[0], hi[0] + 1) for y in (lo[1], hi[1] + 1) for z in (lo[2], hi[2] + 1)]
    )
    world = corners @ mat.T + vec
    struct.pack_into(
        "<6d3dII",
        out,
        560,
        *world.min(axis=0),
        *world.max(axis=0),
        *np.asarray(g.voxel_size, np.float64),
        g.grid_class,
        g.grid_type,
    )
    tree = GRID_SIZE
    struct.pack_into(
        "<QQQQIII",
        out,
        tree,
        leaf_start - tree if n_leaf else 0,
        lower_start - tree if n_lower else 0,
        upper_start - tree if n_upper else 0,
        root - tree,
        n_leaf,
        n_lower,
        n_upper,
    )
    struct.pack_into("<Q", out, tree + 56, int(g.leaf_active.sum()))

    # root
    struct.pack_into("<3i3iI", out, root, *lo, *hi, n_root)
    np.frombuffer(out, dtype, count=1, offset=root + lay["bg"])[...] = g.background  # type: ignore[index]
    view = np.frombuffer(out, np.uint8)
    if n_root:
        tiles = view[root + lay["root"] : root + root_bytes].reshape(n_root, lay["tile"])
        tiles[:, 0:8] = _origin_to_key(g.root_origin).view(np.uint8).reshape(-1, 8)
        child = np.where(g.root_child >= 0, upper_start + g.root_child.astype(np.int64) * up_size - root, 0)
        tiles[:, 8:16] = child.astype("<i8").view(np.uint8).reshape(-1, 8)
        tiles[:, 16:20] = g.root_active.astype("<u4").view(np.uint8).reshape(-1, 4)
        vals = np.ascontiguousarray(np.asarray(g.root_value, dtype.base).reshape((-1,) + dtype.shape))
        tiles[:, lay["tile_val"] : lay["tile_val"] + dtype.itemsize] = vals.view(np.uint8).reshape(n_root, -1)

    def inner(start, count, size, log2, origin, child, values, active, table_off, child_start, child_size):
        if not count:
            return
        entries = 1 << (3 * log2)
        raw = view[start : start + count * size].reshape(count, size)
        raw[:, 0:12] = origin.astype("<i4").view(np.uint8).reshape(count, 12)
        dim = 1 << (log2 + (UPPER[1] if log2 == UPPER[0] else LOWER[1]))
        raw[:, 12:24] = (origin + dim - 1).astype("<i4").view(np.uint8).reshape(count, 12)
        raw[:, 32 : 32 + entries // 8] = _pack_bits(active, count, entries)
        raw[:, 32 + entries // 8 : 32 + entries // 4] = _pack_bits(child >= 0, count, entries)
        table = np.zeros((count * entries, lay["stride"]), np.uint8)
        vals = np.ascontiguousarray(np.asarray(values, dtype.base).reshape((-1,) + dtype.shape))
        table[:, : dtype.itemsize] = vals.view(np.uint8).reshape(count * entries, -1)
        node_addr = np.repeat(start + size * np.arange(count, dtype=np.int64), entries)
        links = child_start + child.astype(np.int64) * child_size - node_addr
        has = child >= 0
        table[has, :8] = links[has].astype("<i8").view(np.uint8).reshape(-1, 8)
        raw[:, table_off : table_off + entries * lay["stride"]] = table.reshape(count, -1)

    inner(
        upper_start,
        n_upper,
        up_size,
        UPPER[0],
        g.upper_origin,
        g.upper_child,
        g.upper_value,
        g.upper_active,
        lay["upper"][0],
        lower_start,
        lo_size,
    )
    inner(
        lower_start,
        n_lower,
        lo_size,
        LOWER[0],
        g.lower_origin,
        g.lower_child,
        g.lower_value,
        g.lower_active,
        lay["lower"][0],
        leaf_start,
        lf_size,
    )
    if n_leaf:
        raw = view[leaf_start : leaf_start + n_leaf * lf_size].reshape(n_leaf, lf_size)
        raw[:, 0:12] = g.leaf_origin.astype("<i4").view(np.uint8).reshape(n_leaf, 12)
        raw[:, 12:16] = np.full((n_leaf, 1), 0x00070707, "<u4").view(np.uint8)
        raw[:, 16:80] = _pack_bits(g.leaf_active, n_leaf, 512)
        table = lay["leaf"][0]
        if g.grid_type in (INDEX, ON_INDEX):
            first = np.asarray(g.leaf_value, np.uint64).reshape(n_leaf, 512)
            if g.grid_type == INDEX:
                starts = first[:, 0]
            else:  # the index of each leaf's first active voxel
                act = g.leaf_active.reshape(n_leaf, 512)
                big = np.uint64(np.iinfo(np.uint64).max)
                starts = np.where(act.any(axis=1), np.where(act, first, big).min(axis=1), np.uint64(0))
            raw[:, table : table + 8] = starts.astype("<u8").view(np.uint8).reshape(n_leaf, 8)
            if g.grid_type == ON_INDEX:
                words = g.leaf_active.reshape(n_leaf, 8, 64).sum(axis=2)
                prefix = np.cumsum(words, axis=1)[:, :7].astype(np.uint64)
                packed = np.zeros(n_leaf, np.uint64)
                for j in range(7):
                    packed |= prefix[:, j] << np.uint64(9 * j)
                raw[:, table + 8 : table + 16] = packed.astype("<u8").view(np.uint8).reshape(n_leaf, 8)
        else:
            vals = np.ascontiguousarray(np.asarray(g.leaf_value, dtype.base).reshape((-1,) + dtype.shape))
            raw[:, table : table + 512 * dtype.itemsize] = vals.view(np.uint8).reshape(n_leaf, -1)
    return bytes(out)


def _index_bbox(g: GridArrays) -> tuple[list[int], list[int]]:
    if len(g.leaf_origin):
        lo = g.leaf_origin.min(axis=0)
        hi = g.leaf_origin.max(axis=0) + 7
        return [int(v) for v in lo], [int(v) for v in hi]
    return [0, 0, 0], [0, 0, 0]


# -- files ------------------------------------------------------------------------------------
def is_grid_buffer(data: bytes) -> bool:
    """Whether ``data`` starts with a bare grid rather than an ``.nvdb`` file header.

    Newer NanoVDB gives grids and files distinct magic numbers; older versions (32.4 and before)
    use "NanoVDB0" for both. There, a grid has its version at byte 16 and its byte size at byte
    32, while a file has its version at byte 8 and a grid's byte size at byte 16.
    """
    if len(data) < GRID_SIZE + TREE_SIZE:
        return False
    magic = int.from_bytes(data[:8], "little")
    if magic == MAGIC_GRID:
        return True
    if magic != MAGIC_LEGACY:
        return False
    version, _flags, _index, _count, size = struct.unpack_from("<IIIIQ", data, 16)
    return version >> 21 >= 20 and GRID_SIZE + TREE_SIZE <= size <= len(data)


def _segments(f: BinaryIO) -> Iterator[list[tuple[int, int, int, bytes]]]:
    """The segments of an ``.nvdb`` file, each the list of its grids' ``(grid size, codec,
    file size, payload)``. A segment is a header, the metadata and name of each of its grids,
    then their payloads in the same order."""
    first = True
    while True:
        head = f.read(16)
        if not head and not first:
            return
        if len(head) < 16:
            raise NanoVDBError("file too short for a NanoVDB header")
        magic, _version, count, codec = struct.unpack("<QIHH", head)
        if magic not in (MAGIC_FILE, MAGIC_LEGACY):
            if first:
                raise NanoVDBError(f"not a NanoVDB file (magic {magic:#x})")
            return  # trailing bytes after the last segment
        first = False
        metas = []
        for _ in range(count):
            meta = f.read(176)
            if len(meta) < 176:
                raise NanoVDBError("truncated NanoVDB file (grid metadata)")
            grid_size, file_size = struct.unpack_from("<QQ", meta, 0)
            name_size = struct.unpack_from("<I", meta, 136)[0]
            grid_codec = struct.unpack_from("<H", meta, 168)[0]
            f.read(name_size)
            metas.append((grid_size, grid_codec or codec, file_size))
        grids = []
        for grid_size, grid_codec, file_size in metas:
            payload = f.read(file_size)
            if len(payload) < file_size:
                raise NanoVDBError("truncated NanoVDB file (grid data)")
            grids.append((grid_size, grid_codec, file_size, payload))
        yield grids


def file_grid_count(data: bytes) -> int:
    """Number of grids an ``.nvdb`` file (its bytes) holds, over all its segments."""
    return sum(len(segment) for segment in _segments(io.BytesIO(data)))


def read_file(f: BinaryIO, grid: int = 0) -> bytes:
    """The buffer of grid number ``grid`` (counted over all segments) of an ``.nvdb`` file
    (codecs NONE and ZIP)."""
    index = 0
    for segment in _segments(f):
        for grid_size, codec_used, _file_size, payload in segment:
            if index == grid:
                if codec_used == 0:
                    return payload[:grid_size]
                if codec_used == 1:
                    return _unzip(payload, grid_size)
                raise NanoVDBError(f"NanoVDB codec {codec_used} is not supported (NONE and ZIP are)")
            index += 1
    raise NanoVDBError(f"the file holds {index} grid(s), grid {grid} was asked for")


def _unzip(payload: bytes, grid_size: int) -> bytes:
    for start in (8, 0):  # a chunk size may precede the zlib stream
        try:
            out = zlib.decompress(payload[start:])
        except zlib.error:
            continue
        if len(out) >= grid_size:
            return out[:grid_size]
    raise NanoVDBError("could not decompress ZIP-coded NanoVDB grid")


def write_file(f: BinaryIO, buf: bytes, codec: int = 0) -> None:
    """Write one grid buffer as an ``.nvdb`` file (codec 0: none, 1: ZIP)."""
    g = decode(buf)
    payload = buf if codec == 0 else struct.pack("<q", 0) + zlib.compress(buf)
    if codec == 1:
        payload = struct.pack("<q", len(payload) - 8) + payload[8:]
    name = g.name.encode() + b"\0"
    f.write(struct.pack("<QIHH", MAGIC_FILE, VERSION, 1, codec))
    lo, hi = _index_bbox(g)
    meta = struct.pack(
        "<QQQQII6d6i3dI4I3IHHI",
        len(buf),
        len(payload),
        0,
        int(g.leaf_active.sum()),
        g.grid_type,
        g.grid_class,
        *struct.unpack_from("<6d", buf, 560),
        *lo,
        *hi,
        *g.voxel_size,
        len(name),
        len(g.leaf_origin),
        len(g.lower_origin),
        len(g.upper_origin),
        1,
        0,
        0,
        0,
        codec,
        0,
        VERSION,
    )
    f.write(meta)
    f.write(name)
    f.write(payload)
