"""Rebuildable volumes (``rebuildable=True``, ``Volume.rebuild``) and ``point_mask``: topologies
checked against sets of coordinates computed with NumPy, values and lookups read in kernels."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

from volume_lookups import lookup_index, lookup_v


@wp.kernel
def _voxel_count(volume: wp.uint64, out: wp.array(dtype=wp.int32)):
    out[0] = wp.volume_voxel_count(volume)


def _rows(a):
    a = np.asarray(a).reshape(-1, 3)
    return a[np.lexsort(a.T[::-1])] if len(a) else a


def _kernel_voxel_count(volume):
    out = wp.zeros(1, dtype=wp.int32)
    wp.launch(_voxel_count, dim=1, inputs=[volume.id, out])
    return int(out.numpy()[0])


def _node_counts(voxels):
    """Leaves, lower and upper nodes containing the voxels (brute force over the coordinates)."""
    return tuple(len({tuple(v) for v in (np.asarray(voxels) >> s)}) for s in (3, 7, 12))


def test_point_mask_drops_points():
    rng = np.random.default_rng(7)
    pts = rng.integers(-300, 300, size=(60, 3)).astype(np.int32)
    mask = rng.integers(0, 2, size=60).astype(np.int32)
    keep = {tuple(p) for p, m in zip(pts, mask) if m}
    vol = wp.Volume.allocate_by_voxels(
        wp.array(pts, dtype=wp.int32), voxel_size=1.0, point_mask=wp.array(mask, dtype=wp.int32)
    )
    np.testing.assert_array_equal(_rows(vol.get_voxels().numpy()), _rows(sorted(keep)))
    tiles = wp.Volume.allocate_by_tiles(
        wp.array(pts, dtype=wp.int32),
        voxel_size=1.0,
        bg_value=None,
        point_mask=wp.array(mask, dtype=wp.int32),
    )
    expected_tiles = {tuple((np.array(p) >> 3) * 8) for p in keep}
    np.testing.assert_array_equal(_rows(tiles.get_tiles().numpy()), _rows(sorted(expected_tiles)))
    with pytest.raises(ValueError, match="allocate_by_voxels: point_mask has 3 entries for 60 points"):
        wp.Volume.allocate_by_voxels(wp.array(pts, dtype=wp.int32), point_mask=np.ones(3, np.int32))


def test_rebuild_voxels_in_place_matches_a_fresh_volume():
    status = wp.zeros(1, dtype=wp.uint32)
    vol = wp.Volume.allocate_by_voxels(
        wp.array([[0, 0, 0]], dtype=wp.int32),
        voxel_size=1.0,
        rebuildable=True,
        max_active_voxels=64,
        max_leaf_nodes=64,
        max_lower_nodes=64,
        max_upper_nodes=16,
        status=status,
    )
    assert vol.is_rebuildable and status.numpy()[0] == wp.Volume.REBUILD_SUCCESS
    assert vol.get_rebuild_info() == wp.Volume.RebuildInfo("voxels", 64, 64, 64, 16)
    assert vol.get_voxel_count() == 64 and _kernel_voxel_count(vol) == 1  # capacity vs. active
    vid = vol.id
    rng = np.random.default_rng(11)
    pts = rng.integers(-200, 200, size=(40, 3)).astype(np.int32)
    vol.rebuild(wp.array(pts, dtype=wp.int32), status=status)
    assert vol.id == vid and status.numpy()[0] == wp.Volume.REBUILD_SUCCESS
    unique = _rows(np.unique(pts, axis=0))
    leaves, lowers, uppers = _node_counts(unique)
    assert vol.get_active_stats() == wp.Volume.ActiveStats(len(unique), leaves, lowers, uppers)
    assert _kernel_voxel_count(vol) == len(unique)
    out = wp.full((64, 3), -999, dtype=wp.int32)
    assert vol.get_voxels(out=out) is out
    rows = out.numpy()
    np.testing.assert_array_equal(_rows(rows[: len(unique)]), unique)
    assert np.all(rows[len(unique) :] == -999)
    # lookups agree with a volume allocated from the same points
    fresh = wp.Volume.allocate_by_voxels(wp.array(pts, dtype=wp.int32), voxel_size=1.0)
    query = np.vstack([unique, [[4096, 0, 0], [1, 1, 1], [-500, 3, 3]]]).astype(np.int32)
    got, ref = (wp.zeros(len(query), dtype=wp.int32) for _ in range(2))
    wp.launch(lookup_index, dim=len(query), inputs=[vol.id, wp.array(query, dtype=wp.vec3i), got])
    wp.launch(lookup_index, dim=len(query), inputs=[fresh.id, wp.array(query, dtype=wp.vec3i), ref])
    np.testing.assert_array_equal(got.numpy(), ref.numpy())


def test_rebuild_tiles_with_values_mask_and_world_points():
    background = [1.0, 2.0, 3.0]
    status = wp.zeros(1, dtype=wp.uint32)
    vol = wp.Volume.allocate_by_tiles(
        wp.array([[0.25, 0.5, 0.75]], dtype=wp.vec3),
        voxel_size=0.5,
        bg_value=background,
        translation=(0.25, 0.5, 0.75),
        rebuildable=True,
        max_tiles=4,
        max_lower_nodes=4,
        max_upper_nodes=4,
        status=status,
    )
    background[0] = 10.0  # the volume copied its background
    assert vol.get_rebuild_info() == wp.Volume.RebuildInfo("tiles", 4 * 512, 4, 4, 4)
    world = np.array([[0.25, 0.5, 0.75], [4.3, 0.5, 0.75], [0.25, 70.0, 0.75], [0.25, 0.5, 9.0]], np.float32)
    mask = np.array([1, 1, 0, 1], np.int32)
    vol.rebuild(wp.array(world, dtype=wp.vec3), status=status, point_mask=wp.array(mask, dtype=wp.int32))
    ijk = np.floor((world[mask != 0] - [0.25, 0.5, 0.75]) / 0.5).astype(np.int64)
    expected = _rows(np.unique(ijk >> 3, axis=0) * 8)
    np.testing.assert_array_equal(_rows(vol.get_tiles().numpy()), expected)
    voxels = (
        (
            expected[:, None, :]
            + np.stack(np.meshgrid(*[np.arange(8)] * 3, indexing="ij"), -1).reshape(-1, 3)[None]
        )
        .reshape(-1, 3)
        .astype(np.int32)
    )
    values = wp.zeros(len(voxels), dtype=wp.vec3)
    wp.launch(lookup_v, dim=len(voxels), inputs=[vol.id, wp.array(voxels, dtype=wp.vec3i), values])
    np.testing.assert_array_equal(values.numpy(), np.tile([1.0, 2.0, 3.0], (len(voxels), 1)))


def test_capacity_overflow_empties_the_volume_and_reports():
    status = wp.zeros(1, dtype=wp.uint32)
    two = wp.array([[1, 2, 3], [4, 5, 6]], dtype=wp.int32)
    vol = wp.Volume.allocate_by_voxels(
        two,
        voxel_size=1.0,
        rebuildable=True,
        max_active_voxels=1,
        max_leaf_nodes=1,
        max_lower_nodes=1,
        max_upper_nodes=1,
        status=status,
    )
    assert status.numpy()[0] == wp.Volume.REBUILD_VOXEL_CAPACITY_EXCEEDED
    assert vol.get_active_stats() == wp.Volume.ActiveStats(0, 0, 0, 0) and _kernel_voxel_count(vol) == 0
    far = wp.array([[0, 0, 0], [5000, 0, 0]], dtype=wp.int32)  # 2 voxels, leaves, lower and upper nodes
    vol.rebuild(far, status=status)
    V = wp.Volume
    every = (
        V.REBUILD_VOXEL_CAPACITY_EXCEEDED
        | V.REBUILD_LEAF_CAPACITY_EXCEEDED
        | V.REBUILD_LOWER_CAPACITY_EXCEEDED
        | V.REBUILD_UPPER_CAPACITY_EXCEEDED
    )
    assert status.numpy()[0] == every
    vol.rebuild(wp.array([[7, 7, 7]], dtype=wp.int32), status=status)
    assert status.numpy()[0] == wp.Volume.REBUILD_SUCCESS and vol.get_active_stats().voxel_count == 1
    with pytest.raises(RuntimeError, match=r"exceeds the volume's capacity \(active voxels"):
        vol.rebuild(two)
    assert vol.get_active_stats().voxel_count == 0


def test_rebuild_argument_errors():
    pts = wp.array([[0, 0, 0]], dtype=wp.int32)
    with pytest.raises(RuntimeError, match="rebuild: this volume is not rebuildable"):
        wp.Volume.allocate_by_voxels(pts).rebuild(pts)
    with pytest.raises(ValueError, match="rebuildable=True needs max_lower_nodes"):
        wp.Volume.allocate_by_tiles(pts, 1.0, rebuildable=True, max_tiles=1, max_upper_nodes=1)
    with pytest.raises(ValueError, match="max_tiles only apply with rebuildable=True"):
        wp.Volume.allocate_by_tiles(pts, 1.0, max_tiles=1)
    with pytest.raises(TypeError, match="status must be a wp.array of wp.uint32"):
        wp.Volume.allocate_by_voxels(
            pts,
            rebuildable=True,
            max_active_voxels=1,
            max_leaf_nodes=1,
            max_lower_nodes=1,
            max_upper_nodes=1,
            status=wp.zeros(1, dtype=wp.int32),
        )
    vol = wp.Volume.allocate_by_voxels(pts)
    with pytest.raises(ValueError, match="get_voxels: out has 0 rows for 1 coordinates"):
        vol.get_voxels(out=wp.zeros((0, 3), dtype=wp.int32))
    with pytest.raises(TypeError, match=r"get_tiles: out must be an \(M, 3\) wp.int32 array"):
        vol.get_tiles(out=wp.zeros(3, dtype=wp.float32))


def test_host_built_allocation_while_capturing_is_refused(fake_cuda):
    """Volumes that are not rebuildable size their buffers from the points on the host: a graph
    capture could neither record nor replay that, so allocating one while capturing raises, naming
    the call (rebuildable volumes are built by kernels: tests/geometry/test_volume_device_build.py)."""
    device = "cuda:0"
    moved = wp.array([[8, 0, 0], [0, 8, 0]], dtype=wp.int32, device=device)
    refused = "cannot be recorded by graph capture on device 'cuda:0'"
    with wp.ScopedCapture(device, force_module_load=False):
        with pytest.raises(RuntimeError, match=f"wp.Volume.allocate_by_voxels {refused}"):
            wp.Volume.allocate_by_voxels(moved, 1.0, device=device)
        with pytest.raises(RuntimeError, match=f"wp.Volume.allocate_by_tiles {refused}"):
            wp.Volume.allocate_by_tiles(moved, 1.0, 0.0, device=device)
        with pytest.raises(RuntimeError, match=f"wp.Volume.allocate {refused}"):
            wp.Volume.allocate((0, 0, 0), (8, 8, 8), 1.0, device=device)
