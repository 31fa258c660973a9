"""Structural checks of NanoVDB grid buffers, before any of their bytes are trusted.

:func:`check_grid` verifies what decoding and the kernels rely on: the declared grid size fits
the buffer, the grid name is null-terminated, the value type is one we read, the tree's node
arrays, the root's tile table and the blind data lie inside the grid, in breadth-first order
without overlapping, and every child reference of the root, the upper and the lower nodes is
the start of a node of the next level. Failures raise :class:`NanoVDBError` (a ``ValueError``
and a ``RuntimeError``) whose message starts with "Invalid NanoVDB grid structure"; a grid
whose tree is not stored breadth-first raises "Unsupported NanoVDB tree layout".
"""

from __future__ import annotations

import struct

import numpy as np

from warp_geometry import nanovdb
from warp_geometry.nanovdb import GRID_SIZE, TREE_SIZE, NanoVDBError
from warp_geometry.nanovdb_blind import BLIND_COUNT, BLIND_OFFSET, META, blind_data

#: GridData.mFlags bit saying that the nodes of each tree level are stored contiguously
FLAG_BREADTH_FIRST = 1 << 5
_FLAGS, _GRID_SIZE_AT, _NAME_AT, _NAME_SIZE, _TYPE_AT = 20, 32, 40, 256, 636


def _invalid(detail: str) -> NanoVDBError:
    return NanoVDBError(f"Invalid NanoVDB grid structure: {detail}")


def grid_size(buf: bytes) -> int:
    """The declared size (``mGridSize``) of the grid at the start of ``buf``."""
    return struct.unpack_from("<Q", buf, _GRID_SIZE_AT)[0]


def check_grid(buf: bytes, *, aligned: bool = False) -> int:
    """Check the grid at the start of ``buf``; return its declared size.

    ``aligned``: the size must be a multiple of 32 bytes, as grids in ``.nvdb`` files are.
    The tree-layout flag is checked last (see :func:`check_breadth_first`), so that a broken
    grid is reported as such whatever its layout.
    """
    if len(buf) < GRID_SIZE + TREE_SIZE:
        raise _invalid(f"a buffer of {len(buf)} bytes is too small for a grid")
    size = grid_size(buf)
    if size < GRID_SIZE + TREE_SIZE or size > len(buf):
        raise _invalid(f"the declared grid size {size} does not fit a buffer of {len(buf)} bytes")
    if aligned and size % 32:
        raise _invalid(f"the declared grid size {size} is not a multiple of 32 bytes")
    if b"\0" not in bytes(buf[_NAME_AT : _NAME_AT + _NAME_SIZE]):
        raise _invalid("the grid name is not null-terminated")
    (grid_type,) = struct.unpack_from("<I", buf, _TYPE_AT)
    layout = nanovdb.layout_of(grid_type)
    if layout is None:
        raise _invalid(f"grid type {grid_type} is not supported (float, int32, vec3f and index grids are)")
    end_of_tree = _check_tree(buf, size, layout)
    (count,) = struct.unpack_from("<I", buf, BLIND_COUNT)
    if count:
        (meta_at,) = struct.unpack_from("<q", buf, BLIND_OFFSET)
        if meta_at < end_of_tree:
            raise _invalid(
                f"the blind metadata table (byte {meta_at}) overlaps the tree (up to byte {end_of_tree})"
            )
        if meta_at + count * META.size > size:
            raise _invalid(
                f"the blind metadata table ({count} entries at byte {meta_at}) does not fit the grid"
            )
    blind_data(buf, size)
    return size


def check_breadth_first(buf: bytes) -> None:
    """Raise unless the grid's tree is stored breadth-first (the only layout read here)."""
    (flags,) = struct.unpack_from("<I", buf, _FLAGS)
    if not flags & FLAG_BREADTH_FIRST:
        raise NanoVDBError(
            "Unsupported NanoVDB tree layout: the grid's nodes are not stored breadth-first "
            f"(flags {flags:#x} lack the IsBreadthFirst bit)"
        )


def _check_tree(buf: bytes, size: int, lay: dict) -> int:
    """Check the node arrays and child references; return the end (byte) of the last level."""
    tree = GRID_SIZE
    offsets = struct.unpack_from("<QQQQ", buf, tree)  # leaf, lower, upper, root
    counts = struct.unpack_from("<III", buf, tree + 32)  # leaf, lower, upper
    root = tree + offsets[3]
    if root < tree + TREE_SIZE or root + lay["root"] > size:
        raise _invalid(f"the root (byte {root}) lies outside the grid")
    (n_tiles,) = struct.unpack_from("<I", buf, root + 24)
    root_end = root + lay["root"] + n_tiles * lay["tile"]
    if root_end > size:
        raise _invalid(f"the root's {n_tiles} tiles do not fit the grid")
    # levels in breadth-first order: (name, start, count, node size)
    levels = [
        ("upper", tree + offsets[2], counts[2], lay["upper"][1]),
        ("lower", tree + offsets[1], counts[1], lay["lower"][1]),
        ("leaf", tree + offsets[0], counts[0], lay["leaf"][1]),
    ]
    end = root_end
    for name, start, count, node_size in levels:
        if not count:
            continue  # an empty level's offset is not used
        if start < end:
            raise _invalid(
                f"the {name} nodes (byte {start}) overlap the level before them (up to byte {end})"
            )
        end = start + count * node_size
        if end > size:
            raise _invalid(f"the {count} {name} nodes at byte {start} do not fit the grid")
    tiles = np.frombuffer(buf, np.uint8, count=n_tiles * lay["tile"], offset=root + lay["root"])
    child = tiles.reshape(n_tiles, lay["tile"])[:, 8:16].copy().view("<i8").reshape(-1)
    _check_children("root", root + child[child != 0], levels[0])
    for parent, (log2, table_key), child_level in (
        (levels[0], (nanovdb.UPPER[0], "upper"), levels[1]),
        (levels[1], (nanovdb.LOWER[0], "lower"), levels[2]),
    ):
        _, start, count, node_size = parent
        if not count:
            continue
        entries = 1 << (3 * log2)
        raw = np.frombuffer(buf, np.uint8, count=count * node_size, offset=start).reshape(count, node_size)
        mask = nanovdb.child_mask(raw, entries)
        offsets_, _ = nanovdb.table_entries(raw, lay[table_key][0], entries, lay["stride"])
        node_addr = np.repeat(start + node_size * np.arange(count, dtype=np.int64), entries)
        _check_children(table_key, (node_addr + offsets_)[mask], child_level)
    return end


def _check_children(parent: str, targets: np.ndarray, level: tuple) -> None:
    """Every address in ``targets`` is the start of a node of ``level``."""
    if not targets.size:
        return
    name, start, count, node_size = level
    rel = targets.astype(np.int64) - np.int64(start)
    ok = (rel >= 0) & (rel % node_size == 0) & (rel // node_size < count)
    if not ok.all():
        bad = int(targets[~ok][0])
        raise _invalid(
            f"a child reference of the {parent} level (byte {bad}) is not one of the {count} {name} nodes"
        )
