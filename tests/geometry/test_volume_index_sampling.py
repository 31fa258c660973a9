"""volume_sample_index / volume_sample_grad_index against NumPy trilinear interpolation."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import ndimage

import warp as wp
from warp_geometry import nanovdb
from warp_geometry.volume_topology import grid_from_leaves

from volume_lookups import lookup_index

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def sample_f(
    id: wp.uint64,
    uvw: wp.array(dtype=wp.vec3),
    mode: int,
    data: wp.array(dtype=float),
    bg: float,
    out: wp.array(dtype=float),
    grad: wp.array(dtype=wp.vec3),
    grad_value: wp.array(dtype=float),
):
    t = wp.tid()
    out[t] = wp.volume_sample_index(id, uvw[t], mode, data, bg)
    g = wp.vec3()
    grad_value[t] = wp.volume_sample_grad_index(id, uvw[t], mode, data, bg, g)
    grad[t] = g


@wp.kernel
def sample_v(
    id: wp.uint64,
    uvw: wp.array(dtype=wp.vec3),
    mode: int,
    data: wp.array(dtype=wp.vec3),
    bg: wp.vec3,
    out: wp.array(dtype=wp.vec3),
):
    t = wp.tid()
    out[t] = wp.volume_sample_index(id, uvw[t], mode, data, bg)


@wp.kernel
def sample_i(
    id: wp.uint64,
    uvw: wp.array(dtype=wp.vec3),
    mode: int,
    data: wp.array(dtype=int),
    bg: int,
    out: wp.array(dtype=int),
):
    t = wp.tid()
    out[t] = wp.volume_sample_index(id, uvw[t], mode, data, bg)


@wp.kernel
def sample_d(
    id: wp.uint64,
    uvw: wp.array(dtype=wp.vec3),
    mode: int,
    data: wp.array(dtype=wp.float64),
    bg: wp.float64,
    out: wp.array(dtype=wp.float64),
    grad: wp.array(dtype=wp.vec3d),
):
    t = wp.tid()
    out[t] = wp.volume_sample_index(id, uvw[t], mode, data, bg)
    g = wp.vec3d()
    wp.volume_sample_grad_index(id, uvw[t], mode, data, bg, g)
    grad[t] = g


SHAPE = (16, 8, 8)  # two leaves along x


def _on_index_volume(seed: int):
    """An on-index grid of two leaves with about 60% of the voxels active."""
    g = grid_from_leaves(np.array([[0, 0, 0], [8, 0, 0]]), nanovdb.ON_INDEX, np.uint64(0))
    active = np.random.default_rng(seed).random(1024) < 0.6
    g.leaf_active = active
    g.leaf_value = np.where(active, np.cumsum(active), 0).astype(np.uint64)
    return wp.Volume.load_from_nvdb(nanovdb.encode(g))


def _dense_index(vol) -> np.ndarray:
    """volume_lookup_index of every voxel of SHAPE (independently of the sampler)."""
    ijk = np.stack(np.meshgrid(*[np.arange(s) for s in SHAPE], indexing="ij"), axis=-1).reshape(-1, 3)
    out = wp.zeros(len(ijk), dtype=int)
    wp.launch(
        lookup_index, dim=len(ijk), inputs=[vol.id, wp.array(ijk.astype(np.int32), dtype=wp.vec3i), out]
    )
    return out.numpy().reshape(SHAPE)


def _field(index: np.ndarray, data: np.ndarray, bg) -> np.ndarray:
    """Dense values on SHAPE padded by 3 voxels of background on every side (float64)."""
    bg = np.asarray(bg, np.float64)
    vals = np.where((index >= 0)[(...,) + (None,) * bg.ndim], data[np.maximum(index, 0)], bg)
    pad = [(3, 3)] * 3 + [(0, 0)] * bg.ndim
    return (
        np.pad(vals.astype(np.float64), pad, mode="constant", constant_values=0)
        + np.pad(np.zeros(SHAPE + bg.shape), pad, mode="constant", constant_values=1) * bg
    )


def _trilinear(field: np.ndarray, uvw: np.ndarray) -> np.ndarray:
    return ndimage.map_coordinates(field, uvw.T.astype(np.float64) + 3, order=1, mode="nearest")


def _points(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random((n, 3)) * (np.array(SHAPE) + 3) - 1.5).astype(np.float32)


def test_float_data_on_an_on_index_grid():
    vol = _on_index_volume(1)
    index = _dense_index(vol)
    n = vol.get_voxel_count()
    assert n == (index >= 0).sum() and 500 < n < 720
    data = np.random.default_rng(2).random(n).astype(np.float32)
    bg = 0.75
    field = _field(index, data, bg)
    uvw = _points(400, 3)
    out, grad, gval = wp.zeros(400, dtype=float), wp.zeros(400, dtype=wp.vec3), wp.zeros(400, dtype=float)
    args = [wp.array(uvw, dtype=wp.vec3), wp.Volume.LINEAR, wp.array(data, dtype=float), bg, out, grad, gval]
    wp.launch(sample_f, dim=400, inputs=[vol.id, *args])
    ref = _trilinear(field, uvw)
    np.testing.assert_allclose(out.numpy(), ref, atol=1e-5)
    np.testing.assert_allclose(gval.numpy(), ref, atol=1e-5)
    h = 1e-3
    fd = np.stack(
        [(_trilinear(field, uvw + h * e) - _trilinear(field, uvw - h * e)) / (2 * h) for e in np.eye(3)], 1
    )
    frac = uvw - np.floor(uvw)
    smooth = np.all((frac > 2 * h) & (frac < 1 - 2 * h), axis=1)
    np.testing.assert_allclose(grad.numpy()[smooth], fd[smooth], atol=2e-3)
    args[1] = wp.Volume.CLOSEST
    wp.launch(sample_f, dim=400, inputs=[vol.id, *args])
    nearest = np.floor(uvw + 0.5).astype(np.int64) + 3
    np.testing.assert_array_equal(out.numpy(), field[tuple(nearest.T)].astype(np.float32))
    np.testing.assert_array_equal(gval.numpy(), out.numpy())


def test_vector_int_and_double_data_share_one_topology():
    vol = wp.Volume.load_from_numpy(np.zeros((10, 6, 7), np.float32), bg_value=0.0)  # classical grid
    index = _dense_index(vol)
    n = vol.get_voxel_count()
    assert (index >= 0).all() and n == 2 * 512  # every slot of the allocated leaves has an index
    rng = np.random.default_rng(4)
    uvw = _points(300, 5)
    dv = rng.random((n, 3)).astype(np.float32)
    bgv = np.array([1.0, -2.0, 3.0], np.float32)
    out = wp.zeros(300, dtype=wp.vec3)
    wp.launch(
        sample_v,
        dim=300,
        inputs=[
            vol.id,
            wp.array(uvw, dtype=wp.vec3),
            wp.Volume.LINEAR,
            wp.array(dv, dtype=wp.vec3),
            wp.vec3(*bgv),
            out,
        ],
    )
    field = _field(index, dv, bgv)
    ref = np.stack([_trilinear(field[..., c], uvw) for c in range(3)], axis=1)
    np.testing.assert_allclose(out.numpy(), ref, atol=1e-5)
    # integer data: the closest voxel, whatever the mode
    di = rng.integers(-1000, 1000, n).astype(np.int32)
    nearest = np.floor(uvw + 0.5).astype(np.int64) + 3
    expected = _field(index, di.astype(np.float64), -7.0)[tuple(nearest.T)].astype(np.int32)
    for mode in (wp.Volume.CLOSEST, wp.Volume.LINEAR):
        outi = wp.zeros(300, dtype=int)
        wp.launch(
            sample_i,
            dim=300,
            inputs=[vol.id, wp.array(uvw, dtype=wp.vec3), mode, wp.array(di, dtype=int), -7, outi],
        )
        np.testing.assert_array_equal(outi.numpy(), expected)
    # float64 data and gradient
    dd = rng.random(n)
    outd, gradd = wp.zeros(300, dtype=wp.float64), wp.zeros(300, dtype=wp.vec3d)
    wp.launch(
        sample_d,
        dim=300,
        inputs=[
            vol.id,
            wp.array(uvw, dtype=wp.vec3),
            wp.Volume.LINEAR,
            wp.array(dd, dtype=wp.float64),
            wp.float64(0.5),
            outd,
            gradd,
        ],
    )
    fieldd = _field(index, dd, 0.5)
    np.testing.assert_allclose(outd.numpy(), _trilinear(fieldd, uvw), atol=1e-6)
    h = 1e-3
    fd = np.stack(
        [(_trilinear(fieldd, uvw + h * e) - _trilinear(fieldd, uvw - h * e)) / (2 * h) for e in np.eye(3)], 1
    )
    frac = uvw - np.floor(uvw)
    smooth = np.all((frac > 2 * h) & (frac < 1 - 2 * h), axis=1)
    np.testing.assert_allclose(gradd.numpy()[smooth], fd[smooth], atol=2e-3)


@wp.kernel
def sample_loss(
    id: wp.uint64, uvw: wp.array(dtype=wp.vec3), data: wp.array(dtype=float), loss: wp.array(dtype=float)
):
    t = wp.tid()
    wp.atomic_add(loss, 0, wp.volume_sample_index(id, uvw[t], wp.Volume.LINEAR, data, 0.25))


@pytest.mark.slow
def test_gradient_with_respect_to_the_point_and_the_data():
    vol = _on_index_volume(6)
    n = vol.get_voxel_count()
    data = wp.array(np.random.default_rng(7).random(n).astype(np.float32), dtype=float, requires_grad=True)
    uvw_np = _points(50, 8)
    uvw = wp.array(uvw_np, dtype=wp.vec3, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(sample_loss, dim=50, inputs=[vol.id, uvw, data, loss])
    tape.backward(loss)
    # d/duvw: the gradient output of volume_sample_grad_index
    out, grad, gval = wp.zeros(50, dtype=float), wp.zeros(50, dtype=wp.vec3), wp.zeros(50, dtype=float)
    wp.launch(
        sample_f,
        dim=50,
        inputs=[vol.id, wp.array(uvw_np, dtype=wp.vec3), wp.Volume.LINEAR, data, 0.25, out, grad, gval],
    )
    np.testing.assert_allclose(uvw.grad.numpy(), grad.numpy(), rtol=1e-5, atol=1e-5)
    # d/ddata: the trilinear weights, summed over the samples (the loss is linear in the data)
    index = _dense_index(vol)
    weights = np.zeros(n)
    for k in range(n):
        e = np.zeros(n)
        e[k] = 1.0
        if k % 37 == 0:  # a subset of voxels keeps this loop short
            weights[k] = _trilinear(_field(index, e, 0.0), uvw_np).sum()
    sub = np.arange(n) % 37 == 0
    np.testing.assert_allclose(data.grad.numpy()[sub], weights[sub], atol=1e-5)
    assert weights[sub].max() > 0


def test_mismatched_background_type_is_a_compile_error():
    @wp.kernel
    def bad(id: wp.uint64, data: wp.array(dtype=float), out: wp.array(dtype=float)):
        out[0] = wp.volume_sample_index(id, wp.vec3(0.0), wp.Volume.LINEAR, data, wp.vec3(0.0))

    vol = wp.Volume.load_from_numpy(np.zeros((2, 2, 2), np.float32))
    with pytest.raises(wp.WarpCodegenError, match="volume_sample_index"):
        wp.launch(bad, dim=1, inputs=[vol.id, wp.zeros(1024, dtype=float), wp.zeros(1, dtype=float)])


@wp.kernel
def sample_grad_vec(
    id: wp.uint64,
    uvw: wp.array(dtype=wp.vec3),
    data: wp.array(dtype=Any),
    bg: wp.array(dtype=Any),
    out: wp.array(dtype=Any),
    jac: wp.array(dtype=Any),
):
    t = wp.tid()
    g = jac.dtype()
    out[t] = wp.volume_sample_grad_index(id, uvw[t], wp.Volume.LINEAR, data, bg[0], g)
    jac[t] = g


@pytest.mark.parametrize("scalar", [wp.float32, wp.float64])
@pytest.mark.parametrize("n", [2, 4])
def test_sample_grad_index_of_vector_data_gives_the_jacobian(scalar, n):
    vec = wp.types.vector(length=n, dtype=scalar)
    mat = wp.types.matrix(shape=(n, 3), dtype=scalar)
    vol = wp.Volume.allocate_by_tiles(wp.array([[0, 0, 0], [8, 0, 0]], dtype=wp.int32), voxel_size=1.0)
    ijk = vol.get_voxels().numpy().astype(np.float64)
    rng = np.random.default_rng(5)
    J = rng.uniform(-2.0, 2.0, size=(n, 3))  # a linear field: trilinear interpolation is exact
    offset = rng.uniform(-1.0, 1.0, size=n)
    data = wp.array(ijk @ J.T + offset, dtype=vec, requires_grad=True)
    bg = wp.array([np.full(n, -13.0)], dtype=vec, requires_grad=True)
    points = rng.uniform(1.0, 14.0, size=(32, 3)).astype(np.float32)
    points[:, 1:] = np.clip(points[:, 1:], 1.0, 6.0)  # inside the two tiles, away from the background
    out = wp.zeros(32, dtype=vec, requires_grad=True)
    jac = wp.zeros(32, dtype=mat, requires_grad=True)
    tape = wp.Tape()
    with tape:
        inputs = [vol.id, wp.array(points, dtype=wp.vec3), data, bg, out, jac]
        wp.launch(sample_grad_vec, dim=32, inputs=inputs)
    tol = 1e-4 if scalar is wp.float32 else 1e-5
    np.testing.assert_allclose(out.numpy(), points.astype(np.float64) @ J.T + offset, atol=tol)
    np.testing.assert_allclose(jac.numpy(), np.broadcast_to(J, (32, n, 3)), atol=tol)
    # the sample is linear in the data: sum(values) = sum(data * d sum(values) / d data)
    out.grad.fill_(1.0)
    tape.backward()
    np.testing.assert_allclose(
        out.numpy().sum(axis=0),
        (data.numpy() * data.grad.numpy()).sum(axis=0) + bg.numpy()[0] * bg.grad.numpy()[0],
        rtol=1e-4,
    )


MAT34 = wp.types.matrix(shape=(3, 4), dtype=float)


def test_sample_grad_index_refuses_a_transposed_jacobian():
    @wp.kernel(module="unique")
    def k(id: wp.uint64, data: wp.array(dtype=wp.vec4), out: wp.array(dtype=wp.vec4)):
        g = MAT34()
        out[0] = wp.volume_sample_grad_index(id, wp.vec3(), wp.Volume.LINEAR, data, wp.vec4(), g)

    with pytest.raises(wp.errors.WarpCodegenTypeError, match="no overload of 'volume_sample_grad_index'"):
        wp.launch(k, dim=1, inputs=[0, wp.zeros(1, dtype=wp.vec4), wp.zeros(1, dtype=wp.vec4)])
