"""uint32 and int64 volumes (``bg_value=wp.uint32(...)`` / ``wp.int64(...)``): stores, lookups and
closest-voxel sampling through ``wp.volume_store`` / ``wp.volume_lookup(..., dtype)`` /
``wp.volume_sample(..., dtype)``, checked exactly against NumPy (int64 values past 2**53 and
uint32 values past 2**31 included)."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

BIG = (1 << 62) + 12345  # not representable in float64


@wp.kernel
def _store_u32(volume: wp.uint64, ijk: wp.array(dtype=wp.vec3i), values: wp.array(dtype=wp.uint32)):
    t = wp.tid()
    p = ijk[t]
    wp.volume_store(volume, p[0], p[1], p[2], values[t])


@wp.kernel
def _store_i64(volume: wp.uint64, ijk: wp.array(dtype=wp.vec3i), values: wp.array(dtype=wp.int64)):
    t = wp.tid()
    p = ijk[t]
    wp.volume_store(volume, p[0], p[1], p[2], values[t])


@wp.kernel
def _read_u32(volume: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=wp.uint32),
              sampled: wp.array(dtype=wp.uint32)):
    t = wp.tid()
    p = ijk[t]
    out[t] = wp.volume_lookup(volume, p[0], p[1], p[2], dtype=wp.uint32)
    uvw = wp.vec3(float(p[0]) + 0.3, float(p[1]) - 0.4, float(p[2]) + 0.1)
    sampled[t] = wp.volume_sample(volume, uvw, wp.Volume.LINEAR, dtype=wp.uint32)


@wp.kernel
def _read_i64(volume: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=wp.int64),
              sampled: wp.array(dtype=wp.int64)):
    t = wp.tid()
    p = ijk[t]
    out[t] = wp.volume_lookup(volume, p[0], p[1], p[2], dtype=wp.int64)
    uvw = wp.vec3(float(p[0]) - 0.2, float(p[1]) + 0.45, float(p[2]))
    sampled[t] = wp.volume_sample(volume, uvw, wp.Volume.CLOSEST, dtype=wp.int64)


CASES = {
    "uint32": (wp.uint32, np.uint32, 0xFFFFFFF0, _store_u32, _read_u32),
    "int64": (wp.int64, np.int64, -BIG, _store_i64, _read_i64),
}


@pytest.mark.parametrize("name", list(CASES))
def test_store_lookup_and_sample_are_exact(name):
    dtype, np_type, bg, store, read = CASES[name]
    tiles = np.array([[0, 0, 0], [8, 0, 0], [0, 0, 128], [-4096, 8, 0]], np.int32)
    volume = wp.Volume.allocate_by_tiles(wp.array(tiles, dtype=wp.int32), 1.0, dtype(bg))
    assert volume.dtype is dtype and volume.get_grid_info().type_str == name

    rng = np.random.default_rng(5)
    inside = tiles[rng.integers(0, len(tiles), 64)] + rng.integers(0, 8, (64, 3))
    inside = np.unique(inside, axis=0).astype(np.int32)
    if np_type is np.uint32:
        values = rng.integers(1 << 31, 1 << 32, len(inside), dtype=np.uint64).astype(np.uint32)
    else:
        values = BIG - rng.integers(0, 1000, len(inside), dtype=np.int64)
    ijk = wp.array(inside, dtype=wp.vec3i)
    wp.launch(store, dim=len(inside), inputs=[volume.id, ijk, wp.array(values, dtype=dtype)])

    outside = np.array([[100, 100, 100], [-9, 0, 0]], np.int32)
    query = np.concatenate([inside, outside])
    out = wp.empty(len(query), dtype=dtype)
    sampled = wp.empty(len(query), dtype=dtype)
    wp.launch(read, dim=len(query), inputs=[volume.id, wp.array(query, dtype=wp.vec3i), out, sampled])
    expected = np.concatenate([values, np.full(len(outside), bg, np_type)]).astype(np_type)
    np.testing.assert_array_equal(out.numpy(), expected)
    # the sample points lie within half a voxel of the voxels: their closest voxel's value
    np.testing.assert_array_equal(sampled.numpy(), expected)


def test_store_of_another_type_leaves_the_volume_unchanged():
    tiles = wp.array(np.zeros((1, 3), np.int32), dtype=wp.int32)
    volume = wp.Volume.allocate_by_tiles(tiles, 1.0, wp.int64(5))
    ijk = wp.array([[1, 2, 3]], dtype=wp.vec3i)
    wp.launch(_store_u32, dim=1, inputs=[volume.id, ijk, wp.array([9], dtype=wp.uint32)])
    out, sampled = wp.empty(1, dtype=wp.int64), wp.empty(1, dtype=wp.int64)
    wp.launch(_read_i64, dim=1, inputs=[volume.id, ijk, out, sampled])
    assert out.numpy().tolist() == [5]
    # read as the other type: the value type does not match, nothing is read
    out32, sampled32 = wp.empty(1, dtype=wp.uint32), wp.empty(1, dtype=wp.uint32)
    wp.launch(_read_u32, dim=1, inputs=[volume.id, ijk, out32, sampled32])
    assert out32.numpy().tolist() == [0]


def test_gradients_and_nvdb_files_are_refused_by_name():
    tiles = wp.array(np.zeros((1, 3), np.int32), dtype=wp.int32)
    volume = wp.Volume.allocate_by_tiles(tiles, 1.0, wp.uint32(1))
    with pytest.raises(NotImplementedError, match="writing NanoVDB grids of uint32 values is not provided"):
        volume.array()

    @wp.kernel(module="unique")
    def grad(volume: wp.uint64):
        g = wp.vec3()
        wp.volume_sample_grad(volume, wp.vec3(0.0), wp.Volume.LINEAR, g, dtype=wp.int64)

    message = "wp.volume_sample_grad: int64 volumes have no gradients"
    with pytest.raises(wp.WarpCodegenTypeError, match=message):
        wp.launch(grad, dim=1, inputs=[volume.id])
