"""wp.Volume: NanoVDB reader/writer round trips, lookups, sampling, gradients, stores, transforms."""

from __future__ import annotations

import io

import numpy as np
import pytest
from scipy import ndimage

import warp as wp
from warp_geometry import nanovdb
from warp_geometry.volume_topology import grid_from_leaves

from volume_lookups import lookup_f, lookup_v

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def lookup_i(
    id: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=int), index: wp.array(dtype=int)
):
    t = wp.tid()
    c = ijk[t]
    out[t] = wp.volume_lookup_i(id, c[0], c[1], c[2])
    index[t] = wp.volume_lookup_index(id, c[0], c[1], c[2])


@wp.kernel
def sample(
    id: wp.uint64,
    uvw: wp.array(dtype=wp.vec3),
    mode: int,
    out: wp.array(dtype=float),
    grad: wp.array(dtype=wp.vec3),
    grad_value: wp.array(dtype=float),
):
    t = wp.tid()
    out[t] = wp.volume_sample_f(id, uvw[t], mode)
    g = wp.vec3()
    grad_value[t] = wp.volume_sample_grad_f(id, uvw[t], mode, g)
    grad[t] = g


def _dense(shape=(20, 12, 9), seed=0):
    return np.random.default_rng(seed).random(shape).astype(np.float32)


def _reference(dense, ijk, bg):
    inside = np.all((ijk >= 0) & (ijk < dense.shape[:3]), axis=1)
    ref = np.broadcast_to(np.asarray(bg, dense.dtype), (len(ijk),) + dense.shape[3:]).copy()
    ref[inside] = dense[tuple(ijk[inside].T)]
    return ref


def _roundtrip(vol, codec="none"):
    buf = io.BytesIO()
    vol.save_to_nvdb(buf, codec=codec)
    return wp.Volume.load_from_nvdb(buf.getvalue())


@pytest.mark.parametrize("codec", [None, "none", "zip"])
def test_float_lookups_and_file_roundtrip(codec):
    dense = _dense()
    vol = wp.Volume.load_from_numpy(dense, voxel_size=0.5, bg_value=-1.0)
    if codec is not None:
        vol = _roundtrip(vol, codec)
    ijk = np.random.default_rng(1).integers(-5, 30, size=(400, 3)).astype(np.int32)
    out = wp.zeros(400, dtype=float)
    wp.launch(lookup_f, dim=400, inputs=[vol.id, wp.array(ijk, dtype=wp.vec3i), out])
    np.testing.assert_array_equal(out.numpy(), _reference(dense, ijk, -1.0))
    assert vol.get_voxel_size() == (0.5, 0.5, 0.5)
    assert vol.get_voxel_count() == vol.get_tile_count() * 512 == 3 * 2 * 2 * 512


def test_vec3_and_int_grids():
    rng = np.random.default_rng(2)
    dv = rng.normal(size=(9, 17, 5, 3)).astype(np.float32)
    vol = _roundtrip(wp.Volume.load_from_numpy(dv, bg_value=0.0))
    ijk = rng.integers(-2, 20, size=(300, 3)).astype(np.int32)
    out = wp.zeros(300, dtype=wp.vec3)
    wp.launch(lookup_v, dim=300, inputs=[vol.id, wp.array(ijk, dtype=wp.vec3i), out])
    np.testing.assert_array_equal(out.numpy(), _reference(dv, ijk, np.zeros(3, np.float32)))
    di = rng.integers(-100, 100, size=(10, 10, 10)).astype(np.int32)
    vol = _roundtrip(wp.Volume.load_from_numpy(di, bg_value=7))
    assert vol.dtype == wp.int32
    oi, idx = wp.zeros(300, dtype=int), wp.zeros(300, dtype=int)
    wp.launch(lookup_i, dim=300, inputs=[vol.id, wp.array(ijk, dtype=wp.vec3i), oi, idx])
    np.testing.assert_array_equal(oi.numpy(), _reference(di, ijk, 7))
    allocated = np.all((ijk >= 0) & (ijk < 16), axis=1)  # two leaves per axis
    assert ((idx.numpy() >= 0) == allocated).all()
    assert len(set(idx.numpy()[allocated].tolist())) == len({tuple(c) for c in ijk[allocated]})


