"""The device BVH builder (LBVH in kernels) and the kernel refit: tree structure, exact bounds,
queries against brute force and against the CPU's NumPy-built trees, degenerate inputs, groups,
refit after motion, rebuild and graph capture of a mesh refit."""

from __future__ import annotations

import time

import numpy as np
import pytest

import warp as wp
from geomref import closest_faces, random_soup, ray_hits, solid_angle_winding, uv_sphere
from warp_geometry import bvh_device_build
from warp_geometry.bvh_tree import TreeArrays

from bvh_reference import aabb_hits, overlap_reference, random_boxes


def _check_tree(t, lo, hi, leaf, groups=None):
    """Structure of a host copy of a tree, its bounds exactly the union of its items' boxes."""
    n = len(lo)
    assert sorted(t.items.tolist()) == list(range(n))
    assert t.skip[0] == t.num_nodes

    def visit(i):
        if t.count[i] > 0:
            its = t.items[t.first[i] : t.first[i] + t.count[i]]
            assert t.skip[i] == i + 1 and 1 <= len(its) <= leaf
            if groups is not None:
                assert len(set(groups[its].tolist())) == 1  # leaves never mix groups
            np.testing.assert_array_equal(t.lower[i], lo[its].min(0))
            np.testing.assert_array_equal(t.upper[i], hi[its].max(0))
            return list(its)
        left = i + 1
        right = t.skip[left]
        assert t.skip[right] == t.skip[i]
        items = visit(left) + visit(right)
        np.testing.assert_array_equal(t.lower[i], np.minimum(t.lower[left], t.lower[right]))
        np.testing.assert_array_equal(t.upper[i], np.maximum(t.upper[left], t.upper[right]))
        return items

    assert sorted(visit(0)) == list(range(n))
    # the level order covers every node once, each level below its parents
    for p, s, e in t.levels:
        assert ((t.count[p] == 0) | (t.count[p] == e - s)).all()
    assert sorted(np.concatenate([p for p, _, _ in t.levels]).tolist()) == list(range(t.num_nodes))


@pytest.mark.parametrize("n", [1, 2, 3, 7, 100, 1000])
@pytest.mark.parametrize("leaf", [1, 4])
def test_device_tree_structure_and_refit(device, n, leaf):
    lo, hi = random_boxes(n, seed=n)
    L, H = wp.array(lo, dtype=wp.vec3, device=device), wp.array(hi, dtype=wp.vec3, device=device)
    tree = TreeArrays.build_on_device(L, H, leaf)
    _check_tree(tree.host_tree(), lo, hi, leaf)
    # refit after moving the boxes: same topology, bounds of the new boxes
    lo2, hi2 = random_boxes(n, seed=n + 100)
    L.assign(lo2)
    H.assign(hi2)
    tree.refit(L, H)
    _check_tree(tree.host_tree(), lo2, hi2, leaf)
    # the packed nodes agree with the threaded arrays
    nodes = tree.arrays["nodes"].numpy()
    t = tree.host_tree()
    np.testing.assert_array_equal(nodes["lower"], t.lower)
    np.testing.assert_array_equal(nodes["count"], t.count)
    inner = np.flatnonzero(t.count == 0)
    np.testing.assert_array_equal(nodes["next"][inner], t.skip[inner + 1])


@pytest.mark.parametrize("leaf", [1, 3])
def test_device_tree_of_degenerate_boxes(device, leaf):
    # all boxes equal (every Morton code the same), and runs of duplicate centroids
    same = np.tile(np.array([[0.5, 0.5, 0.5]], np.float32), (64, 1))
    lo, hi = random_boxes(50, seed=3)
    dup_lo, dup_hi = np.repeat(lo, 4, axis=0), np.repeat(hi, 4, axis=0)
    for a, b in ((same, same + 0.1), (dup_lo, dup_hi)):
        tree = TreeArrays.build_on_device(
            wp.array(a, dtype=wp.vec3, device=device), wp.array(b, dtype=wp.vec3, device=device), leaf
        )
        t = tree.host_tree()
        _check_tree(t, a, b, leaf)
        depth = max(d for d in range(len(t.levels)))
        assert depth <= 2 * int(np.ceil(np.log2(len(a)))) + 1  # duplicates split by position: balanced


