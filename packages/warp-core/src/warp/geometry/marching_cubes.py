"""Iso-surface extraction from dense 3-D fields by marching cubes, as warp kernels.

Three passes: (1) every grid edge whose ends lie on opposite sides of the threshold gets a flag,
an exclusive scan turns the flags into vertex numbers and a kernel places each vertex on its edge
by linear interpolation, so neighbouring cells share vertices; (2) every cell counts the triangles
of its case and a scan gives each cell its first triangle; (3) every cell writes its triangles'
vertex numbers. Vertex positions are computed by a kernel from the field, so a ``wp.Tape``
differentiates them with respect to the field values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import warp
from warp.arrays import array, empty, zeros
from warp.geometry import mc_tables
from warp.runtime.devices import get_device
from warp.runtime.launch import launch
from warp.types.composite import vector
from warp.types.scalars import float32, int32
from warp.utils import array_scan

vec3 = vector(3, float32)


@warp.kernel
def _edge_flags(field: warp.array3d(dtype=float32), threshold: float32, flags: warp.array(dtype=int32)):
    d, i, j, k = warp.tid()
    nx = field.shape[0]
    ny = field.shape[1]
    nz = field.shape[2]
    i1 = i
    j1 = j
    k1 = k
    if d == 0:
        i1 = i + 1
    if d == 1:
        j1 = j + 1
    if d == 2:
        k1 = k + 1
    flag = 0
    if i1 < nx and j1 < ny and k1 < nz:
        if (field[i, j, k] < threshold) != (field[i1, j1, k1] < threshold):
            flag = 1
    flags[((d * nx + i) * ny + j) * nz + k] = flag


@warp.kernel
def _edge_vertices(field: warp.array3d(dtype=float32), threshold: float32, flags: warp.array(dtype=int32),
                   vertex_of_edge: warp.array(dtype=int32), lower: vec3, spacing: vec3,
                   verts: warp.array(dtype=vec3)):
    d, i, j, k = warp.tid()
    nx = field.shape[0]
    ny = field.shape[1]
    nz = field.shape[2]
    e = ((d * nx + i) * ny + j) * nz + k
    if flags[e] != 0:
        i1 = i
        j1 = j
        k1 = k
        if d == 0:
            i1 = i + 1
        if d == 1:
            j1 = j + 1
        if d == 2:
            k1 = k + 1
        f0 = field[i, j, k]
        f1 = field[i1, j1, k1]
        t = (threshold - f0) / (f1 - f0)
        p0 = vec3(float(i), float(j), float(k))
        p1 = vec3(float(i1), float(j1), float(k1))
        p = p0 + t * (p1 - p0)
        verts[vertex_of_edge[e]] = vec3(lower[0] + p[0] * spacing[0], lower[1] + p[1] * spacing[1],
                                        lower[2] + p[2] * spacing[2])


@warp.kernel
def _cell_cases(field: warp.array3d(dtype=float32), threshold: float32,
                corner_offsets: warp.array2d(dtype=int32),
                tri_range: warp.array(dtype=int32), cases: warp.array(dtype=int32),
                counts: warp.array(dtype=int32)):
    i, j, k = warp.tid()
    ny1 = field.shape[1] - 1
    nz1 = field.shape[2] - 1
    case = 0
    for c in range(8):
        if field[i + corner_offsets[c, 0], j + corner_offsets[c, 1], k + corner_offsets[c, 2]] < threshold:
            case = case | (1 << c)
    cell = (i * ny1 + j) * nz1 + k
    cases[cell] = case
    counts[cell] = tri_range[case + 1] - tri_range[case]


@warp.kernel
def _cell_triangles(field: warp.array3d(dtype=float32), cases: warp.array(dtype=int32),
                    first_tri: warp.array(dtype=int32), tri_range: warp.array(dtype=int32),
                    tri_edges: warp.array(dtype=int32), edge_base: warp.array2d(dtype=int32),
                    vertex_of_edge: warp.array(dtype=int32), indices: warp.array(dtype=int32)):
    i, j, k = warp.tid()
    nx = field.shape[0]
    ny = field.shape[1]
    nz = field.shape[2]
    cell = (i * (ny - 1) + j) * (nz - 1) + k
    case = cases[cell]
    start = tri_range[case] * 3
    shift = first_tri[cell] * 3 - start
    for n in range(start, tri_range[case + 1] * 3):
        local = tri_edges[n]
        d = edge_base[local, 3]
        e = ((d * nx + i + edge_base[local, 0]) * ny + j + edge_base[local, 1]) * nz + k + edge_base[local, 2]
        indices[n + shift] = vertex_of_edge[e]


def _edge_base() -> np.ndarray:
    """Per local edge: offset of its lower corner in the cell and its axis."""
    rows = []
    for a, b in mc_tables.EDGE_TO_CORNERS:
        oa, ob = mc_tables.CUBE_CORNER_OFFSETS[a], mc_tables.CUBE_CORNER_OFFSETS[b]
        axis = next(n for n in range(3) if oa[n] != ob[n])
        rows.append([*map(min, oa, ob), axis])
    return np.array(rows, dtype=np.int32)


def _check_field(field: Any) -> None:
    if not isinstance(field, array) or field.ndim != 3:
        raise TypeError(f"marching cubes needs a 3-D wp.array of float32 field values, got {field!r}")
    if field.dtype != float32:
        raise TypeError(f"marching cubes needs float32 field values, got an array of {field.dtype.__name__}")
    if min(field.shape) < 2:
        raise ValueError(f"marching cubes needs a field with at least 2 nodes on each axis, "
                         f"got shape {field.shape}")


class IsoSurfaceBase:
    """The interface of iso-surface extractors: ``surface(field, threshold)`` fills ``verts``/``indices``."""

    def __init__(self, nx: int, ny: int, nz: int, device: Any = None) -> None:
        if type(self) is IsoSurfaceBase:
            raise TypeError("IsoSurfaceBase is an interface; construct IsoSurfaceMarchingCubes")
        self.nx, self.ny, self.nz = int(nx), int(ny), int(nz)
        self.device = get_device(device)
        self.verts: array = zeros(0, dtype=vec3, device=self.device)
        self.indices: array = zeros(0, dtype=int32, device=self.device)

    def surface(self, field: array, threshold: float) -> None:
        """Extract the surface ``field == threshold`` into ``self.verts`` and ``self.indices``."""
        raise NotImplementedError

    def resize(self, nx: int, ny: int, nz: int, max_verts: int = 0, max_tris: int = 0) -> None:
        """Change the grid size the extractor expects (``max_*`` are accepted; buffers grow as needed)."""
        self.nx, self.ny, self.nz = int(nx), int(ny), int(nz)


class IsoSurfaceMarchingCubes(IsoSurfaceBase):
    """Marching cubes over a dense ``(nx, ny, nz)`` grid of float32 values on nodes.

    Node ``(i, j, k)`` lies at ``lower + (upper - lower) * (i, j, k) / (n - 1)``; by default
    ``lower = (0, 0, 0)`` and ``upper = (nx - 1, ny - 1, nz - 1)`` (index coordinates). After
    ``surface(field, threshold)``, ``verts`` holds one ``vec3`` per edge the surface crosses and
    ``indices`` three vertex numbers per triangle (int32, flat), oriented so that each triangle's
    normal points towards larger field values.
    """

    CUBE_CORNER_OFFSETS = mc_tables.CUBE_CORNER_OFFSETS
    EDGE_TO_CORNERS = mc_tables.EDGE_TO_CORNERS
    CASE_TO_TRI_RANGE = mc_tables.CASE_TO_TRI_RANGE
    TRI_LOCAL_INDICES = mc_tables.TRI_LOCAL_INDICES

    def __init__(self, nx: int, ny: int, nz: int, max_verts: int = 0, max_tris: int = 0, device: Any = None,
                 lower: Any = None, upper: Any = None, domain_bounds_lower_corner: Any = None,
                 domain_bounds_upper_corner: Any = None) -> None:
        super().__init__(nx, ny, nz, device)
        if lower is not None and domain_bounds_lower_corner is not None:
            raise ValueError("pass either `lower` or its older name `domain_bounds_lower_corner`, not both")
        if upper is not None and domain_bounds_upper_corner is not None:
            raise ValueError("pass either `upper` or its older name `domain_bounds_upper_corner`, not both")
        self.lower = lower if lower is not None else domain_bounds_lower_corner
        self.upper = upper if upper is not None else domain_bounds_upper_corner
        self._tables = (
            array(np.array(self.CUBE_CORNER_OFFSETS, dtype=np.int32), dtype=int32, device=self.device),
            array(np.array(self.CASE_TO_TRI_RANGE, dtype=np.int32), dtype=int32, device=self.device),
            array(np.array(self.TRI_LOCAL_INDICES, dtype=np.int32), dtype=int32, device=self.device),
            array(_edge_base(), dtype=int32, device=self.device),
        )

    def surface(self, field: array, threshold: float) -> None:
        """Extract the surface ``field == threshold`` into ``self.verts`` and ``self.indices``."""
        _check_field(field)
        if field.shape != (self.nx, self.ny, self.nz):
            raise ValueError(f"field shape {field.shape} differs from the extractor's grid "
                             f"({self.nx}, {self.ny}, {self.nz}); call resize() first")
        self.verts, self.indices = self._extract(field, float(threshold))

    @classmethod
    def extract(cls, field: array, threshold: float = 0.0, lower: Any = None, upper: Any = None,
                device: Any = None) -> tuple[array, array]:
        """Extract ``field == threshold`` in one call; returns ``(verts, indices)``."""
        _check_field(field)
        device = device if device is not None else field.device
        iso = cls(*field.shape, device=device, lower=lower, upper=upper)
        return iso._extract(field, float(threshold))

    def _bounds(self) -> tuple[Any, Any]:
        cells = np.array([self.nx - 1, self.ny - 1, self.nz - 1], dtype=np.float64)
        lo = np.zeros(3) if self.lower is None else np.array([float(v) for v in self.lower])
        hi = cells if self.upper is None else np.array([float(v) for v in self.upper])
        return vec3(*lo), vec3(*((hi - lo) / cells))

    def _extract(self, field: array, threshold: float) -> tuple[array, array]:
        nx, ny, nz = field.shape
        device = field.device
        corner_offsets, tri_range, tri_edges, edge_base = self._tables
        lower, spacing = self._bounds()
        thr = float32(threshold)
        edges = 3 * nx * ny * nz
        flags = empty(edges, dtype=int32, device=device)
        launch(_edge_flags, dim=(3, nx, ny, nz), inputs=[field, thr, flags], device=device)
        vertex_of_edge = empty(edges, dtype=int32, device=device)
        array_scan(flags, vertex_of_edge, inclusive=False)
        n_verts = int(vertex_of_edge[edges - 1 : edges].numpy()[0] + flags[edges - 1 : edges].numpy()[0])
        verts = zeros(n_verts, dtype=vec3, device=device, requires_grad=field.requires_grad)
        if n_verts:
            launch(_edge_vertices, dim=(3, nx, ny, nz),
                   inputs=[field, thr, flags, vertex_of_edge, lower, spacing], outputs=[verts], device=device)
        cells = (nx - 1) * (ny - 1) * (nz - 1)
        cases = empty(cells, dtype=int32, device=device)
        counts = empty(cells, dtype=int32, device=device)
        launch(_cell_cases, dim=(nx - 1, ny - 1, nz - 1),
               inputs=[field, thr, corner_offsets, tri_range], outputs=[cases, counts], device=device)
        first_tri = empty(cells, dtype=int32, device=device)
        array_scan(counts, first_tri, inclusive=False)
        n_tris = int(first_tri[cells - 1 : cells].numpy()[0] + counts[cells - 1 : cells].numpy()[0])
        indices = zeros(3 * n_tris, dtype=int32, device=device)
        if n_tris:
            launch(_cell_triangles, dim=(nx - 1, ny - 1, nz - 1),
                   inputs=[field, cases, first_tri, tri_range, tri_edges, edge_base, vertex_of_edge],
                   outputs=[indices], device=device)
        return verts, indices