def test_tiles_at_every_level_are_honoured():
    g = grid_from_leaves(np.array([[0, 0, 0]]), nanovdb.FLOAT, np.float32(0.5))
    g.leaf_value = np.arange(512, dtype=np.float32)
    g.lower_value[1] = 11.0  # lower tile next to the leaf: voxels (0..7, 0..7, 8..15)
    g.upper_value[1] = 22.0  # upper tile: voxels (0..127, 0..127, 128..255)
    g.root_origin = np.vstack([g.root_origin, [[4096, 0, 0]]]).astype(np.int32)
    g.root_child = np.append(g.root_child, -1).astype(np.int32)
    g.root_value = np.append(g.root_value, np.float32(33.0))
    g.root_active = np.append(g.root_active, True)
    vol = wp.Volume(nanovdb.encode(g))
    ijk = np.array([[1, 2, 3], [3, 4, 9], [5, 5, 200], [5000, 7, 7], [-1, 0, 0], [0, 300, 0]], np.int32)
    out = wp.zeros(6, dtype=float)
    wp.launch(lookup_f, dim=6, inputs=[vol.id, wp.array(ijk, dtype=wp.vec3i), out])
    np.testing.assert_array_equal(out.numpy(), [1 * 64 + 2 * 8 + 3, 11.0, 22.0, 33.0, 0.5, 0.5])


def test_on_index_grid_from_a_hand_built_buffer():
    g = grid_from_leaves(np.array([[0, 0, 0], [8, 0, 0]]), nanovdb.ON_INDEX, np.uint64(0))
    active = np.zeros(1024, bool)
    active[[3, 70, 511, 512 + 5, 1023]] = True
    g.leaf_active = active
    g.leaf_value = np.where(active, np.cumsum(active), 0).astype(np.uint64)  # 1-based, 0 = background
    vol = wp.Volume.load_from_nvdb(nanovdb.encode(g))
    assert vol.is_index and vol.get_voxel_count() == 5
    ijk = np.array([[0, 0, 3], [1, 0, 6], [7, 7, 7], [8, 0, 5], [15, 7, 7], [0, 0, 4]], np.int32)
    vals, idx = wp.zeros(6, dtype=int), wp.zeros(6, dtype=int)
    wp.launch(lookup_i, dim=6, inputs=[vol.id, wp.array(ijk, dtype=wp.vec3i), vals, idx])
    np.testing.assert_array_equal(idx.numpy(), [0, 1, 2, 3, 4, -1])
    assert _roundtrip(vol).get_voxel_count() == 5


def _trilinear(dense, uvw, bg):
    padded = np.pad(dense.astype(np.float64), 2, constant_values=bg)
    return ndimage.map_coordinates(padded, (uvw.T + 2), order=1, mode="nearest")


def test_sampling_closest_linear_and_gradient():
    dense = _dense((12, 10, 11), seed=3)
    vol = wp.Volume.load_from_numpy(dense, bg_value=0.25)
    rng = np.random.default_rng(4)
    uvw = (rng.random((300, 3)) * 13.0 - 1.5).astype(np.float32)
    out, grad, gval = wp.zeros(300, dtype=float), wp.zeros(300, dtype=wp.vec3), wp.zeros(300, dtype=float)
    wp.launch(
        sample, dim=300, inputs=[vol.id, wp.array(uvw, dtype=wp.vec3), wp.Volume.LINEAR, out, grad, gval]
    )
    padded_bg = np.full((16, 16, 16), 0.25, np.float32)  # allocated leaves hold the background outside dense
    padded_bg[:12, :10, :11] = dense
    ref = _trilinear(padded_bg, uvw, 0.25)
    np.testing.assert_allclose(out.numpy(), ref, atol=1e-5)
    np.testing.assert_allclose(gval.numpy(), ref, atol=1e-5)
    h = 1e-3
    fd = np.stack(
        [
            (_trilinear(padded_bg, uvw + h * e, 0.25) - _trilinear(padded_bg, uvw - h * e, 0.25)) / (2 * h)
            for e in np.eye(3)
        ],
        axis=1,
    )
    frac = uvw - np.floor(uvw)
    smooth = np.all((frac > 2 * h) & (frac < 1 - 2 * h), axis=1)
    np.testing.assert_allclose(grad.numpy()[smooth], fd[smooth], atol=2e-3)
    wp.launch(
        sample, dim=300, inputs=[vol.id, wp.array(uvw, dtype=wp.vec3), wp.Volume.CLOSEST, out, grad, gval]
    )
    nearest = np.floor(uvw + 0.5).astype(np.int32)
    np.testing.assert_array_equal(out.numpy(), _reference(padded_bg, nearest, 0.25))


