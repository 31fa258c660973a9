"""The ``.nvdb`` side of ``wp.Volume``: reading a file or buffer, checking every grid of a file
before any is used, the grids that follow one in its file, and writing a grid buffer as a file."""

from __future__ import annotations

import io
import os
from typing import Any

import warp as wp
from warp_geometry import nanovdb, nanovdb_checks

#: the codecs ``save_to_nvdb`` writes, by name
CODECS = {"none": 0, "zip": 1}


def read_bytes(file_or_buffer: Any) -> bytes:
    """The bytes of a path, an open binary file, a ``wp.array`` or any bytes-like buffer."""
    if isinstance(file_or_buffer, (str, os.PathLike)):
        with open(file_or_buffer, "rb") as f:
            return f.read()
    if hasattr(file_or_buffer, "read"):
        return file_or_buffer.read()
    if isinstance(file_or_buffer, wp.array):
        return file_or_buffer.numpy().tobytes()
    return bytes(file_or_buffer)


def checked_grids(data: bytes) -> list[bytes]:
    """Every grid of the ``.nvdb`` file ``data``, each checked (structure first, then the tree
    layout the volume reads) before any is returned."""
    grids = [nanovdb.read_file(io.BytesIO(data), i) for i in range(nanovdb.file_grid_count(data))]
    for grid in grids:
        nanovdb_checks.check_grid(grid, aligned=True)
    for grid in grids:
        nanovdb_checks.check_breadth_first(grid)
    return grids


def file_grid(data: bytes, index: int) -> bytes:
    """Grid ``index`` of the ``.nvdb`` file ``data``."""
    return nanovdb.read_file(io.BytesIO(data), index)


def following_grids(data: bytes, index: int, count: int) -> bytes:
    """The grids after grid ``index`` of the file ``data`` (of ``count`` grids), end to end."""
    return b"".join(file_grid(data, i) for i in range(index + 1, count))


def codec_id(codec: str) -> int:
    """The NanoVDB number of codec ``codec`` ("none" or "zip"); ValueError for another name."""
    if codec not in CODECS:
        raise ValueError(f"wp.Volume.save_to_nvdb: codec must be 'none' or 'zip', got {codec!r}")
    return CODECS[codec]


def write_nvdb(path: Any, buf: bytes, codec: int) -> None:
    """Write grid buffer ``buf`` as an ``.nvdb`` file (``codec``: see :func:`codec_id`) to ``path``
    (a path or an open binary file)."""
    if hasattr(path, "write"):
        nanovdb.write_file(path, buf, codec)
        return
    with open(path, "wb") as f:
        nanovdb.write_file(f, buf, codec)
