"""Index-to-world maps of allocated volumes: world-space points (float32) land in the voxel whose
centre is nearest, and ``transform=`` gives a general (rotated, anisotropic) map. Topologies are
compared with sets computed in NumPy; kernels store and read values through the volume."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def _store_ws(volume: wp.uint64, origins: wp.array(dtype=wp.vec3)):
    t = wp.tid()
    q = wp.volume_world_to_index(volume, origins[t])
    ti = int(wp.round(q[0]))
    tj = int(wp.round(q[1]))
    tk = int(wp.round(q[2]))
    for r in range(512):
        i = ti + (r // 64) % 8
        j = tj + (r // 8) % 8
        k = tk + r % 8
        wp.volume_store_f(volume, i, j, k, float(100 * i + 10 * j + k))


@wp.kernel
def _read(volume: wp.uint64, tiles: wp.array(dtype=wp.vec3i), out: wp.array(dtype=float)):
    t = wp.tid()
    o = tiles[t]
    for r in range(512):
        out[t * 512 + r] = wp.volume_lookup_f(volume, o[0] + (r // 64) % 8, o[1] + (r // 8) % 8, o[2] + r % 8)


@wp.kernel
def _to_index(volume: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    t = wp.tid()
    out[t] = wp.volume_world_to_index(volume, p[t])


def _rows(a) -> set:
    return {tuple(int(v) for v in row) for row in np.asarray(a).reshape(-1, 3)}


def test_world_space_tile_points_are_the_tiles_of_their_nearest_voxels():
    # float32 world positions of tile origins: (p - t) / size lands just below the origin for
    # many of them, and flooring would put those points in the tile before
    size, translation = 0.125, np.array([-12.3, 4.56, -789.0])
    tiles = np.random.default_rng(101215).integers(-512, 512, size=(300, 3)) * 8
    world = wp.array((tiles * size + translation).astype(np.float32), dtype=wp.vec3)
    volume = wp.Volume.allocate_by_tiles(world, size, 123.456, wp.vec3(*translation))
    assert _rows(volume.get_tiles().numpy()) == _rows(tiles)

    wp.launch(_store_ws, dim=len(tiles), inputs=[volume.id, world])
    out = wp.empty(len(tiles) * 512, dtype=float)
    wp.launch(_read, dim=len(tiles), inputs=[volume.id, wp.array(tiles, dtype=wp.vec3i), out])
    r = np.arange(512)
    ijk = tiles[:, None, :] + np.stack([r // 64, (r // 8) % 8, r % 8], axis=1)[None]
    expected = (100 * ijk[..., 0] + 10 * ijk[..., 1] + ijk[..., 2]).reshape(-1)
    np.testing.assert_array_equal(out.numpy(), expected.astype(np.float32))


def test_world_space_voxel_points_round_to_the_nearest_voxel():
    size = 0.5
    ijk = np.array([[-1, -2, -3], [0, 0, 0], [1, 2, 3], [4, 5, 6]])
    jitter = np.array([0.49, -0.49, 0.2])  # less than half a voxel
    world = wp.array((ijk + jitter) * size + [1.0, 2.0, 3.0], dtype=wp.vec3)
    volume = wp.Volume.allocate_by_voxels(world, size, translation=(1.0, 2.0, 3.0))
    assert _rows(volume.get_voxels().numpy()) == _rows(ijk)


ROTATE_SCALE = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]]


def test_transform_maps_world_points_to_voxels():
    m, t = np.array(ROTATE_SCALE), np.array([0.5, -1.0, 2.0])
    ijk = np.array([[1, 1, 2], [-3, 4, 0], [7, -8, 9]])
    world = ijk @ m.T + t
    volume = wp.Volume.allocate_by_voxels(wp.array(world, dtype=float), transform=ROTATE_SCALE, translation=t)
    assert _rows(volume.get_voxels().numpy()) == _rows(ijk)
    # NanoVDB's voxel size: the image of the index vector (1, 1, 1)
    np.testing.assert_allclose(volume.get_voxel_size(), m @ np.ones(3))
    info = volume.get_grid_info()
    np.testing.assert_allclose(np.array(info.transform_matrix).reshape(3, 3), m)
    np.testing.assert_allclose(np.array(info.translation), t, rtol=1e-6)
    # kernels use the same map
    out = wp.empty(len(world), dtype=wp.vec3)
    wp.launch(_to_index, dim=len(world), inputs=[volume.id, wp.array(world, dtype=wp.vec3), out])
    np.testing.assert_allclose(out.numpy(), ijk, atol=1e-5)


def test_transform_of_tiles_and_of_rebuilds():
    m = np.array(ROTATE_SCALE)
    ijk = np.array([[1, 1, 2], [20, -9, 17]])
    world = wp.array(ijk @ m.T, dtype=wp.vec3)
    volume = wp.Volume.allocate_by_tiles(world, bg_value=1.5, transform=ROTATE_SCALE)
    assert _rows(volume.get_tiles().numpy()) == _rows((ijk >> 3) << 3)

    moved = np.array([[-30, 5, 64]])
    voxels = wp.Volume.allocate_by_voxels(
        world, transform=ROTATE_SCALE, rebuildable=True, max_active_voxels=8, max_leaf_nodes=8,
        max_lower_nodes=8, max_upper_nodes=8,
    )
    voxels.rebuild(wp.array(moved @ m.T, dtype=wp.vec3))
    assert _rows(voxels.get_voxels().numpy()) == _rows(moved)


def test_transform_errors_name_the_problem():
    pts = wp.array([[0.0, 0.0, 0.0]], dtype=wp.vec3)
    by_voxels, by_tiles = "wp.Volume.allocate_by_voxels", "wp.Volume.allocate_by_tiles"
    with pytest.raises(ValueError, match=rf"{by_voxels}: transform must be a 3x3 matrix, got shape \(2, 2\)"):
        wp.Volume.allocate_by_voxels(pts, transform=[[1, 0], [0, 1]])
    with pytest.raises(ValueError, match=f"{by_tiles}: transform must be finite and invertible"):
        wp.Volume.allocate_by_tiles(pts, bg_value=0.0, transform=[[1, 0, 0], [0, 1, 0], [0, 0, 0]])
    with pytest.raises(TypeError, match=f"{by_voxels}: transform must be a 3x3 matrix of numbers"):
        wp.Volume.allocate_by_voxels(pts, transform="identity")
    with pytest.raises(ValueError, match=rf"{by_tiles}: voxel_size \(or transform\) is required"):
        wp.Volume.allocate_by_tiles(pts)
