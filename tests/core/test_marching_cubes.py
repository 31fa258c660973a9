"""warp.geometry.IsoSurfaceMarchingCubes against a brute-force NumPy marching cubes over the same
tables, and the properties of the surface of a sphere's signed distance."""

from collections import Counter

import numpy as np
import pytest

import warp as wp
import warp.geometry
from warp.geometry import mc_tables
from warp.geometry.marching_cubes import IsoSurfaceBase, IsoSurfaceMarchingCubes

CENTER = np.array([15.3, 14.1, 16.7])
RADIUS = 9.4


def sphere_field(shape=(32, 30, 34), center=CENTER, radius=RADIUS):
    i, j, k = np.meshgrid(*[np.arange(n, dtype=np.float64) for n in shape], indexing="ij")
    distance = np.sqrt((i - center[0]) ** 2 + (j - center[1]) ** 2 + (k - center[2]) ** 2)
    return (distance - radius).astype(np.float32)


def numpy_marching_cubes(f, threshold, lower, spacing):
    """Every cell on its own: the triangles of its case, vertices interpolated on its edges."""
    tris = []
    offsets = np.array(mc_tables.CUBE_CORNER_OFFSETS)
    for i in range(f.shape[0] - 1):
        for j in range(f.shape[1] - 1):
            for k in range(f.shape[2] - 1):
                values = [f[i + o[0], j + o[1], k + o[2]] for o in offsets]
                case = sum(1 << c for c in range(8) if values[c] < threshold)
                lo, hi = mc_tables.CASE_TO_TRI_RANGE[case], mc_tables.CASE_TO_TRI_RANGE[case + 1]
                for t in range(lo, hi):
                    tri = []
                    for e in mc_tables.TRI_LOCAL_INDICES[3 * t : 3 * t + 3]:
                        a, b = mc_tables.EDGE_TO_CORNERS[e]
                        s = (threshold - values[a]) / (values[b] - values[a])
                        p = np.array([i, j, k]) + offsets[a] + s * (offsets[b] - offsets[a])
                        tri.append(lower + p * spacing)
                    tris.append(tri)
    return np.array(tris).reshape(-1, 3, 3)


def surface(field_np, threshold=0.0, **bounds):
    field = wp.array(field_np, dtype=float)
    verts, indices = IsoSurfaceMarchingCubes.extract(field, threshold=threshold, **bounds)
    return verts.numpy(), indices.numpy().reshape(-1, 3)


def test_tables_shape():
    assert len(mc_tables.CASE_TO_TRI_RANGE) == 257 and mc_tables.CASE_TO_TRI_RANGE[0] == 0
    assert mc_tables.CASE_TO_TRI_RANGE[-1] * 3 == len(mc_tables.TRI_LOCAL_INDICES) == 2460
    # complementary cases have the same triangles, oppositely oriented
    for case in range(256):
        a = mc_tables.case_polygons(case)
        b = mc_tables.case_polygons(255 - case)
        assert sorted(sorted(p) for p in a) == sorted(sorted(p) for p in b) or _ambiguous(case)
    assert mc_tables.CASE_TO_TRI_RANGE[1] - mc_tables.CASE_TO_TRI_RANGE[0] == 0


def _ambiguous(case):
    faces = [(0, 3, 7, 4), (1, 2, 6, 5), (0, 1, 5, 4), (3, 2, 6, 7), (0, 1, 2, 3), (4, 5, 6, 7)]
    bits = [(case >> c) & 1 for c in range(8)]
    return any(bits[f[0]] == bits[f[2]] != bits[f[1]] == bits[f[3]] for f in faces)


def test_sphere_matches_brute_force_numpy():
    f = sphere_field((20, 18, 21), center=np.array([9.2, 8.7, 10.1]), radius=6.3)
    lower, upper = np.array([-1.0, 0.5, 2.0]), np.array([3.0, 4.0, 7.0])
    spacing = (upper - lower) / (np.array(f.shape) - 1)
    verts, faces = surface(f, lower=tuple(lower), upper=tuple(upper))
    expected = numpy_marching_cubes(f.astype(np.float64), 0.0, lower, spacing)
    assert faces.shape[0] == expected.shape[0] > 0
    got = np.sort(np.round(verts[faces], 4).reshape(-1, 9), axis=0)
    want = np.sort(np.round(expected, 4).reshape(-1, 9), axis=0)
    np.testing.assert_allclose(got, want, atol=2e-4)


def test_sphere_surface_is_closed_on_the_sphere_and_outward():
    verts, faces = surface(sphere_field())
    assert faces.dtype == np.int32 and faces.shape[0] > 0
    # vertices on the sphere (linear interpolation of the distance is exact along grid lines up to
    # the curvature of the sphere inside one cell)
    np.testing.assert_allclose(np.linalg.norm(verts - CENTER, axis=1), RADIUS, atol=0.05)
    # every vertex used, triangles with three distinct vertices
    assert np.array_equal(np.unique(faces), np.arange(len(verts)))
    assert np.all((faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2]))
    # closed and consistently oriented: each directed edge once, its reverse once
    edges = Counter()
    for a, b, c in faces:
        edges.update([(a, b), (b, c), (c, a)])
    assert all(n == 1 and edges[(q, p)] == 1 for (p, q), n in edges.items())
    # a sphere: Euler characteristic 2
    assert len(verts) - len(edges) // 2 + len(faces) == 2
    # normals point outwards (towards larger distance values)
    normals = np.cross(verts[faces[:, 1]] - verts[faces[:, 0]], verts[faces[:, 2]] - verts[faces[:, 0]])
    assert np.all(np.sum(normals * (verts[faces].mean(axis=1) - CENTER), axis=1) > 0)
    # the area approaches the sphere's
    area = 0.5 * np.linalg.norm(normals, axis=1).sum()
    assert area == pytest.approx(4 * np.pi * RADIUS**2, rel=0.01)


