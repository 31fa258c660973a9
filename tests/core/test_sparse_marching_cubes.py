"""warp.geometry.sparse_marching_cubes, lipschitz_octree and sparse_marching_cubes_from_cells against
dense marching cubes on the same grid and brute-force NumPy references (core alone: the fields are
evaluated with NumPy)."""

import numpy as np
import pytest

import warp as wp
import warp.geometry
from warp.geometry import IsoSurfaceMarchingCubes, lipschitz_octree, sparse_marching_cubes
from warp.geometry import sparse_marching_cubes_from_cells

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

RADIUS = 0.55
CENTER = np.array([0.03, -0.02, 0.05])


def sphere_sdf(p):
    return np.linalg.norm(p - CENTER, axis=-1) - RADIUS


def box_sdf(p, half=(0.5, 0.35, 0.42)):
    q = np.abs(p - CENTER) - np.array(half)
    outside = np.linalg.norm(np.maximum(q, 0.0), axis=-1)
    return outside + np.minimum(np.max(q, axis=-1), 0.0)


class Counted:
    """A batched NumPy evaluator counting the points it is asked for."""

    def __init__(self, sdf):
        self.sdf, self.points = sdf, 0

    def __call__(self, points):
        p = points.numpy().astype(np.float64)
        self.points += len(p)
        return wp.array(self.sdf(p).astype(np.float32), dtype=wp.float32, device=points.device)


def node_positions(dims, lower, upper):
    lower, upper = np.asarray(lower, np.float32), np.asarray(upper, np.float32)
    spacing = (upper - lower) / (np.array(dims, np.float32) - 1)
    axes = [lower[a] + spacing[a] * np.arange(dims[a], dtype=np.float32) for a in range(3)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)


def dense_surface(sdf, dims, lower, upper, threshold=0.0):
    field = wp.array(sdf(node_positions(dims, lower, upper)).astype(np.float32), dtype=float)
    return IsoSurfaceMarchingCubes.extract(field, threshold=threshold, lower=lower, upper=upper)


def assert_same_triangles(verts, indices, ref_verts, ref_indices, atol=1e-5):
    """Each triangle matches one reference triangle (the same vertices in the same cyclic order, so
    the same orientation) within ``atol``, one to one."""
    tris = verts.numpy()[indices.numpy().reshape(-1, 3)].astype(np.float64)
    ref = ref_verts.numpy()[ref_indices.numpy().reshape(-1, 3)].astype(np.float64)
    assert tris.shape == ref.shape
    ref_flat = ref.reshape(len(ref), 9)
    matched = np.empty(len(tris), dtype=np.int64)
    for n, tri in enumerate(tris):
        best = np.full(len(ref), np.inf)
        for r in range(3):
            rotated = np.roll(tri, r, axis=0).reshape(9)
            best = np.minimum(best, np.abs(ref_flat - rotated).max(axis=1))
        matched[n] = int(np.argmin(best))
        assert best[matched[n]] <= atol, (n, tri)
    assert len(np.unique(matched)) == len(tris)


@pytest.mark.parametrize("sdf", [sphere_sdf, box_sdf], ids=["sphere", "box"])
@pytest.mark.parametrize("dims", [(33, 33, 33), (21, 14, 27)])
def test_same_triangles_as_dense_and_fewer_evaluations(sdf, dims):
    lower, upper = (-1.0, -0.9, -1.1), (1.0, 1.05, 0.95)
    counted = Counted(sdf)
    verts, indices, stats = sparse_marching_cubes(
        counted, *dims, lower=lower, upper=upper, return_stats=True
    )
    dense_verts, dense_indices = dense_surface(sdf, dims, lower, upper)
    assert len(indices.numpy()) > 0
    assert verts.shape == dense_verts.shape
    assert_same_triangles(verts, indices, dense_verts, dense_indices)
    assert stats["field_evaluations"] == counted.points
    assert stats["field_evaluations"] < dims[0] * dims[1] * dims[2]
    assert stats["resolution"] == 32
    assert stats["culled_cells"] == (0 if dims == (33, 33, 33) else stats["culled_cells"])
    assert stats["leaf_cells"] > 0


def test_threshold_and_empty_level():
    lower, upper = (-1.2,) * 3, (1.2,) * 3
    verts, indices = sparse_marching_cubes(Counted(sphere_sdf), 25, 25, 25, lower, upper, threshold=0.2)
    dense_verts, dense_indices = dense_surface(sphere_sdf, (25, 25, 25), lower, upper, threshold=0.2)
    assert_same_triangles(verts, indices, dense_verts, dense_indices)
    r = np.linalg.norm(verts.numpy() - CENTER, axis=1)
    assert np.abs(r - (RADIUS + 0.2)).max() < 2.4 / 24
    verts, indices = sparse_marching_cubes(Counted(sphere_sdf), 17, 17, 17, lower, upper, threshold=-10.0)
    assert verts.shape == (0,) and indices.shape == (0,)


def test_octree_leaves_hold_every_crossing_cell():
    origin, width, depth = np.array([-1.0, -1.0, -1.0]), 2.0, 5
    cells, cell_width = lipschitz_octree(Counted(box_sdf), tuple(origin), width, depth)
    assert cells.dtype == wp.vec3i
    assert cell_width == pytest.approx(width / 32)
    kept = {tuple(c) for c in cells.numpy()}
    # every kept leaf passes the Lipschitz test at its centre
    centers = origin + cell_width * (cells.numpy() + 0.5)
    assert np.abs(box_sdf(centers)).max() <= 0.5 * np.sqrt(3.0) * cell_width + 1e-6
    # brute force: every leaf cell whose corners straddle zero is kept
    inside = box_sdf(origin + cell_width * np.stack(np.meshgrid(*[np.arange(33)] * 3, indexing="ij"), -1)) < 0
    count = sum(
        inside[i : i + 32, j : j + 32, k : k + 32].astype(int) for i in (0, 1) for j in (0, 1) for k in (0, 1)
    )
    crossing = {tuple(c) for c in np.argwhere((count > 0) & (count < 8))}
    assert crossing and crossing <= kept
    assert len(kept) < 32**3 // 4


