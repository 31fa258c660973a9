"""wp.Mesh: construction checks, buffers, refit, evaluation and access builtins."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from geomref import closest_faces, random_soup

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

CUBE_POINTS = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]]
CUBE_INDICES = [
    0,
    3,
    2,
    0,
    2,
    1,
    4,
    5,
    6,
    4,
    6,
    7,
    0,
    1,
    5,
    0,
    5,
    4,
    2,
    3,
    7,
    2,
    7,
    6,
    0,
    4,
    7,
    0,
    7,
    3,
    1,
    2,
    6,
    1,
    6,
    5,
]


def _cube(velocities=None):
    points = wp.array(CUBE_POINTS, dtype=wp.vec3)
    indices = wp.array(CUBE_INDICES, dtype=wp.int32)
    return wp.Mesh(points=points, indices=indices, velocities=velocities)


@wp.kernel
def access(
    id: wp.uint64,
    out_p: wp.array(dtype=wp.vec3),
    out_v: wp.array(dtype=wp.vec3),
    out_i: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    out_p[i] = wp.mesh_get_point(id, i)
    out_v[i] = wp.mesh_get_velocity(id, i)
    out_i[i] = wp.mesh_get_index(id, i)


@wp.kernel
def evaluate(
    id: wp.uint64,
    u: float,
    v: float,
    pos: wp.array(dtype=wp.vec3),
    vel: wp.array(dtype=wp.vec3),
    nrm: wp.array(dtype=wp.vec3),
):
    f = wp.tid()
    pos[f] = wp.mesh_eval_position(id, f, u, v)
    vel[f] = wp.mesh_eval_velocity(id, f, u, v)
    nrm[f] = wp.mesh_eval_face_normal(id, f)


@wp.kernel
def struct_access(id: wp.uint64, out: wp.array(dtype=wp.vec3)):
    m = wp.mesh_get(id)
    out[0] = m.points[m.indices[0]]


def test_access_builtins_match_buffers():
    vel = np.arange(24, dtype=np.float32).reshape(8, 3)
    mesh = _cube(wp.array(vel, dtype=wp.vec3))
    n = len(CUBE_INDICES)
    p, v, i = wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.int32)
    wp.launch(access, dim=n, inputs=[mesh.id, p, v, i])
    idx = np.array(CUBE_INDICES)
    np.testing.assert_array_equal(i.numpy(), idx)
    np.testing.assert_array_equal(p.numpy(), np.array(CUBE_POINTS, np.float32)[idx])
    np.testing.assert_array_equal(v.numpy(), vel[idx])
    out = wp.zeros(1, dtype=wp.vec3)
    wp.launch(struct_access, dim=1, inputs=[mesh.id, out])
    np.testing.assert_array_equal(out.numpy()[0], [0, 0, 0])


def test_evaluation_builtins():
    vel = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    mesh = _cube(wp.array(vel, dtype=wp.vec3))
    pos, v, nrm = (wp.zeros(12, dtype=wp.vec3) for _ in range(3))
    wp.launch(evaluate, dim=12, inputs=[mesh.id, 0.25, 0.5, pos, v, nrm])
    tri = np.array(CUBE_INDICES).reshape(-1, 3)
    P = np.array(CUBE_POINTS, np.float32)[tri]
    np.testing.assert_allclose(pos.numpy(), 0.25 * P[:, 0] + 0.5 * P[:, 1] + 0.25 * P[:, 2], atol=1e-6)
    V = vel[tri]
    np.testing.assert_allclose(v.numpy(), 0.25 * V[:, 0] + 0.5 * V[:, 1] + 0.25 * V[:, 2], atol=1e-6)
    n = np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0])
    np.testing.assert_allclose(nrm.numpy(), n / np.linalg.norm(n, axis=1, keepdims=True), atol=1e-6)
    # the cube's normals point outward
    centers = P.mean(axis=1) - 0.5
    assert (np.einsum("ij,ij->i", nrm.numpy(), centers) > 0).all()


def test_velocities_default_to_zero():
    mesh = _cube()
    pos, v, nrm = (wp.zeros(12, dtype=wp.vec3) for _ in range(3))
    wp.launch(evaluate, dim=12, inputs=[mesh.id, 0.2, 0.3, pos, v, nrm])
    assert not v.numpy().any()
    assert mesh.velocities is None


@wp.kernel
def closest_face_kernel(id: wp.uint64, pts: wp.array(dtype=wp.vec3), pos: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(id, pts[i], 1.0e6)
    pos[i] = wp.mesh_eval_position(id, q.face, q.u, q.v)


def test_refit_after_moving_points():
    pts, tris = random_soup(200, seed=1)
    points = wp.array(pts, dtype=wp.vec3)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32))
    moved = pts * np.float32(0.5) + np.float32(3.0)
    points.assign(moved)
    mesh.refit()
    q = (np.random.default_rng(2).random((100, 3)) * 0.5 + 3.0).astype(np.float32)
    pos = wp.zeros(100, dtype=wp.vec3)
    wp.launch(closest_face_kernel, dim=100, inputs=[mesh.id, wp.array(q, dtype=wp.vec3), pos])
    _, d2 = closest_faces(q, moved[tris])
    np.testing.assert_allclose(np.linalg.norm(pos.numpy() - q, axis=1), np.sqrt(d2), rtol=1e-4, atol=1e-5)
    # assigning a new points array refits too
    mesh.points = wp.array(pts, dtype=wp.vec3)
    wp.launch(closest_face_kernel, dim=100, inputs=[mesh.id, wp.array(q - 3.0, dtype=wp.vec3), pos])
    _, d2 = closest_faces(q - 3.0, pts[tris])
    np.testing.assert_allclose(
        np.linalg.norm(pos.numpy() - (q - 3.0), axis=1), np.sqrt(d2), rtol=1e-4, atol=1e-5
    )


def test_mesh_bvh_id_is_usable_with_bvh_queries():
    mesh = _cube()

    @wp.kernel
    def count(id: wp.uint64, out: wp.array(dtype=wp.int32)):
        query = wp.bvh_query_aabb(wp.mesh_get_bvh(id), wp.vec3(-0.1, -0.1, -0.1), wp.vec3(1.1, 1.1, 0.1))
        f = int(0)
        while wp.bvh_query_next(query, f):
            out[f] = 1

    out = wp.zeros(12, dtype=wp.int32)
    wp.launch(count, dim=1, inputs=[mesh.id, out])
    # faces touching z <= 0.1: the bottom two and the four side faces reaching z = 0
    tri = np.array(CUBE_POINTS)[np.array(CUBE_INDICES).reshape(-1, 3)]
    np.testing.assert_array_equal(out.numpy(), (tri[:, :, 2].min(axis=1) <= 0.1).astype(np.int32))


def test_construction_errors():
    points = wp.array(CUBE_POINTS, dtype=wp.vec3)
    with pytest.raises(TypeError, match="'indices' must be a 1-d wp.array of int32"):
        wp.Mesh(points, wp.array(CUBE_INDICES, dtype=wp.int64))
    with pytest.raises(ValueError, match="not a multiple of 3"):
        wp.Mesh(points, wp.array(CUBE_INDICES[:-1], dtype=wp.int32))
    with pytest.raises(
        ValueError, match=r"indices\[2\] = 8 is not a valid point index \(the mesh has 8 points\)"
    ):
        wp.Mesh(points, wp.array([0, 1, 8], dtype=wp.int32))
    with pytest.raises(ValueError, match="'velocities'"):
        wp.Mesh(points, wp.array(CUBE_INDICES, dtype=wp.int32), velocities=wp.zeros(3, dtype=wp.vec3))
    with pytest.raises(TypeError, match="'points' must be"):
        wp.Mesh(np.array(CUBE_POINTS, np.float32), wp.array(CUBE_INDICES, dtype=wp.int32))
    with pytest.raises(ValueError, match="unknown BVH constructor"):
        wp.Mesh(points, wp.array(CUBE_INDICES, dtype=wp.int32), bvh_constructor="fastest")


def test_ids_are_distinct_and_buffers_kept():
    a, b = _cube(), _cube()
    assert a.id != b.id and a.id > 0
    assert a.points.shape == (8,) and a.indices.shape == (36,)


def test_output_argument_must_be_a_variable():
    @wp.kernel
    def bad(id: wp.uint64, faces: wp.array(dtype=wp.int32)):
        u = float(0.0)
        v = float(0.0)
        wp.mesh_query_point_no_sign(id, wp.vec3(0.0), 1.0, faces[0], u, v)

    with pytest.raises(
        wp.WarpCodegenTypeError, match="argument 'face' of wp.mesh_query_point_no_sign is an output"
    ):
        wp.launch(bad, dim=1, inputs=[_cube().id, wp.zeros(1, dtype=wp.int32)])


def test_queries_are_kernel_only():
    mesh = _cube()
    with pytest.raises(TypeError, match="wp.mesh_query_point is a kernel builtin.*kernel-only"):
        wp.mesh_query_point(mesh.id, wp.vec3(0.5, 0.5, 0.5), 1.0)


def test_refit_after_editing_indices_in_place_uses_the_new_triangles():
    pts, tris = random_soup(200, seed=3)
    indices = wp.array(tris.reshape(-1), dtype=wp.int32)
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), indices)
    rng = np.random.default_rng(4)
    new_tris = rng.integers(0, len(pts), size=tris.shape).astype(np.int32)  # other triangles, same count
    indices.assign(new_tris.reshape(-1))
    mesh.refit()
    q = rng.random((100, 3)).astype(np.float32)
    pos = wp.zeros(100, dtype=wp.vec3)
    wp.launch(closest_face_kernel, dim=100, inputs=[mesh.id, wp.array(q, dtype=wp.vec3), pos])
    _, d2 = closest_faces(q, pts[new_tris])
    np.testing.assert_allclose(np.linalg.norm(pos.numpy() - q, axis=1), np.sqrt(d2), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("bad", [10**6, -1, 600])
def test_refit_rejects_indices_edited_out_of_range(bad):
    pts, tris = random_soup(200, seed=3)
    indices = wp.array(tris.reshape(-1), dtype=wp.int32)
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), indices)
    edited = indices.numpy()
    edited[7] = bad
    indices.assign(edited)  # in place (numpy() of a device array is a copy)
    with pytest.raises(ValueError, match=rf"wp.Mesh.refit: indices\[7\] = {bad} is not a valid point index"):
        mesh.refit()


def test_cubql_is_not_available():
    assert wp.is_cubql_available() is False
    points = wp.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=wp.vec3)
    indices = wp.array([0, 1, 2], dtype=wp.int32)
    with pytest.raises(RuntimeError, match="cuBQL BVH constructor is not available"):
        wp.Mesh(points=points, indices=indices, bvh_constructor="cubql")


def test_cubql_with_groups_names_grouped_bvhs():
    points = wp.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=wp.vec3)
    indices = wp.array([0, 1, 2], dtype=wp.int32)
    groups = wp.array([0], dtype=wp.int32)
    with pytest.raises(RuntimeError, match="wp.Mesh: Grouped BVHs cannot be built with the cuBQL"):
        wp.Mesh(points=points, indices=indices, bvh_constructor="cubql", groups=groups)
    with pytest.raises(RuntimeError, match="wp.Bvh: Grouped BVHs cannot be built with the cuBQL"):
        wp.Bvh(points[:1], points[:1], constructor="cubql", groups=groups)
    bvh = wp.Bvh(points[:1], points[:1], groups=groups)
    with pytest.raises(RuntimeError, match="wp.Bvh.rebuild: Grouped BVHs cannot be built with the cuBQL"):
        bvh.rebuild("cubql")


def test_argument_errors_are_also_runtime_errors(device):
    """As in NVIDIA Warp, wrong array types and buffers on different devices raise RuntimeError
    (our errors are TypeError/ValueError subclasses that are also RuntimeErrors)."""
    points = wp.array(CUBE_POINTS, dtype=wp.vec3)
    indices = wp.array(CUBE_INDICES, dtype=wp.int32)
    cases = [
        (dict(points=wp.array(CUBE_POINTS, dtype=wp.vec3d), indices=indices), TypeError, "'points' must be"),
        (dict(points=points, indices=indices, velocities=wp.zeros(8, dtype=wp.vec3d)), TypeError,
         "'velocities'"),
        (dict(points=points, indices=wp.array(CUBE_INDICES, dtype=wp.int64)), TypeError, "'indices' must be"),
        (dict(points=points, indices=indices.reshape((3, -1))), TypeError, "2-d array of int32"),
    ]
    if device.is_cuda:
        host = wp.array(CUBE_POINTS, dtype=wp.vec3, device="cpu")
        cases.append((dict(points=host, indices=indices), ValueError,
                      rf"'indices' is on {device} but 'points' on cpu; all buffers must live on one device"))
    for kwargs, base, message in cases:
        with pytest.raises(RuntimeError, match=message) as info:
            wp.Mesh(**kwargs)
        assert isinstance(info.value, base)