def test_stateful_interface_and_alias():
    f = sphere_field()
    iso = wp.MarchingCubes(nx=f.shape[0], ny=f.shape[1], nz=f.shape[2])
    assert wp.MarchingCubes is IsoSurfaceMarchingCubes and isinstance(iso, IsoSurfaceBase)
    iso.surface(wp.array(f, dtype=float), 0.0)
    verts, faces = surface(f)
    np.testing.assert_array_equal(iso.verts.numpy(), verts)
    np.testing.assert_array_equal(iso.indices.numpy().reshape(-1, 3), faces)
    assert iso.indices.dtype == wp.int32 and iso.verts.dtype == wp.vec3
    iso.surface(wp.array(f, dtype=float), 1000.0)  # all inside: nothing
    assert iso.verts.shape == (0,) and iso.indices.shape == (0,)
    iso.resize(8, 8, 8)
    iso.surface(wp.zeros((8, 8, 8), dtype=float), -1.0)  # all outside: nothing
    assert iso.indices.shape == (0,)


def test_errors():
    for shape in ((1, 8, 8), (8, 8, 1), (0, 8, 8)):
        with pytest.raises(ValueError, match="at least 2 nodes on each axis"):
            IsoSurfaceMarchingCubes.extract(wp.zeros(shape, dtype=float))
    with pytest.raises(TypeError, match="float32 field values"):
        IsoSurfaceMarchingCubes.extract(wp.zeros((4, 4, 4), dtype=wp.float64))
    with pytest.raises(ValueError, match="3-D array"):
        IsoSurfaceMarchingCubes.extract(wp.zeros(8, dtype=float))
    iso = IsoSurfaceMarchingCubes(4, 4, 4)
    with pytest.raises(ValueError, match=r"field shape \(5, 4, 4\) differs"):
        iso.surface(wp.zeros((5, 4, 4), dtype=float), 0.0)
    with pytest.raises(TypeError, match="Cannot specify both `lower` and `domain_bounds_lower_corner`"):
        IsoSurfaceMarchingCubes(4, 4, 4, lower=(0, 0, 0), domain_bounds_lower_corner=(0, 0, 0))
    with pytest.raises(TypeError, match="interface"):
        IsoSurfaceBase(4, 4, 4)


@pytest.mark.needs_plugin("autodiff", "builtins")
def test_vertex_positions_differentiate_through_the_tape():
    @wp.kernel
    def sdf(field: wp.array3d(dtype=float), radius: wp.array(dtype=float)):
        i, j, k = wp.tid()
        p = wp.vec3(float(i), float(j), float(k)) - wp.vec3(10.2, 9.7, 10.4)
        field[i, j, k] = wp.length(p) - radius[0]

    @wp.kernel
    def area(verts: wp.array(dtype=wp.vec3), faces: wp.array(dtype=wp.int32), out: wp.array(dtype=float)):
        t = wp.tid()
        a = verts[faces[3 * t]]
        n = wp.cross(verts[faces[3 * t + 1]] - a, verts[faces[3 * t + 2]] - a)
        wp.atomic_add(out, 0, 0.5 * wp.length(n))

    r = 6.0
    radius = wp.array([r], dtype=float, requires_grad=True)
    field = wp.zeros((21, 20, 22), dtype=float, requires_grad=True)
    total = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(sdf, dim=field.shape, inputs=[field, radius])
        verts, faces = IsoSurfaceMarchingCubes.extract(field, threshold=0.0)
        wp.launch(area, dim=faces.shape[0] // 3, inputs=[verts, faces, total])
    assert total.numpy()[0] == pytest.approx(4 * np.pi * r * r, rel=0.01)
    tape.backward(total)
    assert radius.grad.numpy()[0] == pytest.approx(8 * np.pi * r, rel=0.02)


def test_deprecated_names_warn_and_agree():
    f = wp.array(sphere_field((12, 12, 12), center=np.array([5.5, 5.2, 5.9]), radius=3.3), dtype=float)
    with pytest.warns(DeprecationWarning, match="argument `domain_bounds_upper_corner` is deprecated"):
        iso = IsoSurfaceMarchingCubes(12, 12, 12, domain_bounds_upper_corner=(2.0, 2.0, 2.0))
    assert iso.upper == (2.0, 2.0, 2.0)
    with pytest.warns(DeprecationWarning, match="domain_bounds_lower_corner is deprecated. Use `lower`"):
        iso.domain_bounds_lower_corner = (1.0, 1.0, 1.0)
    assert iso.lower == (1.0, 1.0, 1.0)
    with pytest.warns(DeprecationWarning, match="extract_surface_marching_cubes\\(\\) is deprecated"):
        v1, i1 = IsoSurfaceMarchingCubes.extract_surface_marching_cubes(f, threshold=0.0)
    v2, i2 = IsoSurfaceMarchingCubes.extract(f, threshold=0.0)
    np.testing.assert_array_equal(v1.numpy(), v2.numpy())
    np.testing.assert_array_equal(i1.numpy(), i2.numpy())
