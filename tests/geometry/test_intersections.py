"""closest_point_edge_edge and intersect_tri_tri against independent NumPy references."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import warp as wp

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


# -- closest_point_edge_edge --------------------------------------------------------------------
@wp.kernel
def edge_edge(
    p1: wp.array(dtype=wp.vec3),
    q1: wp.array(dtype=wp.vec3),
    p2: wp.array(dtype=wp.vec3),
    q2: wp.array(dtype=wp.vec3),
    eps: float,
    out: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    out[i] = wp.closest_point_edge_edge(p1[i], q1[i], p2[i], q2[i], eps)


def _point_segment(p, a, b):
    ab = b - a
    den = np.einsum("ik,ik->i", ab, ab)
    t = np.clip(np.einsum("ik,ik->i", p - a, ab) / np.where(den > 0, den, 1.0), 0.0, 1.0)
    return np.linalg.norm(p - (a + t[:, None] * ab), axis=1)


def segment_distance(p1, q1, p2, q2):
    """Exact segment-segment distance: the interior critical point if inside, else a boundary case."""
    p1, q1, p2, q2 = (x.astype(np.float64) for x in (p1, q1, p2, q2))
    d = np.minimum.reduce(
        [
            _point_segment(p1, p2, q2),
            _point_segment(q1, p2, q2),
            _point_segment(p2, p1, q1),
            _point_segment(q2, p1, q1),
        ]
    )
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a, e, b = (np.einsum("ik,ik->i", x, y) for x, y in ((d1, d1), (d2, d2), (d1, d2)))
    c, f = np.einsum("ik,ik->i", d1, r), np.einsum("ik,ik->i", d2, r)
    den = a * e - b * b
    ok = den > 1e-12 * a * e
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (b * f - c * e) / den
        t = (a * f - b * c) / den
    inside = ok & (s >= 0) & (s <= 1) & (t >= 0) & (t <= 1)
    s, t = np.where(inside, s, 0.0), np.where(inside, t, 0.0)
    x = p1 + s[:, None] * d1 - (p2 + t[:, None] * d2)
    return np.where(inside, np.minimum(d, np.linalg.norm(x, axis=1)), d)


def _run_edge_edge(p1, q1, p2, q2, eps=1e-6):
    arrays = [wp.array(x.astype(np.float32), dtype=wp.vec3) for x in (p1, q1, p2, q2)]
    out = wp.zeros(len(p1), dtype=wp.vec3)
    wp.launch(edge_edge, dim=len(p1), inputs=[*arrays, eps, out])
    return out.numpy().astype(np.float64)


def test_edge_edge_documented_example():
    z = np.zeros((1, 3))
    res = _run_edge_edge(z, np.array([[1.0, 0, 0]]), np.array([[0.5, 1, 1]]), np.array([[0.5, 1, -1]]))
    np.testing.assert_allclose(res[0], [0.5, 0.5, 1.0], atol=1e-6)


def test_edge_edge_matches_exact_distance_on_random_segments():
    rng = np.random.default_rng(3)
    n = 2000
    p1, q1, p2, q2 = (rng.random((n, 3)) * 2 - 1 for _ in range(4))
    # parallel pairs, crossing pairs and point-like segments
    q2[:200] = p2[:200] + (q1[:200] - p1[:200]) * 0.7
    q1[200:300] = p1[200:300]
    q2[250:350] = p2[250:350]
    p2[400:500] = 0.5 * (p1[400:500] + q1[400:500]) - 0.3 * (q2[400:500] - p2[400:500])
    p1, q1, p2, q2 = (x.astype(np.float32) for x in (p1, q1, p2, q2))
    res = _run_edge_edge(p1, q1, p2, q2)
    s, t, d = res[:, 0], res[:, 1], res[:, 2]
    assert ((s >= 0) & (s <= 1) & (t >= 0) & (t <= 1)).all()
    # d is the distance of the reported points, and it is the minimum distance of the segments
    c1 = p1 + s[:, None] * (q1 - p1)
    c2 = p2 + t[:, None] * (q2 - p2)
    np.testing.assert_allclose(d, np.linalg.norm(c1 - c2, axis=1), atol=1e-5)
    np.testing.assert_allclose(d, segment_distance(p1, q1, p2, q2), atol=2e-5)
    # a point-like segment gets weight 0
    assert (s[200:300] == 0).all() and (t[300:350] == 0).all()


# -- intersect_tri_tri ---------------------------------------------------------------------------
@wp.kernel
def tri_tri(tris: wp.array(dtype=wp.vec3, ndim=2), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = wp.intersect_tri_tri(tris[i, 0], tris[i, 1], tris[i, 2], tris[i, 3], tris[i, 4], tris[i, 5])


@wp.kernel
def tri_tri_d(tris: wp.array(dtype=wp.vec3d, ndim=2), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = wp.intersect_tri_tri(tris[i, 0], tris[i, 1], tris[i, 2], tris[i, 3], tris[i, 4], tris[i, 5])


def _run_tri_tri(pairs: np.ndarray, double: bool = False) -> np.ndarray:
    pairs = np.asarray(pairs, dtype=np.float64).reshape(-1, 6, 3)
    dtype = wp.vec3d if double else wp.vec3
    arr = wp.array(pairs.astype(np.float64 if double else np.float32), dtype=dtype)
    out = wp.zeros(len(pairs), dtype=wp.int32)
    wp.launch(tri_tri_d if double else tri_tri, dim=len(pairs), inputs=[arr, out])
    return out.numpy()


def sat_gap(pair: np.ndarray) -> float:
    """Separating-axis measure of two triangles: > 0 the largest gap along a candidate axis (disjoint),
    <= 0 minus the smallest overlap (they intersect). Axes: both normals, the 9 edge cross products and
    the in-plane edge normals, all normalized; float64."""
    a, b = pair[:3].astype(np.float64), pair[3:].astype(np.float64)
    ea = [a[1] - a[0], a[2] - a[1], a[0] - a[2]]
    eb = [b[1] - b[0], b[2] - b[1], b[0] - b[2]]
    na, nb = np.cross(ea[0], ea[1]), np.cross(eb[0], eb[1])
    axes = [na, nb] + [np.cross(x, y) for x, y in itertools.product(ea, eb)]
    axes += [np.cross(na, x) for x in ea] + [np.cross(nb, y) for y in eb]
    best = -np.inf
    for ax in axes:
        length = np.linalg.norm(ax)
        if length < 1e-9:
            continue
        ax = ax / length
        pa, pb = a @ ax, b @ ax
        best = max(best, pb.min() - pa.max(), pa.min() - pb.max())
    return best


DOC_PAIR = [[0, 0, 0], [2, 0, 0], [0, 2, 0], [1, 1, -1], [1, 1, 1], [1, -1, 0]]
BASE = [[0, 0, 0], [4, 0, 0], [0, 4, 0]]
#: (second triangle, expected) against BASE; exact small integers, so float32 decides them exactly
CASES = [
    ([[1, 1, -1], [1, 1, 1], [3, 3, 1]], 1),  # pierces
    ([[1, 1, 1], [2, 1, 1], [1, 2, 1]], 0),  # parallel plane above
    ([[1, 1, 0], [5, 5, 1], [5, 5, -1]], 1),  # a vertex inside, the rest across
    ([[4, 0, 0], [5, 0, 1], [5, 1, 1]], 1),  # touches at a vertex
    ([[2, 2, 0], [3, 3, 1], [3, 3, -1]], 1),  # its edge's midpoint... touches the hypotenuse
    ([[3, 3, 0], [5, 3, 1], [3, 5, 1]], 0),  # a vertex just outside the hypotenuse, rest above
    ([[1, 1, 0], [2, 1, 0], [1, 2, 0]], 1),  # coplanar, contained
    ([[-1, -1, 0], [6, -1, 0], [-1, 6, 0]], 1),  # coplanar, containing
    ([[5, 5, 0], [6, 5, 0], [5, 6, 0]], 0),  # coplanar, disjoint
    ([[2, 2, 0], [5, 2, 0], [2, 5, 0]], 1),  # coplanar, a vertex on the hypotenuse
    ([[0, 0, 0], [4, 0, 0], [0, -4, 0]], 1),  # coplanar, shared edge, opposite sides
    ([[1, 0, 0], [3, 0, 0], [2, -1, 0]], 1),  # coplanar, collinear overlapping edges only
    ([[5, 0, 0], [6, 0, 0], [5, -1, 0]], 0),  # coplanar, collinear edges apart
    ([[0, 0, 0], [4, 0, 0], [0, 4, 0]], 1),  # identical
    ([[0, 0, 0], [4, 0, 0], [0, 0, 4]], 1),  # shared edge, perpendicular
    ([[1, 1, -1], [1, 1, 1], [1, 1, 3]], 1),  # degenerate (segment) through the interior
    ([[5, 5, -1], [5, 5, 1], [5, 5, 3]], 0),  # degenerate, misses
    ([[1, 1, 0], [2, 2, 0], [3, 3, 0]], 1),  # degenerate, coplanar inside
    ([[-1, 2, 0], [2, 2, 0], [5, 2, 0]], 1),  # degenerate, coplanar, crossing edges
    ([[5, 5, 0], [6, 6, 0], [7, 7, 0]], 0),  # degenerate, coplanar, outside
    ([[1, 1, 1], [1, 1, 1], [1, 1, 1]], 0),  # a point above
    ([[1, 1, 0], [1, 1, 0], [1, 1, 0]], 1),  # a point inside
]


@pytest.mark.slow
def test_tri_tri_documented_example():
    assert _run_tri_tri([DOC_PAIR]).tolist() == [1]
    assert _run_tri_tri([DOC_PAIR], double=True).tolist() == [1]


@pytest.mark.parametrize("double", [False, True])
def test_tri_tri_touching_coplanar_and_degenerate_cases(double):
    pairs = np.array([BASE + other for other, _ in CASES], dtype=np.float64)
    expected = np.array([e for _, e in CASES])
    # both argument orders and cyclic vertex orders give the same answer
    swapped = np.concatenate([pairs[:, 3:], pairs[:, :3]], axis=1)
    rolled = np.concatenate([np.roll(pairs[:, :3], 1, axis=1), np.roll(pairs[:, 3:], 2, axis=1)], axis=1)
    for p in (pairs, swapped, rolled):
        got = _run_tri_tri(p, double)
        bad = np.flatnonzero(got != expected)
        assert bad.size == 0, [(CASES[i][0], int(got[i])) for i in bad]
    # the references agree with the SAT measure where it applies (non-degenerate)
    for (other, e), pair in zip(CASES[:15], pairs[:15]):
        assert (sat_gap(pair) <= 0) == bool(e), other


@pytest.mark.parametrize("double", [False, True])
def test_tri_tri_matches_separating_axes_on_random_triangles(double):
    rng = np.random.default_rng(11)
    n = 3000
    a = 0.3 * rng.random((n, 1, 3)) + (rng.random((n, 3, 3)) - 0.5)
    b = 0.3 * rng.random((n, 1, 3)) + (rng.random((n, 3, 3)) - 0.5)
    pairs = np.concatenate([a, b], axis=1)
    if not double:
        pairs = pairs.astype(np.float32).astype(np.float64)
    gaps = np.array([sat_gap(p) for p in pairs])
    clear = np.abs(gaps) > 1e-4  # leave out pairs within rounding of touching
    got = _run_tri_tri(pairs, double)
    expected = (gaps <= 0).astype(np.int32)
    assert clear.sum() > 2500 and 0.1 < expected[clear].mean() < 0.9
    np.testing.assert_array_equal(got[clear], expected[clear])