@wp.kernel
def sample_loss(id: wp.uint64, uvw: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    t = wp.tid()
    wp.atomic_add(loss, 0, wp.volume_sample_f(id, uvw[t], wp.Volume.LINEAR))


@pytest.mark.slow
def test_gradient_of_volume_sample_wrt_the_point():
    dense = _dense((10, 10, 10), seed=5)
    vol = wp.Volume.load_from_numpy(dense, bg_value=0.0)
    uvw = (np.random.default_rng(6).random((64, 3)) * 7.0 + 1.0).astype(np.float32)
    x = wp.array(uvw, dtype=wp.vec3, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(sample_loss, dim=64, inputs=[vol.id, x, loss])
    tape.backward(loss)
    out, grad, gval = wp.zeros(64, dtype=float), wp.zeros(64, dtype=wp.vec3), wp.zeros(64, dtype=float)
    wp.launch(sample, dim=64, inputs=[vol.id, x, wp.Volume.LINEAR, out, grad, gval])
    np.testing.assert_allclose(x.grad.numpy(), grad.numpy(), rtol=1e-4, atol=1e-5)


@wp.kernel
def store_then_read(id: wp.uint64, ijk: wp.array(dtype=wp.vec3i), values: wp.array(dtype=float)):
    t = wp.tid()
    c = ijk[t]
    wp.volume_store_f(id, c[0], c[1], c[2], values[t])


def test_store_writes_allocated_voxels_only_and_is_saved():
    vol = wp.Volume.allocate_by_tiles(
        wp.array([[0, 0, 0], [20, 0, 0]], dtype=wp.vec3i), voxel_size=1.0, bg_value=0.0
    )
    assert vol.get_tile_count() == 2
    ijk = np.array([[1, 1, 1], [21, 2, 3], [9, 0, 0], [100, 100, 100]], np.int32)
    wp.launch(
        store_then_read,
        dim=4,
        inputs=[vol.id, wp.array(ijk, dtype=wp.vec3i), wp.array([1.5, 2.5, 3.5, 4.5], dtype=float)],
    )
    for v in (vol, _roundtrip(vol)):
        out = wp.zeros(4, dtype=float)
        wp.launch(lookup_f, dim=4, inputs=[v.id, wp.array(ijk, dtype=wp.vec3i), out])
        np.testing.assert_array_equal(out.numpy(), [1.5, 2.5, 0.0, 0.0])


@wp.kernel
def transforms(id: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    t = wp.tid()
    q = wp.volume_world_to_index(id, p[t])
    out[4 * t] = q
    out[4 * t + 1] = wp.volume_index_to_world(id, q)
    out[4 * t + 2] = wp.volume_world_to_index_dir(id, p[t])
    out[4 * t + 3] = wp.volume_index_to_world_dir(id, p[t])


def test_transforms_and_allocate():
    vol = wp.Volume.allocate(
        (-1.0, -1.0, -1.0),
        (1.0, 2.0, 1.0),
        voxel_size=0.25,
        bg_value=0.0,
        translation=(1.0, 2.0, 3.0),
        points_in_world_space=True,
    )
    p = np.array([[1.0, 2.0, 3.0], [0.5, 1.5, 4.0]], np.float32)
    out = wp.zeros(8, dtype=wp.vec3)
    wp.launch(transforms, dim=2, inputs=[vol.id, wp.array(p, dtype=wp.vec3), out])
    o = out.numpy().reshape(2, 4, 3)
    np.testing.assert_allclose(o[:, 0], (p - [1, 2, 3]) / 0.25, atol=1e-5)
    np.testing.assert_allclose(o[:, 1], p, atol=1e-5)
    np.testing.assert_allclose(o[:, 2], p / 0.25, atol=1e-5)
    np.testing.assert_allclose(o[:, 3], p * 0.25, atol=1e-6)
    # world box [-1, 1] x [-1, 2] x [-1, 1] is the index box (-8, -12, -16)..(0, 0, -8): leaves of 8^3
    tiles = vol.get_tiles().numpy()
    assert tiles.min(axis=0).tolist() == [-8, -16, -16] and tiles.max(axis=0).tolist() == [0, 0, -8]
    assert len(tiles) == 2 * 3 * 2


def test_errors():
    with pytest.raises(nanovdb.NanoVDBError, match="not a NanoVDB"):
        wp.Volume.load_from_nvdb(b"not a grid at all, just some bytes" * 40)
    g = grid_from_leaves(np.array([[0, 0, 0]]), nanovdb.FLOAT, np.float32(0))
    raw = bytearray(nanovdb.encode(g))
    raw[636:640] = (15).to_bytes(4, "little")  # Fp16
    with pytest.raises(nanovdb.NanoVDBError, match="grid type 15 is not supported"):
        wp.Volume(bytes(raw))
    with pytest.raises(ValueError, match="codec"):
        wp.Volume.allocate((0, 0, 0), (1, 1, 1), 1.0).save_to_nvdb(io.BytesIO(), codec="blosc")
    with pytest.raises(ValueError, match="voxel_size"):
        wp.Volume.allocate((0, 0, 0), (1, 1, 1), 0.0)


@wp.kernel
def generic_forms(
    fid: wp.uint64, vid: wp.uint64, uvw: wp.vec3, out: wp.array(dtype=float), vout: wp.array(dtype=wp.vec3)
):
    wp.volume_store(fid, 1, 2, 3, 5.0)
    out[0] = wp.volume_lookup(fid, 1, 2, 3, dtype=float)
    out[1] = wp.volume_sample(fid, uvw, wp.Volume.LINEAR, dtype=float)
    g = wp.vec3()
    out[2] = wp.volume_sample_grad(fid, uvw, wp.Volume.LINEAR, g, dtype=float)
    vout[0] = g
    vout[1] = wp.volume_sample(vid, uvw, wp.Volume.CLOSEST, dtype=wp.vec3)
    vout[2] = wp.volume_lookup(vid, 0, 0, 0, wp.vec3)


def test_generic_dtype_forms_forward_to_the_typed_builtins():
    dense = _dense((8, 8, 8), seed=9)
    fvol = wp.Volume.load_from_numpy(dense, bg_value=0.0)
    dv = np.random.default_rng(10).normal(size=(8, 8, 8, 3)).astype(np.float32)
    vvol = wp.Volume.load_from_numpy(dv, bg_value=0.0)
    uvw = np.array([2.25, 3.5, 4.75], np.float32)
    out, vout = wp.zeros(3, dtype=float), wp.zeros(3, dtype=wp.vec3)
    wp.launch(generic_forms, dim=1, inputs=[fvol.id, vvol.id, wp.vec3(*uvw), out, vout])
    dense[1, 2, 3] = 5.0
    ref = _trilinear(dense, uvw[None], 0.0)[0]
    np.testing.assert_allclose(out.numpy(), [5.0, ref, ref], rtol=1e-5)
    np.testing.assert_array_equal(vout.numpy()[1], dv[2, 4, 5])
    np.testing.assert_array_equal(vout.numpy()[2], dv[0, 0, 0])
    with pytest.raises(TypeError, match="kernel builtin"):
        wp.volume_sample(fvol.id, wp.vec3(0.0), 0, dtype=float)


def test_generic_form_rejects_other_dtypes():
    @wp.kernel
    def bad(vid: wp.uint64, out: wp.array(dtype=float)):
        out[0] = wp.volume_lookup(vid, 0, 0, 0, dtype=wp.vec2)

    vol = wp.Volume.load_from_numpy(_dense((8, 8, 8)), bg_value=0.0)
    with pytest.raises(
        wp.WarpCodegenTypeError, match="dtype must be float, wp.vec3, wp.int32, wp.float64, .* got vec2f"
    ):
        wp.launch(bad, dim=1, inputs=[vol.id, wp.zeros(1, dtype=float)])
