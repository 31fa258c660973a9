"""Blind data of NanoVDB grids (the "feature arrays" of ``wp.Volume``): reading the metadata
table of a grid buffer and appending one to an encoded grid.

A grid names its blind metadata table by ``mBlindMetadataOffset`` (int64, from the grid's start,
at byte 640) and ``mBlindMetadataCount`` (uint32, byte 648). Each 288-byte ``GridBlindMetaData``
entry holds ``mDataOffset`` (int64, from the entry), ``mValueCount`` (uint64), ``mValueSize``,
``mSemantic``, ``mDataClass``, ``mDataType`` (uint32) and ``mName`` (char[256], null-terminated).
Every entry and every data range lies inside the grid (its declared ``mGridSize``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from warp_geometry.nanovdb import GRID_SIZE, NanoVDBError

BLIND_OFFSET, BLIND_COUNT = 640, 648
META = struct.Struct("<qQIIII256s")
NAME_OFFSET, NAME_SIZE = 32, 256
_ALIGN = 32


@dataclass(frozen=True)
class BlindData:
    """One blind data array of a grid: its metadata and a copy of its bytes."""

    name: str
    value_count: int
    value_size: int
    semantic: int
    data_class: int
    data_type: int
    data: bytes


def _invalid(detail: str) -> NanoVDBError:
    return NanoVDBError(f"Invalid NanoVDB grid structure: {detail}")


def blind_data(buf: bytes, grid_size: int | None = None) -> list[BlindData]:
    """The blind data arrays of the grid at the start of ``buf`` (``grid_size`` bytes long; by
    default its declared size), in metadata order. Raises :class:`NanoVDBError` for a table, a
    name or a data range that does not fit the grid."""
    size = struct.unpack_from("<Q", buf, 32)[0] if grid_size is None else grid_size
    size = min(size, len(buf))
    if size < GRID_SIZE:
        return []
    (offset,) = struct.unpack_from("<q", buf, BLIND_OFFSET)
    (count,) = struct.unpack_from("<I", buf, BLIND_COUNT)
    if count == 0:
        return []
    if offset < GRID_SIZE or offset + count * META.size > size:
        raise _invalid(f"the blind metadata table ({count} entries at byte {offset}) does not fit the grid")
    out = []
    for n in range(count):
        at = offset + n * META.size
        fields = META.unpack_from(buf, at)
        data_offset, value_count, value_size, semantic, data_class, data_type, raw_name = fields
        if b"\0" not in raw_name:
            raise _invalid(f"the name of feature array {n} is not null-terminated")
        start, nbytes = at + data_offset, value_count * value_size
        if start < 0 or start + nbytes > size:
            raise _invalid(
                f"feature array {n} ({value_count} values of {value_size} bytes at byte {start}) "
                "does not fit the grid"
            )
        name = raw_name.split(b"\0", 1)[0].decode("utf-8", "replace")
        out.append(BlindData(name, value_count, value_size, semantic, data_class, data_type,
                             bytes(buf[start : start + nbytes])))
    return out


def append_blind_data(grid: bytes, arrays: list[BlindData]) -> bytes:
    """``grid`` (an encoded grid without blind data) followed by the metadata table of ``arrays``
    and their data (32-byte aligned), with the grid's size and blind data fields updated."""
    if not arrays:
        return grid
    meta_at = (len(grid) + _ALIGN - 1) // _ALIGN * _ALIGN
    data_at = meta_at + META.size * len(arrays)
    metas, blobs = bytearray(), bytearray()
    for n, a in enumerate(arrays):
        data_at_n = (data_at + len(blobs) + _ALIGN - 1) // _ALIGN * _ALIGN
        blobs += b"\0" * (data_at_n - data_at - len(blobs)) + a.data
        name = a.name.encode()[: NAME_SIZE - 1]
        metas += META.pack(data_at_n - (meta_at + META.size * n), a.value_count, a.value_size, a.semantic,
                           a.data_class, a.data_type, name)
    out = bytearray(grid.ljust(meta_at, b"\0") + metas + blobs)
    out += b"\0" * (-len(out) % _ALIGN)
    struct.pack_into("<Q", out, 32, len(out))
    struct.pack_into("<qI", out, BLIND_OFFSET, meta_at, len(arrays))
    return bytes(out)
