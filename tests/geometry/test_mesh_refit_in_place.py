"""``wp.Mesh.refit`` on a CUDA device over the arrays its descriptor holds refreshes the descriptor
in place: the mean edge length is written there by a kernel (no host round trip), also inside a
graph capture, and a later whole-descriptor write (a new ``velocities`` array) keeps it."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from geomref import closest_faces, random_soup


def _mean_edge(pts: np.ndarray, tris: np.ndarray) -> float:
    p = pts.astype(np.float64)[tris]
    edges = [np.linalg.norm(p[:, a] - p[:, b], axis=1) for a, b in ((0, 1), (1, 2), (2, 0))]
    return float(np.mean(np.concatenate(edges)))


def _stored_edge(mesh) -> float:
    return float(mesh._descriptor.storage.numpy()[0]["avg_edge_length"])


@pytest.fixture
def cuda_device(device):
    if device.is_cpu:
        pytest.skip("the in-place refresh is the CUDA path (the CPU rewrites the descriptor)")
    return device


def test_refit_writes_the_mean_edge_length_into_the_descriptor(cuda_device):
    pts, tris = random_soup(300, seed=21)
    points = wp.array(pts, dtype=wp.vec3, device=cuda_device)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32, device=cuda_device))
    assert _stored_edge(mesh) == pytest.approx(_mean_edge(pts, tris), rel=1e-6)
    scaled = (pts * np.float32(2.5)).astype(np.float32)
    points.assign(scaled)
    mesh.refit()
    assert _stored_edge(mesh) == pytest.approx(_mean_edge(scaled, tris), rel=1e-6)
    # a whole-descriptor write afterwards (new velocities) keeps the value the kernel wrote
    mesh.velocities = wp.zeros(len(pts), dtype=wp.vec3, device=cuda_device)
    assert _stored_edge(mesh) == pytest.approx(_mean_edge(scaled, tris), rel=1e-6)
    # a new points array rewrites the whole descriptor, from the new points
    moved = (pts + np.float32(1.0)).astype(np.float32) * np.float32(0.5)
    mesh.points = wp.array(moved, dtype=wp.vec3, device=cuda_device)
    assert _stored_edge(mesh) == pytest.approx(_mean_edge(moved, tris), rel=1e-6)


def test_a_captured_refit_updates_the_mean_edge_length_on_replay(cuda_device):
    pts, tris = random_soup(200, seed=22)
    points = wp.array(pts, dtype=wp.vec3, device=cuda_device)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32, device=cuda_device))
    with wp.ScopedCapture(device=cuda_device) as capture:
        mesh.refit()
    for scale in (0.5, 3.0):
        scaled = (pts * np.float32(scale)).astype(np.float32)
        points.assign(scaled)
        wp.capture_launch(capture.graph)
        assert _stored_edge(mesh) == pytest.approx(_mean_edge(scaled, tris), rel=1e-6)


@wp.kernel
def _closest_distance(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, pts[i], 1.0e6)
    out[i] = wp.length(pts[i] - wp.mesh_eval_position(mesh, q.face, q.u, q.v))


def test_repeated_refits_replay_the_level_launches_from_a_graph(cuda_device):
    """From the second fit over the same arrays on (the build fits once), the BVH's level
    launches run from one recorded graph; every refit's queries still follow the moved points."""
    pts, tris = random_soup(250, seed=23)
    points = wp.array(pts, dtype=wp.vec3, device=cuda_device)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32, device=cuda_device))
    queries = np.random.default_rng(24).random((60, 3)).astype(np.float32)
    q = wp.array(queries, dtype=wp.vec3, device=cuda_device)
    out = wp.zeros(len(queries), dtype=float, device=cuda_device)
    for step in range(4):
        moved = (pts * np.float32(1.0 + 0.2 * step) + np.float32(0.05 * step)).astype(np.float32)
        points.assign(moved)
        mesh.refit()
        assert mesh._tree.levels.graph is not None  # the build's fit was the first over these arrays
        wp.launch(_closest_distance, dim=len(queries), inputs=[mesh.id, q, out], device=cuda_device)
        _, d2 = closest_faces(queries.astype(np.float64), moved[tris].astype(np.float64))
        np.testing.assert_allclose(out.numpy(), np.sqrt(d2), atol=1e-5, err_msg=f"refit {step}")
