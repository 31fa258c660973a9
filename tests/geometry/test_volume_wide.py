"""wp.Volume grids of float64, vec3d, vec4f and vec4d values (made by wp.Volume.allocate*): the
value type follows bg_value; lookups, stores, trilinear sampling and its Jacobian against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from warp_geometry.volume_wide import GRADIENT_TYPES

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

TYPES = [wp.float64, wp.vec3d, wp.vec4f, wp.vec4d]
TYPE_STR = {wp.float64: "double", wp.vec3d: "Vec3d", wp.vec4f: "Vec4f", wp.vec4d: "Vec4d"}


def _length(t):
    return getattr(t, "_length_", 1)


def _kernels(t):
    g = GRADIENT_TYPES[t]

    @wp.kernel(module="unique")
    def store(vol: wp.uint64, ijk: wp.array2d(dtype=wp.int32), values: wp.array(dtype=t)):
        i = wp.tid()
        wp.volume_store(vol, ijk[i, 0], ijk[i, 1], ijk[i, 2], values[i])

    @wp.kernel(module="unique")
    def lookup(vol: wp.uint64, ijk: wp.array2d(dtype=wp.int32), out: wp.array(dtype=t)):
        i = wp.tid()
        out[i] = wp.volume_lookup(vol, ijk[i, 0], ijk[i, 1], ijk[i, 2], dtype=t)

    @wp.kernel(module="unique")
    def sample(
        vol: wp.uint64,
        p: wp.array(dtype=wp.vec3),
        out: wp.array(dtype=t),
        out_g: wp.array(dtype=t),
        jac: wp.array(dtype=g),
        near: wp.array(dtype=t),
    ):
        i = wp.tid()
        out[i] = wp.volume_sample(vol, p[i], wp.Volume.LINEAR, dtype=t)
        grad = g()
        out_g[i] = wp.volume_sample_grad(vol, p[i], wp.Volume.LINEAR, grad, dtype=t)
        jac[i] = grad
        near[i] = wp.volume_sample(vol, p[i], wp.Volume.CLOSEST, dtype=t)

    return store, lookup, sample


@pytest.mark.parametrize("t", TYPES, ids=lambda t: t.__name__)
def test_wide_volume_matches_a_linear_field(t):
    n = _length(t)
    vol = wp.Volume.allocate_by_tiles(
        wp.array([[0, 0, 0], [8, 0, 0]], dtype=wp.int32), voxel_size=1.0, bg_value=t(-2.0)
    )
    assert vol.dtype is t and vol.get_grid_info().type_str == TYPE_STR[t]
    rng = np.random.default_rng(3)
    J = rng.uniform(-2.0, 2.0, size=(n, 3))
    ijk = vol.get_voxels()
    field = ijk.numpy().astype(np.float64) @ J.T
    store, lookup, sample = _kernels(t)
    values = wp.array(field.reshape(-1) if n == 1 else field, dtype=t)
    wp.launch(store, dim=ijk.shape[0], inputs=[vol.id, ijk, values])

    # lookups: the stored values, and the background off the allocated leaves
    probe = np.array([[1, 2, 3], [12, 7, 0], [40, 0, 0]], dtype=np.int32)
    out = wp.zeros(3, dtype=t)
    wp.launch(lookup, dim=3, inputs=[vol.id, wp.array(probe, dtype=wp.int32), out])
    expected = np.concatenate([probe[:2] @ J.T, np.full((1, n), -2.0)]).reshape(out.numpy().shape)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)

    # trilinear sampling is exact on a linear field; its Jacobian is J (one row per component)
    pts = rng.uniform(1.0, 6.0, size=(16, 3)).astype(np.float32)
    pts[:, 0] += 4.0
    res = [wp.zeros(16, dtype=t) for _ in range(2)]
    jac = wp.zeros(16, dtype=GRADIENT_TYPES[t])
    near = wp.zeros(16, dtype=t)
    wp.launch(sample, dim=16, inputs=[vol.id, wp.array(pts, dtype=wp.vec3), *res, jac, near])
    tol = 1e-4 if t is wp.vec4f else 1e-9
    exact = (pts.astype(np.float64) @ J.T).reshape(res[0].numpy().shape)
    for r in res:
        np.testing.assert_allclose(r.numpy(), exact, atol=tol)
    np.testing.assert_allclose(jac.numpy().reshape(16, n, 3), np.broadcast_to(J, (16, n, 3)), atol=tol)
    rounded = (np.floor(pts.astype(np.float64) + 0.5) @ J.T).reshape(near.numpy().shape)
    np.testing.assert_allclose(near.numpy(), rounded, atol=tol)


def test_background_value_types():
    alloc = dict(min=[0, 0, 0], max=[3, 3, 3], voxel_size=1.0)
    assert wp.Volume.allocate(**alloc, bg_value=(-1, 2.0, -3, 5)).dtype is wp.vec4f
    assert wp.Volume.allocate(**alloc, bg_value=wp.vec4d(1.0)).dtype is wp.vec4d
    assert wp.Volume.allocate(**alloc, bg_value=wp.float64(1.0)).dtype is wp.float64
    assert wp.Volume.allocate(**alloc, bg_value=1.0).dtype is wp.float32
    with pytest.raises(TypeError, match="bg_value must be a float, an int, a 3- or 4-vector"):
        wp.Volume.allocate(**alloc, bg_value=(1.0, 2.0))
    vol = wp.Volume.allocate(**alloc, bg_value=wp.vec4d(1.0))
    with pytest.raises(NotImplementedError, match="writing NanoVDB grids of vec4d values is not provided"):
        vol.array()


def test_sample_grad_of_an_int_volume_is_refused():
    @wp.kernel(module="unique")
    def k(vol: wp.uint64, out: wp.array(dtype=int)):
        g = wp.vec3()
        out[0] = wp.volume_sample_grad(vol, wp.vec3(), wp.Volume.LINEAR, g, dtype=wp.int32)

    with pytest.raises(wp.errors.WarpCodegenTypeError, match="int32 volumes have no gradients"):
        wp.launch(k, dim=1, inputs=[0, wp.zeros(1, dtype=int)])


@wp.kernel
def _vec3_grad(
    vol: wp.uint64,
    p: wp.array(dtype=wp.vec3),
    data: wp.array(dtype=wp.vec3),
    out: wp.array(dtype=wp.vec3),
    jac: wp.array(dtype=wp.mat33),
    same: wp.array(dtype=int),
):
    i = wp.tid()
    g = wp.mat33()
    out[i] = wp.volume_sample_grad(vol, p[i], wp.Volume.LINEAR, g, dtype=wp.vec3)
    jac[i] = g
    gi = wp.mat33()
    vi = wp.volume_sample_grad_index(vol, p[i], wp.Volume.LINEAR, data, wp.vec3(-2.0), gi)
    if vi == out[i] and gi == g:
        same[i] = 1


def test_vec3_volume_sample_grad_gives_the_jacobian_like_the_index_form():
    vol = wp.Volume.allocate_by_tiles(
        wp.array([[0, 0, 0], [8, 0, 0]], dtype=wp.int32), voxel_size=1.0, bg_value=(-2.0, -2.0, -2.0)
    )
    assert vol.dtype is wp.vec3f
    J = np.arange(1.0, 10.0).reshape(3, 3)
    ijk = vol.get_voxels()
    values = wp.array(ijk.numpy().astype(np.float64) @ J.T, dtype=wp.vec3)
    @wp.kernel(module="unique")
    def store3(vol: wp.uint64, ijk: wp.array2d(dtype=wp.int32), v: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        wp.volume_store(vol, ijk[i, 0], ijk[i, 1], ijk[i, 2], v[i])

    wp.launch(store3, dim=ijk.shape[0], inputs=[vol.id, ijk, values])
    pts = np.random.default_rng(4).uniform(1.0, 6.0, size=(16, 3)).astype(np.float32)
    out, jac, same = wp.zeros(16, dtype=wp.vec3), wp.zeros(16, dtype=wp.mat33), wp.zeros(16, dtype=int)
    wp.launch(_vec3_grad, dim=16, inputs=[vol.id, wp.array(pts, dtype=wp.vec3), values, out, jac, same])
    np.testing.assert_allclose(out.numpy(), pts.astype(np.float64) @ J.T, rtol=1e-5)
    np.testing.assert_allclose(jac.numpy(), np.broadcast_to(J, (16, 3, 3)), rtol=1e-5)
    assert same.numpy().all()  # the grid and index forms compute the same bits


MAT34 = wp.types.matrix(shape=(3, 4), dtype=wp.float32)


def test_sample_grad_names_the_expected_gradient_type():
    @wp.kernel(module="unique")
    def k(vol: wp.uint64, out: wp.array(dtype=wp.vec4f)):
        grad = MAT34()
        out[0] = wp.volume_sample_grad(vol, wp.vec3(), wp.Volume.LINEAR, grad, dtype=wp.vec4f)

    message = "Incompatible gradient type, expected mat43f, got mat34f"
    with pytest.raises(wp.errors.WarpCodegenTypeError, match=message):
        wp.launch(k, dim=1, inputs=[0, wp.zeros(1, dtype=wp.vec4f)])
