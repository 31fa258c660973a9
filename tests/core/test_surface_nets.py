"""warp.geometry.IsoSurfaceNets against a NumPy surface nets, and the properties of a sphere's surface."""

from collections import Counter

import numpy as np
import pytest

import warp as wp
import warp.geometry
from warp.geometry import IsoSurfaceBase, IsoSurfaceNets, mc_tables

CENTER = np.array([12.3, 11.1, 13.7])
RADIUS = 7.4


def sphere_field(shape=(26, 24, 28)):
    i, j, k = np.meshgrid(*[np.arange(n, dtype=np.float64) for n in shape], indexing="ij")
    return (np.sqrt((i - CENTER[0]) ** 2 + (j - CENTER[1]) ** 2 + (k - CENTER[2]) ** 2) - RADIUS).astype(
        np.float32
    )


def numpy_cell_vertices(f, threshold):
    """One vertex per cell with a crossed interior edge (all four cells around it exist): the mean
    of the crossings on the cell's 12 edges."""
    offsets = np.array(mc_tables.CUBE_CORNER_OFFSETS)
    shape = np.array(f.shape)
    verts = []
    for i in range(f.shape[0] - 1):
        for j in range(f.shape[1] - 1):
            for k in range(f.shape[2] - 1):
                points = []
                has_quad = False
                for a, b in mc_tables.EDGE_TO_CORNERS:
                    pa, pb = np.array([i, j, k]) + offsets[a], np.array([i, j, k]) + offsets[b]
                    fa, fb = float(f[tuple(pa)]), float(f[tuple(pb)])
                    if (fa < threshold) != (fb < threshold):
                        points.append(pa + (threshold - fa) / (fb - fa) * (pb - pa))
                        across = pb != pa  # the edge's axis; the other two must be interior
                        has_quad |= bool(np.all((pa[~across] >= 1) & (pa[~across] <= shape[~across] - 2)))
                if has_quad:
                    verts.append(np.mean(points, axis=0))
    return np.array(verts)


def test_vertices_match_numpy_and_faces_are_closed():
    f = sphere_field((14, 13, 15))
    center = np.array([6.6, 6.1, 7.2])
    f = (
        np.linalg.norm(
            np.stack(np.meshgrid(*[np.arange(n) for n in f.shape], indexing="ij"), -1) - center, axis=-1
        )
        - 4.3
    ).astype(np.float32)
    verts, indices = IsoSurfaceNets.extract(wp.array(f, dtype=float), threshold=0.0, topology="quad")
    v = verts.numpy()
    np.testing.assert_allclose(v, numpy_cell_vertices(f, 0.0), atol=1e-5)  # same order: cells row-major
    quads = indices.numpy().reshape(-1, 4)
    edges = Counter()
    for q in quads:
        edges.update((q[n], q[(n + 1) % 4]) for n in range(4))
    assert all(c == 1 and edges[(b, a)] == 1 for (a, b), c in edges.items())
    assert len(v) - len(edges) // 2 + len(quads) == 2


def test_crossings_only_on_the_boundary_make_nothing():
    f = np.ones((2, 2, 2), dtype=np.float32)
    f[0, 0, 0] = -1.0
    for topology in ("triangle", "quad"):
        verts, indices = IsoSurfaceNets.extract(wp.array(f, dtype=float), topology=topology)
        assert verts.shape == (0,) and indices.shape == (0,)
    f = np.ones((3, 3, 2), dtype=np.float32)
    f[0, 0, 0] = -1.0  # a sheet crossing boundary edges only: no vertex
    f[1, 1, 1] = -1.0  # crosses the one interior edge (1, 1, 0)-(1, 1, 1): one quad
    verts, indices = IsoSurfaceNets.extract(wp.array(f, dtype=float), topology="quad")
    assert verts.shape == (4,) and indices.shape == (4,)
    assert sorted(indices.numpy().tolist()) == [0, 1, 2, 3]


def test_sphere_triangles_split_the_quads_and_face_outwards():
    field = wp.array(sphere_field(), dtype=float)
    tv, ti = IsoSurfaceNets.extract(field, threshold=0.0, topology="triangle")
    qv, qi = IsoSurfaceNets.extract(field, threshold=0.0, topology="quad")
    np.testing.assert_array_equal(tv.numpy(), qv.numpy())
    quads = qi.numpy().reshape(-1, 4)
    tris = ti.numpy().reshape(-1, 3)
    np.testing.assert_array_equal(tris[0::2], quads[:, [0, 1, 2]])
    np.testing.assert_array_equal(tris[1::2], quads[:, [0, 2, 3]])
    v = tv.numpy()
    assert np.array_equal(np.unique(tris), np.arange(len(v)))  # every vertex is used
    np.testing.assert_allclose(np.linalg.norm(v - CENTER, axis=1), RADIUS, atol=0.1)
    normals = np.cross(v[tris[:, 1]] - v[tris[:, 0]], v[tris[:, 2]] - v[tris[:, 0]])
    assert np.all(np.sum(normals * (v[tris].mean(axis=1) - CENTER), axis=1) > 0)
    assert ti.dtype == wp.int32 and tv.dtype == wp.vec3


def test_stateful_interface_bounds_and_errors():
    f = sphere_field()
    iso = IsoSurfaceNets(*f.shape, lower=(1.0, 2.0, 3.0), upper=(2.0, 4.0, 6.0))
    assert isinstance(iso, IsoSurfaceBase) and iso.verts is None and iso.indices is None
    iso.surface(wp.array(f, dtype=float), 0.0)
    verts, _ = IsoSurfaceNets.extract(wp.array(f, dtype=float), 0.0)
    scale = np.array([1.0, 2.0, 3.0]) / (np.array(f.shape) - 1)
    np.testing.assert_allclose(
        iso.verts.numpy(), 1.0 + np.arange(3) + verts.numpy() * scale, rtol=1e-5, atol=1e-5
    )
    with pytest.raises(ValueError, match="topology must be one of"):
        IsoSurfaceNets(4, 4, 4, topology="quads")
    with pytest.raises(ValueError, match="at least 2 nodes on each axis"):
        IsoSurfaceNets.extract(wp.zeros((8, 1, 8), dtype=float))
    with pytest.raises(ValueError, match="3-D array"):
        IsoSurfaceNets.extract(wp.zeros(8, dtype=float))
    with pytest.raises(TypeError, match="float32 field values"):
        IsoSurfaceNets.extract(wp.zeros((8, 8, 8), dtype=wp.float64))
    with pytest.raises(ValueError, match="differs from the extractor's grid"):
        iso.surface(wp.zeros((8, 8, 8), dtype=float), 0.0)
    assert warp.geometry.IsoSurfaceNets is IsoSurfaceNets