def test_from_cells_on_every_dense_cell_matches_dense_and_ignores_subscript_shifts():
    dims, lower, upper = (13, 11, 12), (-0.9, -0.8, -0.85), (0.9, 0.8, 0.85)
    spacing = (np.array(upper) - np.array(lower)) / (np.array(dims) - 1)
    grid = np.stack(np.meshgrid(*[np.arange(n - 1) for n in dims], indexing="ij"), -1).reshape(-1, 3)
    offsets = np.array(IsoSurfaceMarchingCubes.CUBE_CORNER_OFFSETS)
    nodes = node_positions(dims, lower, upper)
    corners = grid[:, None, :] + offsets[None]
    values = sphere_sdf(nodes[corners[..., 0], corners[..., 1], corners[..., 2]]).astype(np.float32)
    verts, indices = sparse_marching_cubes_from_cells(grid, values, origin=lower, cell_width=spacing)
    dense_verts, dense_indices = dense_surface(sphere_sdf, dims, lower, upper)
    assert_same_triangles(verts, indices, dense_verts, dense_indices, atol=1e-4)
    shift = np.array([1 << 24, -(1 << 20), 12345])
    shifted_origin = tuple(np.array(lower) - shift * spacing)
    verts2, indices2 = sparse_marching_cubes_from_cells(
        wp.array(grid + shift, dtype=wp.vec3i), values.reshape(-1), origin=shifted_origin, cell_width=spacing
    )
    np.testing.assert_array_equal(indices2.numpy(), indices.numpy())
    np.testing.assert_allclose(verts2.numpy(), verts.numpy(), atol=1e-5)


def test_argument_errors():
    evaluate = Counted(sphere_sdf)
    with pytest.raises(ValueError, match="nx must be at least 2 nodes"):
        sparse_marching_cubes(evaluate, 1, 8, 8)
    with pytest.raises(ValueError, match="lipschitz_bound must be positive"):
        sparse_marching_cubes(evaluate, 8, 8, 8, lipschitz_bound=0.0)
    with pytest.raises(ValueError, match="lipschitz_bound must be positive"):
        lipschitz_octree(evaluate, (0.0, 0.0, 0.0), 1.0, 3, lipschitz_bound=-1.0)
    with pytest.raises(TypeError, match="evaluate must be a callable"):
        sparse_marching_cubes(42, 8, 8, 8)

    @wp.func
    def point_sdf(p: wp.vec3) -> float:
        return p[0]

    with pytest.raises(TypeError, match="not the @wp.func 'point_sdf'"):
        lipschitz_octree(point_sdf, (0.0, 0.0, 0.0), 1.0, 3)
    with pytest.raises(TypeError, match="evaluate must return a wp.array of float32 values, got ndarray"):
        sparse_marching_cubes(lambda p: np.zeros(p.shape[0]), 8, 8, 8)
    with pytest.raises(ValueError, match="expected 1 float32 values"):
        sparse_marching_cubes(lambda p: wp.zeros(2, dtype=float), 8, 8, 8)
    with pytest.raises(ValueError, match="cell_width must be positive"):
        sparse_marching_cubes_from_cells(
            np.zeros((1, 3), np.int32), np.zeros((1, 8), np.float32), cell_width=0.0
        )
    with pytest.raises(ValueError, match=r"corner_values of shape \(3,\) do not match 0 cells"):
        sparse_marching_cubes_from_cells(np.zeros((0, 3), np.int32), np.zeros(3, np.float32))
    with pytest.raises(ValueError, match=r"cells must have shape \(N, 3\)"):
        sparse_marching_cubes_from_cells(np.zeros((2, 2), np.int32), np.zeros((2, 8), np.float32))


@pytest.mark.needs_plugin("builtins", "autodiff")
def test_vertices_are_differentiable_through_the_evaluator():
    @wp.kernel
    def sphere(points: wp.array(dtype=wp.vec3), r: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = wp.length(points[i]) - r[0]

    @wp.kernel
    def radius_sum(verts: wp.array(dtype=wp.vec3), total: wp.array(dtype=float)):
        wp.atomic_add(total, 0, wp.length(verts[wp.tid()]))

    def mean_radius_and_grad(r0):
        r = wp.array([r0], dtype=float, requires_grad=True)

        def evaluate(points):
            out = wp.empty(points.shape[0], dtype=float, requires_grad=True)
            wp.launch(sphere, dim=points.shape[0], inputs=[points, r], outputs=[out])
            return out

        tape = wp.Tape()
        with tape:
            verts, _ = sparse_marching_cubes(evaluate, 17, 17, 17, (-1.0,) * 3, (1.0,) * 3)
            total = wp.zeros(1, dtype=float, requires_grad=True)
            wp.launch(radius_sum, dim=verts.shape[0], inputs=[verts], outputs=[total])
        tape.backward(total)
        return float(total.numpy()[0]), float(r.grad.numpy()[0]), verts.shape[0]

    _, grad, n = mean_radius_and_grad(0.507)
    above, _, n_above = mean_radius_and_grad(0.507 + 1e-3)
    below, _, n_below = mean_radius_and_grad(0.507 - 1e-3)
    assert n == n_above == n_below  # no node on either level: the same topology
    np.testing.assert_allclose(grad, (above - below) / 2e-3, rtol=2e-2)
    assert grad > 0.0
