"""wp.Volume: per-axis voxel sizes and their validation, get_voxels, get_grid_info."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

import warp as wp


@wp.kernel
def lookup_world(volume: wp.uint64, xyz: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = wp.volume_sample_f(volume, wp.volume_world_to_index(volume, xyz[i]), wp.Volume.CLOSEST)


def test_anisotropic_voxel_size_maps_world_to_index():
    rng = np.random.default_rng(2)
    dense = rng.random((9, 10, 11)).astype(np.float32)
    sizes = (0.2, 0.3, 0.4)
    origin = np.array([-1.0, 0.5, 2.0])
    vol = wp.Volume.load_from_numpy(dense, origin, sizes, bg_value=-5.0)
    assert vol.get_voxel_size() == pytest.approx(sizes)
    info = vol.get_grid_info()
    np.testing.assert_allclose(np.array(info.transform_matrix).reshape(3, 3), np.diag(sizes), atol=1e-7)
    np.testing.assert_allclose(np.array(info.translation), origin, atol=1e-7)
    assert info.grid_index == 0 and info.grid_count == 1 and info.type_str == "float"
    ijk = np.stack([rng.integers(0, n, 50) for n in dense.shape], axis=1)
    xyz = origin + ijk * np.array(sizes)
    out = wp.zeros(50, dtype=wp.float32)
    wp.launch(lookup_world, dim=50, inputs=[vol.id, wp.array(xyz.astype(np.float32), dtype=wp.vec3), out])
    np.testing.assert_array_equal(out.numpy(), dense[tuple(ijk.T)])


def test_get_voxels_lists_every_stored_voxel_once():
    tiles = wp.array([[0, 0, 0], [8, 0, 0], [-16, 24, 8]], dtype=wp.vec3i)
    vol = wp.Volume.allocate_by_tiles(tiles, voxel_size=(1.0, 2.0, 0.5), bg_value=0.0)
    voxels = vol.get_voxels()
    assert voxels.dtype is wp.int32 and voxels.ndim == 2  # (N, 3) int32, as in NVIDIA Warp
    voxels = voxels.numpy()
    assert voxels.shape == (vol.get_voxel_count(), 3) == (3 * 512, 3)
    assert len(np.unique(voxels, axis=0)) == len(voxels)
    expected = {tuple(t) for t in tiles.numpy()}
    assert {tuple(t) for t in (voxels // 8) * 8} == expected


@pytest.mark.parametrize(
    "voxel_size, error, match",
    [
        (None, TypeError, "voxel_size must be a number"),
        ("0.5", TypeError, "voxel_size must be a number"),
        ((0.1, "a", 0.2), TypeError, "must hold numbers"),
        ((0.1, 0.2), ValueError, "must have 3 entries"),
        (0.0, ValueError, "positive and finite"),
        (-0.1, ValueError, "positive and finite"),
        ((0.1, -0.2, 0.3), ValueError, "positive and finite"),
        (float("inf"), ValueError, "positive and finite"),
    ],
)
def test_bad_voxel_sizes(voxel_size, error, match):
    data = np.zeros((8, 8, 8), dtype=np.float32)
    with pytest.raises(error, match=match):
        wp.Volume.load_from_numpy(data, (0, 0, 0), voxel_size=voxel_size, bg_value=0.0)
    with pytest.raises(error, match=match):
        wp.Volume.allocate((0, 0, 0), (4, 4, 4), voxel_size=voxel_size, points_in_world_space=True)


def test_numpy_scalar_voxel_size():
    vol = wp.Volume.load_from_numpy(np.zeros((8, 8, 8), np.float32), (0, 0, 0), np.float32(0.5), bg_value=0.0)
    assert vol.get_voxel_size() == (0.5, 0.5, 0.5)


def test_multi_grid_file_segments_and_load_next_grid(tmp_path):
    from warp_geometry import nanovdb

    a = wp.Volume.load_from_numpy(np.arange(8 * 8 * 8, dtype=np.float32).reshape(8, 8, 8), bg_value=0.0)
    b = wp.Volume.load_from_numpy(-np.ones((16, 8, 8), np.float32), bg_value=1.0)
    bufs = [np.frombuffer(v.array().numpy().tobytes(), np.uint8).tobytes() for v in (a, b)]
    # one segment holding both grids: both metadata records first, then both payloads
    segment = io.BytesIO()
    files = []
    for buf in bufs:
        f = io.BytesIO()
        nanovdb.write_file(f, buf, 1)
        files.append(f.getvalue())
    metas = [fb[16:16 + 176 + struct.unpack_from("<I", fb, 16 + 136)[0]] for fb in files]
    payloads = [fb[16 + len(m):] for fb, m in zip(files, metas)]
    segment.write(files[0][:12] + struct.pack("<HH", 2, 1) + b"".join(metas) + b"".join(payloads))
    path = tmp_path / "two.nvdb"
    path.write_bytes(segment.getvalue())
    first = wp.Volume.load_from_nvdb(str(path))
    second = first.load_next_grid()
    assert second is not None and second.load_next_grid() is None
    assert (first.get_grid_info().grid_index, second.get_grid_info().grid_index) == (0, 1)
    assert first.get_grid_info().grid_count == second.get_grid_info().grid_count == 2
    assert first.get_voxel_count() == 512 and second.get_voxel_count() == 1024
    assert wp.Volume.load_from_numpy(np.zeros((8, 8, 8), np.float32)).load_next_grid() is None


@wp.kernel
def _lookup_listed(vol: wp.uint64, ijk: wp.array2d(dtype=wp.int32), out: wp.array(dtype=float)):
    t = wp.tid()
    out[t] = wp.volume_lookup_f(vol, ijk[t, 0], ijk[t, 1], ijk[t, 2])


def test_get_voxels_feeds_a_kernel_taking_an_int32_2d_array():
    tiles = wp.array([[0, 0, 0], [8, 8, 0]], dtype=wp.vec3i)
    vol = wp.Volume.allocate_by_tiles(tiles, voxel_size=1.0, bg_value=-1.0)
    ijk = vol.get_voxels()
    out = wp.zeros(ijk.shape[0], dtype=float)
    wp.launch(_lookup_listed, dim=ijk.shape[0], inputs=[vol.id, ijk, out])
    # allocated voxels hold the background value until written
    np.testing.assert_array_equal(out.numpy(), np.full(ijk.shape[0], -1.0, dtype=np.float32))


@wp.kernel
def _lookup_index(vol: wp.uint64, ijk: wp.array2d(dtype=wp.int32), out: wp.array(dtype=int)):
    t = wp.tid()
    out[t] = wp.volume_lookup_index(vol, ijk[t, 0], ijk[t, 1], ijk[t, 2])


def _parent_counts(voxels):
    return tuple(len(np.unique((voxels // s) * s, axis=0)) for s in (8, 128, 4096))


def test_allocate_by_voxels_activates_exactly_the_given_voxels():
    pts = np.array([[-1, -2, -3], [0, 0, 0], [1, 2, 3], [1, 2, 3], [4, 5, 6], [128, 0, 0]], dtype=np.int32)
    vol = wp.Volume.allocate_by_voxels(wp.array(pts, dtype=wp.int32), voxel_size=1.0)
    unique = np.unique(pts, axis=0)
    assert vol.is_index and not vol.is_rebuildable
    assert vol.get_rebuild_info() == wp.Volume.RebuildInfo(None, 0, 0, 0, 0)
    assert vol.get_voxel_count() == len(unique) == 5
    assert vol.get_active_stats() == wp.Volume.ActiveStats(5, *_parent_counts(unique))
    voxels = vol.get_voxels().numpy()
    np.testing.assert_array_equal(np.unique(voxels, axis=0), unique)
    # each listed voxel has the index of its position in get_voxels(); other voxels have none
    probe = np.concatenate([voxels, [[2, 2, 2], [50, 50, 50]]]).astype(np.int32)
    out = wp.zeros(len(probe), dtype=int)
    wp.launch(_lookup_index, dim=len(probe), inputs=[vol.id, wp.array(probe, dtype=wp.int32), out])
    np.testing.assert_array_equal(out.numpy(), [0, 1, 2, 3, 4, -1, -1])
    # world positions go to the nearest voxel
    world = wp.array(pts * 0.5 + np.array([-1.0, 2.0, -3.0]), dtype=wp.vec3)
    vol_ws = wp.Volume.allocate_by_voxels(world, voxel_size=0.5, translation=wp.vec3(-1.0, 2.0, -3.0))
    np.testing.assert_array_equal(np.unique(vol_ws.get_voxels().numpy(), axis=0), unique)


def test_point_masks_skip_points_and_an_all_masked_volume_is_empty():
    pts = wp.array([[0, 0, 0], [1, 2, 3], [1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=wp.int32)
    mask = wp.array([1, 1, 0, 0, 1], dtype=wp.int32)
    vol = wp.Volume.allocate_by_voxels(pts, voxel_size=1.0, point_mask=mask)
    expected = [[0, 0, 0], [1, 2, 3], [7, 8, 9]]
    np.testing.assert_array_equal(np.unique(vol.get_voxels().numpy(), axis=0), expected)
    tiles = wp.array([[0, 0, 0], [8, 0, 0], [16, 0, 0], [16, 0, 0]], dtype=wp.int32)
    tile_vol = wp.Volume.allocate_by_tiles(
        tiles, voxel_size=1.0, bg_value=None, point_mask=wp.array([1, 0, 1, 0], dtype=wp.int32)
    )
    np.testing.assert_array_equal(np.unique(tile_vol.get_tiles().numpy(), axis=0), [[0, 0, 0], [16, 0, 0]])
    assert tile_vol.get_voxel_count() == 2 * 512
    none = wp.zeros(2, dtype=wp.int32)
    two = wp.array([[0, 0, 0], [8, 0, 0]], dtype=wp.int32)
    for empty in (
        wp.Volume.allocate_by_voxels(two, voxel_size=1.0, point_mask=none),
        wp.Volume.allocate_by_tiles(two, voxel_size=1.0, bg_value=1.0, point_mask=none),
    ):
        assert empty.get_active_stats() == wp.Volume.ActiveStats(0, 0, 0, 0)
        assert empty.get_voxels().shape[0] == 0 and empty.get_tiles().shape[0] == 0
    with pytest.raises(ValueError, match="point_mask has 3 entries for 2 points"):
        wp.Volume.allocate_by_voxels(two, voxel_size=1.0, point_mask=wp.zeros(3, dtype=wp.int32))


def test_bg_value_none_makes_an_index_grid():
    vol = wp.Volume.allocate_by_tiles(wp.array([[0, 0, 0]], dtype=wp.int32), voxel_size=1.0, bg_value=None)
    assert vol.is_index and vol.dtype is wp.uint64 and vol.get_grid_info().type_str == "Index"
    assert vol.get_voxel_count() == 512


def _with_blind_data(grid: bytes, arrays: list[np.ndarray]) -> bytes:
    """``grid`` with blind data arrays appended (NanoVDB GridBlindMetaData entries, then the data)."""
    meta_at = (len(grid) + 31) // 32 * 32
    data_at = meta_at + 288 * len(arrays)
    metas, blobs = b"", b""
    for n, a in enumerate(arrays):
        offset = data_at + len(blobs) - (meta_at + 288 * n)
        metas += struct.pack("<qQIIII256s", offset, a.size, a.itemsize, 0, 0, 0, f"feature{n}".encode())
        blobs += a.tobytes()
    buf = bytearray(grid.ljust(meta_at, b"\0") + metas + blobs)
    struct.pack_into("<Q", buf, 32, len(buf))  # mGridSize
    struct.pack_into("<qI", buf, 640, meta_at, len(arrays))  # mBlindMetadataOffset, mBlindMetadataCount
    return bytes(buf)


def test_feature_arrays_are_the_grids_blind_data():
    allocated = wp.Volume.allocate(min=[0, 0, 0], max=[7, 7, 7], voxel_size=1.0, bg_value=0.0)
    grid = allocated.array().numpy().tobytes()
    first = np.array([3, 512, 2, 3], dtype=np.uint64)
    second = np.arange(10, dtype=np.float32)
    vol = wp.Volume(_with_blind_data(grid, [first, second]))
    assert vol.get_feature_array_count() == 2
    a = vol.feature_array(0, dtype=wp.uint64)
    assert a.dtype is wp.uint64 and a.device == vol.device
    np.testing.assert_array_equal(a.numpy(), first)
    np.testing.assert_array_equal(vol.feature_array(1, dtype=wp.float32).numpy(), second)
    assert vol.feature_array(1).shape == (40,)  # bytes by default
    with pytest.raises(IndexError, match="index 2 out of range"):
        vol.feature_array(2)
    assert wp.Volume(grid).get_feature_array_count() == 0
