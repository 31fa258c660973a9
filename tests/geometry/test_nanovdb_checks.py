"""Structural checks of NanoVDB grids (wp.Volume(data) and wp.Volume.load_from_nvdb), blind
data ("feature arrays") kept through array() and save_to_nvdb, and multi-grid file buffers.

Grids are made here with wp.Volume.allocate and their fields found and changed from the
NanoVDB byte layout (grid header 672 bytes, tree header 64 bytes, then the root)."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

import warp as wp

INVALID = "Invalid NanoVDB grid structure"
TREE = 672
META_SIZE = 288


def _grid(blind: list[tuple[str, np.ndarray]] = ()) -> bytearray:
    """A float grid of two leaves (so one upper and one lower node), blind data appended."""
    vol = wp.Volume.allocate(min=[0, 0, 0], max=[15, 7, 7], voxel_size=1.0, bg_value=0.0)
    buf = bytearray(vol.array().numpy().tobytes())
    if not blind:
        return buf
    meta_at = (len(buf) + 31) // 32 * 32
    data_at = meta_at + META_SIZE * len(blind)
    metas, blobs = b"", b""
    for n, (name, a) in enumerate(blind):
        offset = data_at + len(blobs) - (meta_at + META_SIZE * n)
        value_type = 1 if a.dtype == np.float32 else 0  # NanoVDB GridType Float, or Unknown
        metas += struct.pack("<qQIIII256s", offset, a.size, a.itemsize, 0, 0, value_type, name.encode())
        blobs += a.tobytes()
    out = bytearray(buf.ljust(meta_at, b"\0") + metas + blobs)
    out += b"\0" * (-len(out) % 32)
    struct.pack_into("<Q", out, 32, len(out))
    struct.pack_into("<qI", out, 640, meta_at, len(blind))
    return out


def _file(*grids: bytes) -> bytes:
    """An uncompressed .nvdb file (one segment) holding ``grids``."""
    head = struct.pack("<QIHH", 0x324244566F6E614E, 32 << 21 | 7 << 10, len(grids), 0)
    metas = b""
    for g in grids:
        meta = bytearray(176)
        struct.pack_into("<QQ", meta, 0, len(g), len(g))
        struct.pack_into("<I", meta, 136, 1)
        metas += bytes(meta) + b"\0"
    return head + metas + b"".join(bytes(g) for g in grids)


def _tree(buf: bytes) -> dict[str, int]:
    leaf, lower, upper, root = struct.unpack_from("<QQQQ", buf, TREE)
    n_leaf, n_lower, n_upper = struct.unpack_from("<III", buf, TREE + 32)
    return dict(
        leaf=leaf, lower=lower, upper=upper, root=root, n_leaf=n_leaf, n_lower=n_lower, n_upper=n_upper
    )


def test_own_grids_pass_and_the_error_is_a_runtime_and_value_error():
    buf = _grid()
    assert wp.Volume(bytes(buf)).get_voxel_count() == 1024
    assert wp.Volume.load_from_nvdb(_file(buf)).get_voxel_count() == 1024
    bad = bytearray(buf)
    struct.pack_into("<Q", bad, 32, 0)
    for error in (RuntimeError, ValueError):
        with pytest.raises(error, match=INVALID):
            wp.Volume(bytes(bad))


@pytest.mark.parametrize("size", [0, 700, "past"])
def test_declared_grid_size_must_fit(size):
    buf = _grid()
    struct.pack_into("<Q", buf, 32, len(buf) + 1 if size == "past" else size)
    with pytest.raises(RuntimeError, match=INVALID + ": the declared grid size"):
        wp.Volume(wp.array(np.frombuffer(bytes(buf), np.uint8), dtype=wp.uint8))


def test_unaligned_size_is_accepted_directly_but_not_in_files():
    buf = _grid() + b"\0"
    struct.pack_into("<Q", buf, 32, len(buf))
    assert wp.Volume(bytes(buf)).get_voxel_count() == 1024
    with pytest.raises(RuntimeError, match="not a multiple of 32 bytes"):
        wp.Volume.load_from_nvdb(_file(buf))


def test_grid_name_must_be_terminated():
    buf = _grid()
    buf[40:296] = b"A" * 256
    with pytest.raises(RuntimeError, match="grid name is not null-terminated"):
        wp.Volume(bytes(buf))


@pytest.mark.parametrize(
    "field, fmt, value, match",
    [
        (24, "<Q", "size", "the root"),  # root offset at the end of the grid
        (32, "<I", 0xFFFFFFFF, "leaf nodes"),  # leaf count
        (36, "<I", 0xFFFFFFFF, "lower nodes"),
        (40, "<I", 0xFFFFFFFF, "upper nodes"),
        (0, "<Q", "size", "leaf nodes"),  # leaf offset
    ],
)
def test_tree_header_must_describe_the_grid(field, fmt, value, match):
    buf = _grid()
    struct.pack_into(fmt, buf, TREE + field, len(buf) if value == "size" else value)
    with pytest.raises(RuntimeError, match=f"{INVALID}.*{match}"):
        wp.Volume.load_from_nvdb(_file(buf))


def test_root_tile_table_must_fit():
    buf = _grid()
    struct.pack_into("<I", buf, TREE + _tree(buf)["root"] + 24, 0xFFFFFFFF)
    with pytest.raises(RuntimeError, match="tiles do not fit the grid"):
        wp.Volume(bytes(buf))


@pytest.mark.parametrize("level", ["root", "upper", "lower"])
@pytest.mark.parametrize("shift", [32, "out"])
def test_child_references_must_start_a_node(level, shift):
    buf = _grid()
    t = _tree(buf)
    if level == "root":
        ref = TREE + t["root"] + 64 + 8  # first tile's child (float grids: root data 64 bytes)
    else:
        node = TREE + t[level]
        table, entries = (8256, 32768) if level == "upper" else (1088, 4096)
        mask = np.unpackbits(np.frombuffer(bytes(buf), np.uint8, entries // 8, node + 32 + entries // 8),
                             bitorder="little")
        ref = node + table + 8 * int(np.flatnonzero(mask)[0])
    (valid,) = struct.unpack_from("<q", buf, ref)
    assert valid != 0
    struct.pack_into("<q", buf, ref, len(buf) if shift == "out" else valid + shift)
    with pytest.raises(RuntimeError, match=f"child reference of the {level} level"):
        wp.Volume.load_from_nvdb(_file(buf))


def test_non_breadth_first_trees_are_unsupported():
    buf = _grid()
    (flags,) = struct.unpack_from("<I", buf, 20)
    assert flags & 32
    struct.pack_into("<I", buf, 20, flags & ~32)
    with pytest.raises(RuntimeError, match="Unsupported NanoVDB tree layout"):
        wp.Volume.load_from_nvdb(_file(buf))
    # a broken grid later in the file is reported before the layout of an earlier one
    later = _grid()
    struct.pack_into("<Q", later, TREE + 24, len(later))
    with pytest.raises(RuntimeError, match=INVALID):
        wp.Volume.load_from_nvdb(_file(buf, later))


def test_feature_arrays_survive_array_and_save(tmp_path):
    weights = np.linspace(0.0, 1.0, 7, dtype=np.float32)
    ids = np.arange(5, dtype=np.uint8)
    vol = wp.Volume(bytes(_grid([("weights", weights), ("ids", ids)])))
    info = vol.get_feature_array_info(0)
    assert (info.name, info.value_size, info.value_count, info.type) == ("weights", 4, 7, wp.float32)
    assert vol.get_feature_array_info(1).type is None
    again = wp.Volume(vol.array())
    np.testing.assert_array_equal(again.feature_array(0, dtype=wp.float32).numpy(), weights)
    np.testing.assert_array_equal(again.feature_array(1).numpy(), ids)
    vol.save_to_nvdb(str(tmp_path / "f.nvdb"))
    loaded = wp.Volume.load_from_nvdb(str(tmp_path / "f.nvdb"))
    assert loaded.get_feature_array_info(1) == vol.get_feature_array_info(1)
    with pytest.raises(IndexError, match="index 2 out of range"):
        vol.get_feature_array_info(2)


def test_feature_metadata_is_checked_and_snapshotted():
    buf = _grid([("weights", np.ones(4, np.float32))])
    meta_at, _ = struct.unpack_from("<qI", buf, 640)
    size = len(buf)
    for offset, count, value_size in ((-meta_at - 1, 1, 1), (size - meta_at + 1, 1, 1), (0, 1 << 63, 3)):
        bad = bytearray(buf)
        struct.pack_into("<qQI", bad, meta_at, offset, count, value_size)
        with pytest.raises(RuntimeError, match="feature array 0 .* does not fit the grid"):
            wp.Volume(bytes(bad))
    for meta_offset, meta_count in ((-1, 1), (size, 1), (meta_at, 0xFFFFFFFF)):
        bad = bytearray(buf)
        struct.pack_into("<qI", bad, 640, meta_offset, meta_count)
        with pytest.raises(RuntimeError, match="blind metadata table"):
            wp.Volume(bytes(bad))
    bad = bytearray(buf)
    bad[meta_at + 32 : meta_at + 288] = b"A" * 256
    with pytest.raises(RuntimeError, match="name of feature array 0 is not null-terminated"):
        wp.Volume(bytes(bad))
    # a negative data offset that stays inside the grid is fine: the array is the grid's first bytes
    ok = bytearray(buf)
    struct.pack_into("<qQI", ok, meta_at, -meta_at, 8, 1)
    data = wp.array(np.frombuffer(bytes(ok), np.uint8), dtype=wp.uint8)
    vol = wp.Volume(data, copy=False)
    np.testing.assert_array_equal(vol.feature_array(0).numpy(), np.frombuffer(bytes(ok[:8]), np.uint8))
    before = vol.get_feature_array_info(0)
    data.zero_()
    assert vol.get_feature_array_info(0) == before


def test_array_of_a_file_volume_holds_the_following_grids():
    first, second = _grid(), _grid([("w", np.ones(3, np.float32))])
    vol = wp.Volume.load_from_nvdb(io.BytesIO(_file(first, second)))
    buf = vol.array().numpy().tobytes()
    (size,) = struct.unpack_from("<Q", buf, 32)
    assert buf[size:] == bytes(second)
    assert vol.load_next_grid().get_feature_array_count() == 1
