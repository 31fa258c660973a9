"""Rebuildable volumes on CUDA devices build their topology with kernels
(:mod:`warp_geometry.volume_device_build`): checked on the stand-in driver against the same
volumes built on the host (CPU device), and recorded/replayed by graph capture (the scenarios of
NVIDIA Warp's test_volume_write.py capture tests)."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from ptxas_util import assert_ptx_assembles, module_kernels, needs_ptxas
from warp_geometry import volume_device_build

from volume_lookups import lookup_f, lookup_index, lookup_v

DEV = "cuda:0"
V = wp.Volume


@wp.kernel
def _sample_f(volume: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    p = ijk[i]
    q = wp.vec3(float(p[0]) + 0.3, float(p[1]) + 0.6, float(p[2]) - 0.2)
    out[i] = wp.volume_sample_f(volume, q, wp.Volume.LINEAR)


@wp.kernel
def _store_f(volume: wp.uint64, ijk: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    p = ijk[i]
    wp.volume_store_f(volume, p[0], p[1], p[2], float(i) + 0.5)


@wp.kernel
def _voxel_count(volume: wp.uint64, out: wp.array(dtype=wp.int32), at: int):
    out[at] = wp.volume_voxel_count(volume)


def _points(rng, n, spread=6000):
    """Random index points with duplicates, negative coordinates and several upper nodes."""
    pts = rng.integers(-spread, spread, size=(n, 3)).astype(np.int32)
    near = rng.integers(-20, 20, size=(n // 2, 3)).astype(np.int32)
    pts = np.vstack([pts, near, pts[: n // 4]])
    return pts[rng.permutation(len(pts))]


def _queries(pts):
    """The points and inactive coordinates beside them (other voxels of their leaves, neighbours)."""
    pts = np.asarray(pts, np.int32).reshape(-1, 3)
    return np.vstack([pts, pts + [1, 0, 0], pts + [0, 9, 0], pts - [0, 0, 130], [[4096, 0, 0], [7, 7, 7]]])


def _run(kernel, volume, query, dtype, device):
    out = wp.zeros(len(query), dtype=dtype, device=device)
    wp.launch(
        kernel,
        dim=len(query),
        inputs=[volume.id, wp.array(query, dtype=wp.vec3i, device=device), out],
        device=device,
    )
    return out.numpy()


def _kernel_voxel_count(volume, device):
    out = wp.zeros(1, dtype=wp.int32, device=device)
    wp.launch(_voxel_count, dim=1, inputs=[volume.id, out, 0], device=device)
    return int(out.numpy()[0])


def _voxels(device, pts, caps=(4096, 1024, 512, 64), mask=None, status=None, world=None):
    def arr(a, dtype):
        return None if a is None else wp.array(a, dtype=dtype, device=device)

    if world is None:
        points = arr(pts, wp.int32)
        kwargs = {}
    else:
        size, translation = world
        points = arr(np.asarray(pts, np.float32) * size + np.asarray(translation, np.float32), wp.vec3)
        kwargs = dict(voxel_size=size, translation=translation)
    return V.allocate_by_voxels(
        points,
        device=device,
        rebuildable=True,
        max_active_voxels=caps[0],
        max_leaf_nodes=caps[1],
        max_lower_nodes=caps[2],
        max_upper_nodes=caps[3],
        point_mask=arr(mask, wp.int32),
        status=status,
        **kwargs,
    )


def _tiles(device, pts, bg, caps=(1024, 512, 64), mask=None, status=None):
    points = wp.array(pts, dtype=wp.vec3i, device=device)
    m = None if mask is None else wp.array(mask, dtype=wp.int32, device=device)
    return V.allocate_by_tiles(
        points,
        voxel_size=1.0,
        bg_value=bg,
        device=device,
        rebuildable=True,
        max_tiles=caps[0],
        max_lower_nodes=caps[1],
        max_upper_nodes=caps[2],
        point_mask=m,
        status=status,
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_voxels_built_on_the_device_equal_the_host_build(fake_cuda, seed):
    rng = np.random.default_rng(seed)
    pts = _points(rng, 120)
    mask = rng.integers(0, 2, size=len(pts)).astype(np.int32) if seed == 2 else None
    host, dev = (_voxels(d, pts, mask=mask) for d in ("cpu", DEV))
    assert dev._device_topology is not None and getattr(host, "_device_topology", None) is None
    stats = dev.get_active_stats()
    assert stats == host.get_active_stats() and stats.upper_node_count > 1
    # the same voxels in the same (index) order, not only the same set
    np.testing.assert_array_equal(dev.get_voxels().numpy(), host.get_voxels().numpy())
    assert dev.get_rebuild_info() == host.get_rebuild_info()
    assert _kernel_voxel_count(dev, DEV) == _kernel_voxel_count(host, "cpu") == stats.voxel_count
    query = _queries(pts)
    np.testing.assert_array_equal(
        _run(lookup_index, dev, query, wp.int32, DEV), _run(lookup_index, host, query, wp.int32, "cpu")
    )
    # a rebuild in place (fewer points) agrees too, id kept
    vid = dev.id
    fewer = pts[: len(pts) // 3]
    for v, d in ((host, "cpu"), (dev, DEV)):
        v.rebuild(wp.array(fewer, dtype=wp.vec3i, device=d))
    assert dev.id == vid and dev.get_active_stats() == host.get_active_stats()
    np.testing.assert_array_equal(dev.get_voxels().numpy(), host.get_voxels().numpy())
    np.testing.assert_array_equal(
        _run(lookup_index, dev, query, wp.int32, DEV), _run(lookup_index, host, query, wp.int32, "cpu")
    )
    assert dev.get_tile_count() == host.get_tile_count()


def test_world_points_map_to_the_same_voxels(fake_cuda):
    rng = np.random.default_rng(5)
    pts = _points(rng, 60, spread=300)
    world = (0.25, (1.0, -2.0, 3.5))
    host, dev = (_voxels(d, pts, world=world) for d in ("cpu", DEV))
    assert dev.get_active_stats() == host.get_active_stats()
    np.testing.assert_array_equal(dev.get_voxels().numpy(), host.get_voxels().numpy())
    # (N, 3) float32 rows read as the wp.vec3 points are
    rows = wp.array(
        np.asarray(pts, np.float32) * 0.25 + np.float32([1.0, -2.0, 3.5]), dtype=wp.float32, device=DEV
    )
    dev.rebuild(rows)
    np.testing.assert_array_equal(dev.get_voxels().numpy(), host.get_voxels().numpy())
    expected = np.unique(pts, axis=0)
    got = dev.get_voxels().numpy()
    np.testing.assert_array_equal(got[np.lexsort(got.T[::-1])], expected[np.lexsort(expected.T[::-1])])


@pytest.mark.parametrize(
    "bg", [2.5, None, (1.0, 2.0, 3.0), wp.float64(-1.5)], ids=["float", "index", "vec3", "f64"]
)
def test_tiles_built_on_the_device_equal_the_host_build(fake_cuda, bg):
    rng = np.random.default_rng(3)
    pts = _points(rng, 40)
    mask = rng.integers(0, 2, size=len(pts)).astype(np.int32)
    host, dev = (_tiles(d, pts, bg, mask=mask) for d in ("cpu", DEV))
    assert dev.get_active_stats() == host.get_active_stats()
    np.testing.assert_array_equal(dev.get_tiles().numpy(), host.get_tiles().numpy())
    np.testing.assert_array_equal(dev.get_voxels().numpy(), host.get_voxels().numpy())
    assert _kernel_voxel_count(dev, DEV) == _kernel_voxel_count(host, "cpu")
    assert dev.dtype == host.dtype and dev.is_index == host.is_index
    query = _queries(pts)
    if bg is None:
        np.testing.assert_array_equal(
            _run(lookup_index, dev, query, wp.int32, DEV), _run(lookup_index, host, query, wp.int32, "cpu")
        )
    elif isinstance(bg, float):
        for v, d in ((host, "cpu"), (dev, DEV)):  # stores, then a rebuild resets to the background
            wp.launch(
                _store_f, dim=len(pts), inputs=[v.id, wp.array(pts, dtype=wp.vec3i, device=d)], device=d
            )
        for kernel in (lookup_f, _sample_f):
            np.testing.assert_array_equal(
                _run(kernel, dev, query, wp.float32, DEV), _run(kernel, host, query, wp.float32, "cpu")
            )
        np.testing.assert_array_equal(dev._sync().leaf_value, host._sync().leaf_value)
        for v, d in ((host, "cpu"), (dev, DEV)):
            v.rebuild(wp.array(pts[:10], dtype=wp.vec3i, device=d))
        np.testing.assert_array_equal(
            _run(lookup_f, dev, query, wp.float32, DEV), _run(lookup_f, host, query, wp.float32, "cpu")
        )
    elif isinstance(bg, tuple):
        np.testing.assert_array_equal(
            _run(lookup_v, dev, query, wp.vec3, DEV), _run(lookup_v, host, query, wp.vec3, "cpu")
        )
    else:
        np.testing.assert_array_equal(dev._sync().leaf_value, host._sync().leaf_value)


@pytest.mark.parametrize("mode", ["voxels", "tiles"])
def test_capacity_overflow_sets_the_host_flags(fake_cuda, mode):
    cases = [
        np.array([[1, 2, 3], [4, 5, 6]]),
        np.array([[0, 0, 0], [5000, 0, 0]]),
        np.array([[0, 0, 0], [200, 0, 0]]),
        np.array([[7, 7, 7]]),
    ]
    for pts in cases:
        flags = []
        for d in ("cpu", DEV):
            status = wp.zeros(1, dtype=wp.uint32, device=d)
            if mode == "voxels":
                v = _voxels(d, pts.astype(np.int32), caps=(1, 1, 1, 1), status=status)
            else:
                v = _tiles(d, pts.astype(np.int32), 0.0, caps=(1, 1, 1), status=status)
            flags.append((int(status.numpy()[0]), v.get_active_stats(), _kernel_voxel_count(v, d)))
        assert flags[0] == flags[1]
    dev = _voxels(DEV, np.zeros((1, 3), np.int32), caps=(1, 1, 1, 1))
    with pytest.raises(RuntimeError, match=r"exceeds the volume's capacity \(active voxels"):
        dev.rebuild(wp.array([[1, 2, 3], [4, 5, 6]], dtype=wp.vec3i, device=DEV))
    assert dev.get_active_stats() == V.ActiveStats(0, 0, 0, 0)


def test_points_the_kernels_do_not_read_go_through_the_host_outside_capture(fake_cuda):
    pts = np.array([[1, 2, 3], [-9, 0, 4], [1, 2, 3]], np.int64)
    dev = _voxels(DEV, np.zeros((1, 3), np.int32))
    dev.rebuild(pts)  # NumPy int64 points: copied to the device, then built there
    got = dev.get_voxels().numpy()
    assert sorted(map(tuple, got)) == [(-9, 0, 4), (1, 2, 3)]
    with wp.ScopedCapture(DEV, force_module_load=False):
        with pytest.raises(RuntimeError, match="wp.Volume.rebuild cannot be recorded by graph capture"):
            dev.rebuild(pts)


# -- graph capture (NVIDIA Warp's test_volume_write.py scenarios) --------------------------------
def _sorted_rows(a):
    a = np.asarray(a).reshape(-1, 3)
    a = a[~np.all(a == -999, axis=1)]
    return a[np.lexsort(a.T[::-1])]


def test_allocate_capture(fake_cuda):
    voxel_points = wp.array([[1, 2, 3], [4, 5, 6]], dtype=wp.int32, device=DEV)
    tile_points = wp.array([[0, 0, 0], [8, 0, 0]], dtype=wp.int32, device=DEV)
    counts = wp.zeros(3, dtype=wp.int32, device=DEV)
    volumes = {}
    wp.load_module(device=DEV)
    with wp.ScopedCapture(device=DEV, force_module_load=False) as capture:
        volumes["voxels"] = V.allocate_by_voxels(
            voxel_points,
            voxel_size=1.0,
            device=DEV,
            rebuildable=True,
            max_active_voxels=4,
            max_leaf_nodes=4,
            max_lower_nodes=4,
            max_upper_nodes=4,
        )
        volumes["index"] = V.allocate_by_tiles(
            tile_points,
            voxel_size=1.0,
            bg_value=None,
            device=DEV,
            rebuildable=True,
            max_tiles=4,
            max_lower_nodes=4,
            max_upper_nodes=4,
        )
        volumes["value"] = V.allocate_by_tiles(
            tile_points,
            voxel_size=1.0,
            bg_value=2.0,
            device=DEV,
            rebuildable=True,
            max_tiles=4,
            max_lower_nodes=4,
            max_upper_nodes=4,
        )
        for at, name in enumerate(("voxels", "index", "value")):
            wp.launch(_voxel_count, dim=1, inputs=[volumes[name].id, counts, at], device=DEV)
    # nothing ran yet (the stand-in defers nothing: the capture only recorded)
    voxel_points.assign(np.array([[1, 2, 3], [100, 5, 6]], np.int32))
    for _ in range(2):
        wp.capture_launch(capture.graph)
        wp.synchronize_device(DEV)
        np.testing.assert_array_equal(counts.numpy(), [2, 1024, 1024])
        assert volumes["voxels"].get_active_stats() == V.ActiveStats(2, 2, 1, 1)
        assert volumes["index"].get_active_stats().leaf_node_count == 2
        assert volumes["value"].get_active_stats().leaf_node_count == 2
    np.testing.assert_array_equal(
        _sorted_rows(volumes["voxels"].get_voxels().numpy()), [[1, 2, 3], [100, 5, 6]]
    )


def _rebuild_captured(volume, points, **kwargs):
    wp.load_module(device=DEV)
    with wp.ScopedCapture(device=DEV, force_module_load=False) as capture:
        volume.rebuild(points, **kwargs)
    return capture.graph


def test_rebuild_tiles_capture(fake_cuda):
    status = wp.zeros(1, dtype=wp.uint32, device=DEV)
    volume = _tiles(DEV, np.zeros((1, 3), np.int32), 0.0, caps=(4, 4, 4), status=status)
    points = wp.array([[8, 0, 0], [8, 0, 0], [0, 8, 0]], dtype=wp.int32, device=DEV)
    graph = _rebuild_captured(volume, points, status=status)
    wp.capture_launch(graph)
    assert int(status.numpy()[0]) == V.REBUILD_SUCCESS
    tiles = wp.full((4, 3), -999, dtype=wp.int32, device=DEV)
    volume.get_tiles(out=tiles)
    np.testing.assert_array_equal(_sorted_rows(tiles.numpy()), [[0, 8, 0], [8, 0, 0]])
    points.assign(np.array([[16, 0, 0], [-1, 0, 0], [-1, 0, 0]], np.int32))  # replayed with new values
    wp.capture_launch(graph)
    np.testing.assert_array_equal(_sorted_rows(volume.get_tiles().numpy()), [[-8, 0, 0], [16, 0, 0]])


def test_rebuild_tiles_parent_key_capture(fake_cuda):
    status = wp.zeros(1, dtype=wp.uint32, device=DEV)
    volume = _tiles(DEV, np.zeros((1, 3), np.int32), 0.0, caps=(3, 2, 1), status=status)
    points = wp.array([[0, 0, 0], [0, 0, 128], [0, 8, 0], [0, 0, 128]], dtype=wp.int32, device=DEV)
    graph = _rebuild_captured(volume, points, status=status)
    wp.capture_launch(graph)
    assert int(status.numpy()[0]) == V.REBUILD_SUCCESS
    assert volume.get_active_stats() == V.ActiveStats(3 * 512, 3, 2, 1)


def test_rebuild_voxels_capture(fake_cuda):
    status = wp.zeros(1, dtype=wp.uint32, device=DEV)
    volume = _voxels(DEV, np.zeros((1, 3), np.int32), caps=(4, 4, 4, 4), status=status)
    points = wp.array([[1, 2, 3], [1, 2, 3], [4, 5, 6]], dtype=wp.int32, device=DEV)
    graph = _rebuild_captured(volume, points, status=status)
    wp.capture_launch(graph)
    assert int(status.numpy()[0]) == V.REBUILD_SUCCESS
    assert volume.get_active_stats() == V.ActiveStats(2, 1, 1, 1)
    voxels = wp.full((4, 3), -999, dtype=wp.int32, device=DEV)
    volume.get_voxels(out=voxels)
    np.testing.assert_array_equal(_sorted_rows(voxels.numpy()), [[1, 2, 3], [4, 5, 6]])
    points.assign(np.array([[-1, 2, 3], [1, 2, 3], [1, 2, 3]], np.int32))
    wp.capture_launch(graph)
    np.testing.assert_array_equal(_sorted_rows(volume.get_voxels().numpy()), [[-1, 2, 3], [1, 2, 3]])
    assert volume.get_active_stats() == V.ActiveStats(2, 2, 2, 2)  # (-1 >> 12 == -1)


def test_rebuild_voxels_point_mask_capture(fake_cuda):
    status = wp.zeros(1, dtype=wp.uint32, device=DEV)
    count = wp.zeros(1, dtype=wp.int32, device=DEV)
    volume = _voxels(DEV, np.zeros((1, 3), np.int32), caps=(4, 4, 4, 4), status=status)
    points = wp.array([[1, 2, 3], [1, 2, 3], [4, 5, 6], [7, 8, 9], [11, 12, 13]], dtype=wp.int32, device=DEV)
    mask = wp.array([1, 1, 0, 1, 0], dtype=wp.int32, device=DEV)
    wp.load_module(device=DEV)
    with wp.ScopedCapture(device=DEV, force_module_load=False) as capture:
        volume.rebuild(points, status=status, point_mask=mask)
        wp.launch(_voxel_count, dim=1, inputs=[volume.id, count, 0], device=DEV)
    wp.capture_launch(capture.graph)
    assert int(status.numpy()[0]) == V.REBUILD_SUCCESS and int(count.numpy()[0]) == 2
    np.testing.assert_array_equal(_sorted_rows(volume.get_voxels().numpy()), [[1, 2, 3], [7, 8, 9]])
    mask.assign(np.array([0, 0, 1, 1, 1], np.int32))
    wp.capture_launch(capture.graph)
    assert int(count.numpy()[0]) == 3
    np.testing.assert_array_equal(
        _sorted_rows(volume.get_voxels().numpy()), [[4, 5, 6], [7, 8, 9], [11, 12, 13]]
    )


def test_rebuild_capacity_status_capture(fake_cuda):
    tile_status, voxel_status = (wp.zeros(1, dtype=wp.uint32, device=DEV) for _ in range(2))
    first = np.zeros((1, 3), np.int32)
    tiles = _tiles(DEV, first, 0.0, caps=(1, 1, 1), status=tile_status)
    voxels = _voxels(DEV, first, caps=(1, 1, 1, 1), status=voxel_status)
    tile_points = wp.array([[0, 0, 0], [8, 0, 0]], dtype=wp.int32, device=DEV)
    voxel_points = wp.array([[1, 2, 3], [4, 5, 6]], dtype=wp.int32, device=DEV)
    wp.load_module(device=DEV)
    with wp.ScopedCapture(device=DEV, force_module_load=False) as capture:
        tiles.rebuild(tile_points, status=tile_status)
        voxels.rebuild(voxel_points, status=voxel_status)
    wp.capture_launch(capture.graph)
    assert int(tile_status.numpy()[0]) & V.REBUILD_LEAF_CAPACITY_EXCEEDED
    assert int(voxel_status.numpy()[0]) & V.REBUILD_VOXEL_CAPACITY_EXCEEDED
    assert tiles.get_active_stats() == voxels.get_active_stats() == V.ActiveStats(0, 0, 0, 0)
    voxel_points.assign(np.array([[4, 5, 6], [4, 5, 6]], np.int32))  # fits now
    wp.capture_launch(capture.graph)
    assert int(voxel_status.numpy()[0]) == V.REBUILD_SUCCESS
    assert voxels.get_active_stats() == V.ActiveStats(1, 1, 1, 1)


KERNELS = module_kernels(volume_device_build)


@needs_ptxas
@pytest.mark.parametrize("module,name,kernel", KERNELS, ids=[n for _, n, _ in KERNELS])
def test_kernel_ptx_assembles(module, name, kernel):
    assert_ptx_assembles(kernel)


def test_no_points_and_every_point_masked_give_an_empty_volume(fake_cuda):
    status = wp.full(1, 99, dtype=wp.uint32, device=DEV)
    dev = _voxels(DEV, np.zeros((0, 3), np.int32), status=status)
    assert int(status.numpy()[0]) == V.REBUILD_SUCCESS
    assert dev.get_active_stats() == V.ActiveStats(0, 0, 0, 0) and _kernel_voxel_count(dev, DEV) == 0
    pts = np.array([[1, 2, 3], [40, 5, 6]], np.int32)
    tiles = _tiles(DEV, pts, 1.0, mask=np.zeros(2, np.int32), status=status)
    assert int(status.numpy()[0]) == V.REBUILD_SUCCESS
    assert tiles.get_active_stats() == V.ActiveStats(0, 0, 0, 0)
    np.testing.assert_array_equal(_run(lookup_f, tiles, _queries(pts), wp.float32, DEV), 1.0)
