"""wp.Volume.load_from_nvdb on files written by NanoVDB itself (tests/geometry/data, see README.md there).

The expected values are the ones tests/geometry/data/make_samples.cpp wrote, hard-coded here; the
sphere's values were read back with NanoVDB's own accessor when the file was written.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
import pytest

import warp as wp
from warp_geometry import nanovdb

from volume_lookups import lookup_f, lookup_v

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

DATA = Path(__file__).parent / "data"


def _bytes(name: str) -> bytes:
    path = DATA / name
    return gzip.decompress(path.read_bytes()) if name.endswith(".gz") else path.read_bytes()


@wp.kernel
def lookup_i(id: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=int)):
    t = wp.tid()
    c = ijk[t]
    out[t] = wp.volume_lookup_i(id, c[0], c[1], c[2])


@wp.kernel
def transforms(
    id: wp.uint64, uvw: wp.array(dtype=wp.vec3), world: wp.array(dtype=wp.vec3), back: wp.array(dtype=wp.vec3)
):
    t = wp.tid()
    world[t] = wp.volume_index_to_world(id, uvw[t])
    back[t] = wp.volume_world_to_index(id, world[t])


@wp.kernel
def sample_linear(id: wp.uint64, uvw: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    t = wp.tid()
    out[t] = wp.volume_sample_f(id, uvw[t], wp.Volume.LINEAR)


def _run(kernel, vol, coords, dtype):
    ijk = wp.array(np.asarray(coords, np.int32).reshape(-1, 3), dtype=wp.vec3i)
    out = wp.zeros(len(coords), dtype=dtype)
    wp.launch(kernel, dim=len(coords), inputs=[vol.id, ijk, out])
    return out.numpy()


def _world(vol, uvw):
    uvw = wp.array(np.asarray(uvw, np.float32).reshape(-1, 3), dtype=wp.vec3)
    world = wp.zeros(len(uvw), dtype=wp.vec3)
    back = wp.zeros(len(uvw), dtype=wp.vec3)
    wp.launch(transforms, dim=len(uvw), inputs=[vol.id, uvw, world, back])
    return world.numpy(), back.numpy()


def _leaf_origins(vol) -> set[tuple[int, int, int]]:
    return {tuple(int(v) for v in row) for row in vol.get_tiles().numpy()}


# -- float fog volume: 8 voxels over 5 leaves and 4 root tiles ---------------------------------
FLOAT_VOXELS = {
    (0, 0, 0): 1.0,
    (1, 0, 0): 2.0,
    (7, 7, 7): 3.0,
    (8, 0, 0): 4.0,
    (3, 4, 5): -2.5,
    (-1, -1, -1): -5.0,
    (130, 5, -9): 6.25,
    (5000, -4100, 17): 7.5,
}
FLOAT_EMPTY = [(2, 0, 0), (6, 7, 7), (-8, -8, -8), (100, 100, 100), (-12288, 0, 0), (5000, -4100, 16)]


@pytest.mark.parametrize("name", ["float_voxels.nvdb.gz", "float_voxels_zip.nvdb"])
def test_float_sample(name):
    vol = wp.Volume.load_from_nvdb(_bytes(name))
    assert vol.dtype == wp.float32 and not vol.is_index
    coords = list(FLOAT_VOXELS) + FLOAT_EMPTY
    got = _run(lookup_f, vol, coords, float)
    want = np.array(list(FLOAT_VOXELS.values()) + [1.5] * len(FLOAT_EMPTY), np.float32)
    np.testing.assert_array_equal(got, want)
    assert vol.get_voxel_size() == (0.25, 0.25, 0.25)
    assert _leaf_origins(vol) == {(0, 0, 0), (8, 0, 0), (-8, -8, -8), (128, 0, -16), (5000, -4104, 16)}
    assert vol.get_tile_count() == 5 and vol.get_voxel_count() == 5 * 512
    world, back = _world(vol, [(0, 0, 0), (1, 2, 3), (-4, 8, 0.5)])
    np.testing.assert_allclose(world, [(1, 2, 3), (1.25, 2.5, 3.75), (0, 4, 3.125)], rtol=0, atol=1e-6)
    np.testing.assert_allclose(back, [(0, 0, 0), (1, 2, 3), (-4, 8, 0.5)], rtol=0, atol=1e-5)
    # trilinear sampling between (0,0,0)=1 and (1,0,0)=2; half way to the empty (0,1,0)
    uvw = wp.array(np.array([(0.5, 0, 0), (0.25, 0, 0), (0, 0.5, 0)], np.float32), dtype=wp.vec3)
    out = wp.zeros(3, dtype=float)
    wp.launch(sample_linear, dim=3, inputs=[vol.id, uvw, out])
    np.testing.assert_allclose(out.numpy(), [1.5, 1.25, 1.25], rtol=0, atol=1e-6)


def test_float_sample_header_fields():
    g = nanovdb.decode(nanovdb.read_file(io.BytesIO(_bytes("float_voxels.nvdb.gz"))))
    assert g.name == "float_voxels"
    assert g.grid_type == nanovdb.FLOAT and g.grid_class == nanovdb.CLASS_FOG_VOLUME
    assert g.background == np.float32(1.5)
    assert int(g.leaf_active.sum()) == len(FLOAT_VOXELS)
    np.testing.assert_array_equal(g.mat, np.eye(3) * 0.25)
    np.testing.assert_array_equal(g.vec, [1.0, 2.0, 3.0])
    # the active voxels are exactly the ones written, with their values
    origin = np.repeat(g.leaf_origin, 512, axis=0)
    n = np.arange(512)
    local = np.stack([n >> 6, (n >> 3) & 7, n & 7], axis=1)
    ijk = origin + np.tile(local, (len(g.leaf_origin), 1))
    on = g.leaf_active
    active = {tuple(int(v) for v in c): float(x) for c, x in zip(ijk[on], g.leaf_value[on])}
    assert active == FLOAT_VOXELS


def test_zip_and_uncompressed_files_hold_the_same_grid():
    a = nanovdb.read_file(io.BytesIO(_bytes("float_voxels.nvdb.gz")))
    b = nanovdb.read_file(io.BytesIO(_bytes("float_voxels_zip.nvdb")))
    assert a == b


# -- vec3f: non-uniform voxel size, non-zero background ----------------------------------------
VEC_VOXELS = {
    (0, 0, 0): (1.0, 2.0, 3.0),
    (1, 2, 3): (-1.0, 0.0, 4.5),
    (-9, 8, 100): (7.0, 8.0, 9.0),
    (4096, 0, 0): (0.5, -0.5, 0.25),
}


def test_vec3f_sample():
    vol = wp.Volume.load_from_nvdb(_bytes("vec3f_voxels.nvdb.gz"))
    assert vol.dtype == wp.vec3
    empty = [(1, 0, 0), (-9, 8, 101), (4095, 0, 0), (0, 0, -1)]
    got = _run(lookup_v, vol, list(VEC_VOXELS) + empty, wp.vec3)
    want = np.array(list(VEC_VOXELS.values()) + [(0.1, 0.2, 0.3)] * len(empty), np.float32)
    np.testing.assert_array_equal(got, want)
    assert vol.get_voxel_size() == (0.5, 1.0, 2.0)
    assert _leaf_origins(vol) == {(0, 0, 0), (-16, 8, 96), (4096, 0, 0)}
    world, back = _world(vol, [(0, 0, 0), (1, 2, 3), (2, -1, 0.5)])
    np.testing.assert_allclose(world, [(-1, 0.5, 2), (-0.5, 2.5, 8), (0, -0.5, 3)], rtol=0, atol=1e-6)
    np.testing.assert_allclose(back, [(0, 0, 0), (1, 2, 3), (2, -1, 0.5)], rtol=0, atol=1e-5)
    g = nanovdb.decode(nanovdb.read_file(io.BytesIO(_bytes("vec3f_voxels.nvdb.gz"))))
    assert g.name == "vec3f_voxels" and g.grid_type == nanovdb.VEC3F
    np.testing.assert_array_equal(g.background, np.float32([0.1, 0.2, 0.3]))


# -- int32, as a file and as a bare grid buffer --------------------------------------------------
INT_VOXELS = {(0, 0, 0): 42, (2, 0, 0): -7, (-3, 5, 1000): 123456, (16, 16, 16): 0}


@pytest.mark.parametrize("name", ["int32_voxels.nvdb.gz", "int32_voxels.grid.gz"])
def test_int32_sample(name):
    vol = wp.Volume.load_from_nvdb(_bytes(name))
    assert vol.dtype == wp.int32
    empty = [(1, 0, 0), (17, 16, 16), (-3, 5, 999), (9000, 9000, 9000)]
    got = _run(lookup_i, vol, list(INT_VOXELS) + empty, int)
    np.testing.assert_array_equal(got, list(INT_VOXELS.values()) + [-1] * len(empty))
    assert vol.get_voxel_size() == (2.0, 2.0, 2.0)
    assert _leaf_origins(vol) == {(0, 0, 0), (16, 16, 16), (-8, 0, 1000)}
    world, _ = _world(vol, [(1, 2, 3)])
    np.testing.assert_allclose(world, [(2, 4, 6)], rtol=0, atol=1e-6)


# -- float level set sphere (NanoVDB's createLevelSetSphere), ZIP-coded by NanoVDB -------------
# value of NanoVDB's accessor (and active state) along the x axis from i=-8 to 8 ...
SPHERE_X = [1, 1, 1, 1, 0.75, 0.25, -0.25, -0.75, -1, -1, -0.75, -0.25, 0.25, 0.75, 1, 1, 1]
SPHERE_X_ACTIVE = [0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0]
# ... and along (i, i, -i) from i=-6 to 6
SPHERE_D = [1, 1, 1, 1, 0.387458563, -0.469223619, -1, -0.75, 0.100781083, 0.96221447, 1, 1, 1]


def test_level_set_sphere_sample():
    vol = wp.Volume.load_from_nvdb(DATA / "sphere_ls_zip.nvdb")
    coords = [(i, 0, 0) for i in range(-8, 9)] + [(i, i, -i) for i in range(-6, 7)]
    got = _run(lookup_f, vol, coords, float)
    np.testing.assert_array_equal(got, np.float32(SPHERE_X + SPHERE_D))
    assert vol.get_voxel_size() == (0.5, 0.5, 0.5)
    g = nanovdb.decode(nanovdb.read_file(open(DATA / "sphere_ls_zip.nvdb", "rb")))
    assert g.name == "sphere_ls" and g.grid_class == 1  # LevelSet
    assert g.background == np.float32(1.0)  # half width 2 voxels x 0.5
    assert int(g.leaf_active.sum()) == 496 and len(g.leaf_origin) == 8
    # every active voxel holds the signed distance to the sphere (centre (0.5, 0, 0), radius 3 in
    # voxels) in world units
    origin = np.repeat(g.leaf_origin, 512, axis=0)
    n = np.arange(512)
    ijk = origin + np.tile(np.stack([n >> 6, (n >> 3) & 7, n & 7], axis=1), (len(g.leaf_origin), 1))
    on = g.leaf_active
    sdf = (np.linalg.norm(ijk[on] - [0.5, 0, 0], axis=1) - 3.0) * 0.5
    np.testing.assert_allclose(g.leaf_value[on], sdf, rtol=0, atol=1e-6)
    active_x = np.array(SPHERE_X_ACTIVE, bool)
    axis = {tuple(int(v) for v in c) for c in ijk[on] if c[1] == 0 and c[2] == 0}
    assert axis == {(i, 0, 0) for i, a in zip(range(-8, 9), active_x) if a}


def test_samples_are_nanovdb_32_4_files():
    """The samples keep NanoVDB 32.4's file magic ("NanoVDB0") and version field."""
    head = _bytes("float_voxels.nvdb.gz")[:16]
    magic, version = int.from_bytes(head[:8], "little"), int.from_bytes(head[8:12], "little")
    assert magic == nanovdb.MAGIC_LEGACY
    assert (version >> 21, (version >> 10) & 0x7FF, version & 0x3FF) == (32, 4, 2)


def test_index_grids_of_nanovdb_32_4_are_refused():
    """NanoVDB 32.4 index-grid leaves hold (stats offset, value offset), not today's layout."""
    dense = np.arange(8 * 8 * 8, dtype=np.float32).reshape(8, 8, 8)
    grid = nanovdb.decode(wp.Volume.load_from_numpy(dense, bg_value=0.0).array().numpy().tobytes())
    grid.grid_type = nanovdb.INDEX
    grid.leaf_value = np.arange(1, 513, dtype=np.uint64)
    buf = bytearray(nanovdb.encode(grid))
    assert nanovdb.decode(bytes(buf)).grid_type == nanovdb.INDEX
    buf[16:20] = ((32 << 21) | (4 << 10) | 2).to_bytes(4, "little")
    with pytest.raises(nanovdb.NanoVDBError, match=r"NanoVDB 32.4 index grids are not supported"):
        nanovdb.decode(bytes(buf))
