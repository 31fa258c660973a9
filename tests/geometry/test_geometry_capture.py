"""Graph capture of launches that use geometry objects, on each device: the replayed graph
computes what direct launches compute, and sees the objects' data as it is when it runs."""

from __future__ import annotations

import numpy as np

import warp as wp
from geomref import torus


@wp.kernel
def closest_distance(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, points[i], 1.0e6)
    if q.result:
        out[i] = wp.length(points[i] - wp.mesh_eval_position(mesh, q.face, q.u, q.v))
    else:
        out[i] = -1.0


@wp.kernel
def neighbour_counts(
    grid: wp.uint64, points: wp.array(dtype=wp.vec3), radius: float, counts: wp.array(dtype=wp.int32)
):
    i = wp.tid()
    p = points[i]
    n = int(0)
    for index in wp.hash_grid_query(grid, p, radius):
        if wp.length(p - points[index]) <= radius:
            n += 1
    counts[i] = n


def test_mesh_query_replayed_from_a_graph(device) -> None:
    pts, tris = torus(nu=24, nv=12)
    points = wp.array(pts, dtype=wp.vec3, device=device)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32, device=device))
    queries = np.random.default_rng(5).uniform(-2, 2, (300, 3)).astype(np.float32)
    q = wp.array(queries, dtype=wp.vec3, device=device)
    direct = wp.zeros(300, dtype=float, device=device)
    wp.launch(closest_distance, dim=300, inputs=[mesh.id, q, direct], device=device)
    replayed = wp.zeros(300, dtype=float, device=device)
    with wp.ScopedCapture(device=device) as capture:
        wp.launch(closest_distance, dim=300, inputs=[mesh.id, q, replayed], device=device)
    assert np.all(replayed.numpy() == 0.0)  # captured, not run
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(replayed.numpy(), direct.numpy())
    assert np.all(direct.numpy() >= 0.0)
    # the graph reads the mesh's data when it runs: after moving the points and refitting, the
    # replay answers for the moved mesh
    mesh.points.assign(pts * 2.0)
    mesh.refit()
    wp.launch(closest_distance, dim=300, inputs=[mesh.id, q, direct], device=device)
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(replayed.numpy(), direct.numpy())


def test_hash_grid_build_captured_in_a_graph(device) -> None:
    rng = np.random.default_rng(6)
    pts = rng.random((400, 3)).astype(np.float32)
    points = wp.array(pts, dtype=wp.vec3, device=device)
    grid = wp.HashGrid(8, 8, 8, device=device)
    grid.build(points, 0.1)  # sizes the grid's storage and descriptor before capturing
    counts = wp.zeros(400, dtype=wp.int32, device=device)
    with wp.ScopedCapture(device=device) as capture:
        grid.build(points, 0.1)
        wp.launch(neighbour_counts, dim=400, inputs=[grid.id, points, 0.1, counts], device=device)
    moved = rng.random((400, 3)).astype(np.float32)
    points.assign(moved)
    wp.capture_launch(capture.graph)  # rebuilds the grid over the moved points, then queries it
    d = np.linalg.norm(moved[:, None, :] - moved[None, :, :], axis=2)
    np.testing.assert_array_equal(counts.numpy(), (d <= 0.1).sum(axis=1))