@pytest.mark.parametrize("leaf", [1, 4])
def test_device_tree_groups_are_subtrees(device, leaf):
    lo, hi = random_boxes(300, seed=7)
    groups = np.random.default_rng(7).integers(-3, 5, 300).astype(np.int32)
    L, H = wp.array(lo, dtype=wp.vec3, device=device), wp.array(hi, dtype=wp.vec3, device=device)
    tree = TreeArrays.build_on_device(L, H, leaf, wp.array(groups, device=device))
    t = tree.host_tree()
    _check_tree(t, lo, hi, leaf, groups)
    np.testing.assert_array_equal(t.group_keys, np.unique(groups))
    for g, root in zip(t.group_keys, t.group_roots):
        nodes = np.arange(root, t.skip[root])
        its = np.concatenate([t.items[t.first[k] : t.first[k] + t.count[k]] for k in nodes if t.count[k]])
        assert sorted(its.tolist()) == np.flatnonzero(groups == g).tolist()


@wp.kernel
def _ray_hits(
    id: wp.uint64,
    start: wp.array(dtype=wp.vec3),
    dir: wp.array(dtype=wp.vec3),
    hits: wp.array2d(dtype=wp.int32),
):
    i = wp.tid()
    query = wp.bvh_query_ray(id, start[i], dir[i])
    index = int(0)
    while wp.bvh_query_next(query, index):
        hits[i, index] += 1


def _slab_hits(start, d, lo, hi):
    """Brute force: ray (start, d) against boxes (float64 slab test, t >= 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / d.astype(np.float64)
        t0 = (lo - start) * inv
        t1 = (hi - start) * inv
    tmin = np.nanmax(np.minimum(t0, t1), axis=-1)
    tmax = np.nanmin(np.maximum(t0, t1), axis=-1)
    return (tmax >= np.maximum(tmin, 0.0)).astype(np.int32)


def _bvh_queries(bvh, lo, hi, device):
    rng = np.random.default_rng(11)
    qc = rng.random((40, 3)).astype(np.float32)
    qlo, qhi = qc - 0.1, qc + 0.1
    hits = wp.zeros((40, len(lo)), dtype=wp.int32, device=device)
    wp.launch(
        aabb_hits,
        dim=40,
        inputs=[
            bvh.id,
            wp.array(qlo, dtype=wp.vec3, device=device),
            wp.array(qhi, dtype=wp.vec3, device=device),
            hits,
        ],
        device=device,
    )
    np.testing.assert_array_equal(hits.numpy(), overlap_reference(lo, hi, qlo, qhi).astype(np.int32))
    start = rng.random((40, 3)).astype(np.float32) - 0.5
    d = rng.normal(size=(40, 3)).astype(np.float32)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    rays = wp.zeros((40, len(lo)), dtype=wp.int32, device=device)
    wp.launch(
        _ray_hits,
        dim=40,
        inputs=[
            bvh.id,
            wp.array(start, dtype=wp.vec3, device=device),
            wp.array(d, dtype=wp.vec3, device=device),
            rays,
        ],
        device=device,
    )
    expected = _slab_hits(start[:, None], d[:, None], lo[None], hi[None])
    mismatch = rays.numpy() != expected
    assert mismatch.mean() < 1e-3  # grazing hits may round either way


@pytest.mark.parametrize("leaf", [1, 4])
def test_lbvh_queries_match_brute_force_after_refit_and_rebuild(device, leaf):
    lo, hi = random_boxes(500, seed=2)
    lo[100:150] = lo[100]  # duplicate boxes
    hi[100:150] = hi[100]
    L, H = wp.array(lo, dtype=wp.vec3, device=device), wp.array(hi, dtype=wp.vec3, device=device)
    bvh = wp.Bvh(L, H, constructor="lbvh", leaf_size=leaf)
    _bvh_queries(bvh, lo, hi, device)
    lo2, hi2 = random_boxes(500, seed=9)
    L.assign(lo2)
    H.assign(hi2)
    bvh.refit()
    _bvh_queries(bvh, lo2, hi2, device)
    lo3, hi3 = random_boxes(500, seed=10)
    L.assign(lo3)
    H.assign(hi3)
    bvh_id = bvh.id
    bvh.rebuild()
    assert bvh.id == bvh_id
    _bvh_queries(bvh, lo3, hi3, device)
    bvh.rebuild("median")
    _bvh_queries(bvh, lo3, hi3, device)
    with pytest.raises(ValueError, match="unknown BVH constructor 'octree'"):
        bvh.rebuild("octree")


@wp.kernel
def _mesh_queries(
    mesh: wp.uint64,
    pts: wp.array(dtype=wp.vec3),
    start: wp.array(dtype=wp.vec3),
    dirs: wp.array(dtype=wp.vec3),
    dist: wp.array(dtype=float),
    face: wp.array(dtype=wp.int32),
    ray_t: wp.array(dtype=float),
    ray_face: wp.array(dtype=wp.int32),
    sign: wp.array(dtype=float),
):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, pts[i], 1.0e6)
    if q.result:
        dist[i] = wp.length(pts[i] - wp.mesh_eval_position(mesh, q.face, q.u, q.v))
        face[i] = q.face
    h = wp.mesh_query_ray(mesh, start[i], dirs[i], 1.0e6)
    if h.result:
        ray_t[i] = h.t
        ray_face[i] = h.face
    w = wp.mesh_query_point_sign_winding_number(mesh, pts[i], 1.0e6)
    if w.result:
        sign[i] = w.sign


def _query_mesh(mesh, device, queries, starts, dirs):
    """_mesh_queries over the mesh: (distance, face, ray t, ray face, sign) per query, -1 where none."""
    m = len(queries)
    outs = [
        wp.full(m, -1.0, dtype=float, device=device),
        wp.full(m, -1, dtype=wp.int32, device=device),
        wp.full(m, -1.0, dtype=float, device=device),
        wp.full(m, -1, dtype=wp.int32, device=device),
        wp.zeros(m, dtype=float, device=device),
    ]
    inputs = [mesh.id] + [wp.array(a, dtype=wp.vec3, device=device) for a in (queries, starts, dirs)]
    wp.launch(_mesh_queries, dim=m, inputs=inputs + outs, device=device)
    return [o.numpy() for o in outs]


def _run_mesh_queries(pts, tris, device, constructor, queries, starts, dirs, leaf=None):
    mesh = wp.Mesh(
        wp.array(pts, dtype=wp.vec3, device=device),
        wp.array(tris.reshape(-1), dtype=wp.int32, device=device),
        support_winding_number=True,
        bvh_constructor=constructor,
        bvh_leaf_size=leaf,
    )
    return mesh, _query_mesh(mesh, device, queries, starts, dirs)


@pytest.mark.parametrize("leaf", [None, 1])
def test_device_built_mesh_queries_match_brute_force_and_cpu(device, leaf):
    pts, tris = uv_sphere(radius=0.4, rings=12, segments=16, center=(0.5, 0.5, 0.5))
    rng = np.random.default_rng(4)
    queries = rng.random((200, 3)).astype(np.float32)
    starts = rng.random((200, 3)).astype(np.float32)
    dirs = (0.5 - starts) + 0.05 * rng.normal(size=(200, 3)).astype(np.float32)
    dirs = (dirs / np.linalg.norm(dirs, axis=1, keepdims=True)).astype(np.float32)
    mesh, (dist, face, t, rface, sign) = _run_mesh_queries(
        pts, tris, device, "lbvh", queries, starts, dirs, leaf
    )
    corners = pts[tris].astype(np.float64)
    _, d2 = closest_faces(queries.astype(np.float64), corners)
    np.testing.assert_allclose(dist, np.sqrt(d2), atol=1e-5)
    ref_face, ref_t = ray_hits(starts.astype(np.float64), dirs.astype(np.float64), corners)
    hit = ref_face >= 0
    np.testing.assert_array_equal(rface >= 0, hit)
    np.testing.assert_allclose(t[hit], ref_t[hit], rtol=1e-4, atol=1e-5)
    inside = solid_angle_winding(queries.astype(np.float64), corners) > 0.5
    np.testing.assert_array_equal(sign < 0, inside)
    # the CPU's NumPy-built (median) tree answers the same
    _, cpu = _run_mesh_queries(pts, tris, "cpu", None, queries, starts, dirs, leaf)
    np.testing.assert_allclose(dist, cpu[0], atol=1e-6)
    np.testing.assert_allclose(t, cpu[2], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(sign, cpu[4])
    # move the points: the refitted tree answers for the moved mesh
    moved = (pts * 1.5 - 0.2).astype(np.float32)
    mesh.points.assign(moved)
    mesh.refit()
    outs = _query_mesh(mesh, device, queries, starts, dirs)
    _, d2 = closest_faces(queries.astype(np.float64), moved[tris].astype(np.float64))
    np.testing.assert_allclose(outs[0], np.sqrt(d2), atol=1e-5)
    inside = solid_angle_winding(queries.astype(np.float64), moved[tris].astype(np.float64)) > 0.5
    np.testing.assert_array_equal(outs[4] < 0, inside)


def test_device_built_mesh_of_degenerate_triangles(device):
    # one triangle; and a soup whose triangles all collapse to one point
    rng = np.random.default_rng(8)
    queries = rng.random((20, 3)).astype(np.float32)
    starts = np.zeros((20, 3), np.float32)
    dirs = np.tile(np.array([[0.0, 0.0, 1.0]], np.float32), (20, 1))
    one = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    _, (dist, face, *_rest) = _run_mesh_queries(
        one, np.array([[0, 1, 2]]), device, None, queries, starts, dirs
    )
    _, d2 = closest_faces(queries.astype(np.float64), one[None].astype(np.float64))
    np.testing.assert_allclose(dist, np.sqrt(d2), atol=1e-6)
    assert (face == 0).all()
    same = np.full((30, 3), 0.25, np.float32)
    tris = np.arange(30).reshape(10, 3)
    _, (dist, face, *_rest) = _run_mesh_queries(same, tris, device, None, queries, starts, dirs)
    np.testing.assert_allclose(dist, np.linalg.norm(queries - 0.25, axis=1), atol=1e-6)
    assert ((face >= 0) & (face < 10)).all()


def test_device_mesh_reports_a_bad_index(device):
    pts = wp.array(np.zeros((4, 3), np.float32), dtype=wp.vec3, device=device)
    with pytest.raises(ValueError, match=r"wp.Mesh: indices\[4\] = 9 is not a valid point index"):
        wp.Mesh(pts, wp.array([0, 1, 2, 1, 9, 3], dtype=wp.int32, device=device))
    indices = wp.array([0, 1, 2, 1, 2, 3], dtype=wp.int32, device=device)
    mesh = wp.Mesh(pts, indices)
    indices.assign(np.array([0, 1, 2, 1, 2, -1], np.int32))
    with pytest.raises(ValueError, match=r"wp.Mesh.refit: indices\[5\] = -1 is not a valid point index"):
        mesh.refit()


@wp.kernel
def _closest(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, pts[i], 1.0e6)
    out[i] = wp.length(pts[i] - wp.mesh_eval_position(mesh, q.face, q.u, q.v))


def test_mesh_refit_captured_in_a_graph(device):
    if device.is_cpu:
        pytest.skip("graphs are captured on CUDA devices")
    pts, tris = random_soup(200, seed=12)
    points = wp.array(pts, dtype=wp.vec3, device=device)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32, device=device))
    with wp.ScopedCapture(device=device) as capture:
        mesh.refit()
    moved = (pts + np.float32(0.3)).astype(np.float32)
    points.assign(moved)
    wp.capture_launch(capture.graph)
    queries = np.random.default_rng(13).random((50, 3)).astype(np.float32)
    out = wp.zeros(50, dtype=float, device=device)
    wp.launch(
        _closest,
        dim=50,
        inputs=[mesh.id, wp.array(queries, dtype=wp.vec3, device=device), out],
        device=device,
    )
    _, d2 = closest_faces(queries.astype(np.float64), moved[tris].astype(np.float64))
    np.testing.assert_allclose(out.numpy(), np.sqrt(d2), atol=1e-5)


def test_a_million_boxes_build_in_kernels_on_the_cpu():
    # one item per leaf over 1M boxes: the kernel builder takes well under a few seconds here
    n = 1_000_000
    c = np.random.default_rng(0).random((n, 3)).astype(np.float32)
    L, H = wp.array(c - 1e-3, dtype=wp.vec3), wp.array(c + 1e-3, dtype=wp.vec3)
    start = time.perf_counter()
    bvh = wp.Bvh(L, H, constructor="lbvh")
    elapsed = time.perf_counter() - start
    tree = bvh._tree
    assert tree.num_nodes == 2 * n - 1
    skip = tree.arrays["skip"].numpy()
    assert skip[0] == 2 * n - 1
    np.testing.assert_array_equal(np.sort(tree.items.numpy()), np.arange(n))
    root = tree.arrays["nodes"].numpy()[0]
    np.testing.assert_array_equal(root["lower"], (c - 1e-3).min(0))
    assert elapsed < 30.0


@pytest.mark.parametrize("constructor", ["lbvh", "median"])
def test_winding_node_data_in_kernels_matches_numpy(device, constructor):
    from warp_geometry import winding
    from warp_geometry.winding_device import DeviceWinding

    pts, tris = uv_sphere(radius=0.5, rings=10, segments=14)
    tris = np.concatenate([tris, tris[:5]])  # duplicate triangles
    pts[tris[3]] = pts[tris[3][0]]  # a zero-area triangle
    mesh = wp.Mesh(
        wp.array(pts, dtype=wp.vec3, device=device),
        wp.array(tris.reshape(-1), dtype=wp.int32, device=device),
        bvh_constructor=constructor,
        bvh_leaf_size=3,
    )
    tree = mesh._tree
    data = DeviceWinding(tree.num_nodes, device).compute(tree.levels, tree.arrays, mesh.points, mesh.indices)
    host = tree.host_tree()
    ref = winding.node_data(host, pts, tris.astype(np.int64), "cpu")
    np.testing.assert_allclose(data.center.numpy(), ref.center.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(data.normal.numpy(), ref.normal.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(data.moment.numpy(), ref.moment.numpy(), rtol=1e-4, atol=1e-6)
    radius, ref_radius = data.radius.numpy(), ref.radius.numpy()
    np.testing.assert_allclose(radius, ref_radius, rtol=1e-6, atol=1e-7)


@wp.kernel
def _winding_signs(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_sign_winding_number(mesh, pts[i], 1.0e6)
    out[i] = q.sign


def test_winding_mesh_refit_captured_in_a_graph(device):
    if device.is_cpu:
        pytest.skip("graphs are captured on CUDA devices")
    pts, tris = uv_sphere(radius=0.3, rings=10, segments=14, center=(0.5, 0.5, 0.5))
    points = wp.array(pts, dtype=wp.vec3, device=device)
    mesh = wp.Mesh(
        points, wp.array(tris.reshape(-1), dtype=wp.int32, device=device), support_winding_number=True
    )
    with wp.ScopedCapture(device=device) as capture:
        mesh.refit()
    moved = (pts + np.float32(0.25)).astype(np.float32)
    points.assign(moved)
    wp.capture_launch(capture.graph)
    queries = np.random.default_rng(14).random((200, 3)).astype(np.float32)
    out = wp.zeros(200, dtype=float, device=device)
    q = wp.array(queries, dtype=wp.vec3, device=device)
    wp.launch(_winding_signs, dim=200, inputs=[mesh.id, q, out], device=device)
    inside = solid_angle_winding(queries.astype(np.float64), moved[tris].astype(np.float64)) > 0.5
    assert inside.any()
    np.testing.assert_array_equal(out.numpy() < 0, inside)


@pytest.mark.parametrize("n", [1, 31, 33, 1025, 40000])
def test_centroid_bounds_reduce_in_levels_to_numpys(device, n):
    """The Morton codes' frame: the box of the centroids, reduced by chunks of BOUNDS_CHUNK in
    turn (one level for n <= 32, three for 40000), equals NumPy's."""
    lo, hi = random_boxes(n, seed=n)
    lowers, uppers = wp.array(lo, dtype=wp.vec3, device=device), wp.array(hi, dtype=wp.vec3, device=device)

    def launch(kernel, dim, inputs):
        wp.launch(kernel, dim=dim, inputs=inputs, device=device)

    bounds = bvh_device_build._centroid_bounds(launch, lowers, uppers, n, device).numpy()
    centroids = 0.5 * (lo + hi)
    np.testing.assert_array_equal(bounds[0], centroids.min(0))
    np.testing.assert_array_equal(bounds[1], centroids.max(0))
