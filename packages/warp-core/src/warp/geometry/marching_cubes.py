"""Iso-surface extraction from dense 3-D fields by marching cubes, as warp kernels.

Three passes: (1) every grid edge whose ends lie on opposite sides of the threshold gets a flag,
an exclusive scan turns the flags into vertex numbers and a kernel places each vertex on its edge
by linear interpolation, so neighbouring cells share vertices; (2) every cell counts the triangles
of its case and a scan gives each cell its first triangle; (3) every cell writes its triangles'
vertex numbers. Vertex positions are computed by a kernel from the field, so a ``wp.Tape``
differentiates them with respect to the field values.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

import warp
from warp.arrays import array, array2d, array3d, empty, zeros
from warp.decorators import kernel
from warp.geometry import mc_tables
from warp.runtime.devices import get_device
from warp.runtime.launch import launch
from warp.geometry.grid import (
    cell_edge_index, cell_index, check_field, edge_base, edge_end, edge_flags, edge_index, exclusive_scan,
    node_bounds, vec3,
)
from warp.types.scalars import float32, int32


@kernel
def _edge_vertices(
    field: array3d(dtype=float32),
    threshold: float32,
    flags: array(dtype=int32),
    vertex_of_edge: array(dtype=int32),
    lower: vec3,
    spacing: vec3,
    verts: array(dtype=vec3),
) -> None:
    d, i, j, k = warp.tid()
    e = edge_index(field, d, i, j, k)
    if flags[e] != 0:
        q = edge_end(d, i, j, k)
        f0 = field[i, j, k]
        f1 = field[q[0], q[1], q[2]]
        t = (threshold - f0) / (f1 - f0)
        verts[vertex_of_edge[e]] = vec3(
            lower[0] + (float(i) + t * float(q[0] - i)) * spacing[0],
            lower[1] + (float(j) + t * float(q[1] - j)) * spacing[1],
            lower[2] + (float(k) + t * float(q[2] - k)) * spacing[2],
        )


@kernel
def _cell_cases(
    field: array3d(dtype=float32),
    threshold: float32,
    corner_offsets: array2d(dtype=int32),
    tri_range: array(dtype=int32),
    cases: array(dtype=int32),
    counts: array(dtype=int32),
) -> None:
    i, j, k = warp.tid()
    case = 0
    for c in range(8):
        if field[i + corner_offsets[c, 0], j + corner_offsets[c, 1], k + corner_offsets[c, 2]] < threshold:
            case = case | (1 << c)
    cell = cell_index(field, i, j, k)
    cases[cell] = case
    counts[cell] = tri_range[case + 1] - tri_range[case]


@kernel
def _cell_triangles(
    field: array3d(dtype=float32),
    cases: array(dtype=int32),
    first_tri: array(dtype=int32),
    tri_range: array(dtype=int32),
    tri_edges: array(dtype=int32),
    edge_base: array2d(dtype=int32),
    vertex_of_edge: array(dtype=int32),
    indices: array(dtype=int32),
) -> None:
    i, j, k = warp.tid()
    cell = cell_index(field, i, j, k)
    case = cases[cell]
    start = tri_range[case] * 3
    shift = first_tri[cell] * 3 - start
    for n in range(start, tri_range[case + 1] * 3):
        indices[n + shift] = vertex_of_edge[cell_edge_index(field, edge_base, tri_edges[n], i, j, k)]


def _warn_renamed(old: str, new: str) -> None:
    warnings.warn(f"{old} is deprecated. Use `{new}` instead.", DeprecationWarning, stacklevel=3)


def _canonical_bound(name: str, value: Any, legacy: str, legacy_value: Any) -> Any:
    """``value``, or the deprecated ``legacy`` argument's value (with a warning); not both."""
    if value is not None and legacy_value is not None:
        raise TypeError(f"Cannot specify both `{name}` and `{legacy}`")
    if legacy_value is not None:
        warnings.warn(
            f"argument `{legacy}` is deprecated. Use `{name}` instead.", DeprecationWarning, stacklevel=4
        )
        return legacy_value
    return value


class IsoSurfaceBase:
    """The interface of iso-surface extractors: ``surface(field, threshold)`` fills ``verts``/``indices``."""

    def __init__(self, nx: int, ny: int, nz: int, device: Any = None) -> None:
        if type(self) is IsoSurfaceBase:
            raise TypeError("IsoSurfaceBase is an interface; construct IsoSurfaceMarchingCubes")
        self.nx, self.ny, self.nz = int(nx), int(ny), int(nz)
        self.device = get_device(device)
        self.verts: array | None = None  # set by surface()
        self.indices: array | None = None

    def surface(self, field: array, threshold: float) -> None:
        """Extract the surface ``field == threshold`` into ``self.verts`` and ``self.indices``."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement surface() (IsoSurfaceBase is an interface)"
        )

    def _check_grid(self, field: array, what: str) -> None:
        """Raise unless ``field`` is a float32 field on this extractor's grid (``what`` names it)."""
        check_field(what, field)
        if field.shape != (self.nx, self.ny, self.nz):
            raise ValueError(
                f"field shape {field.shape} differs from the extractor's grid "
                f"({self.nx}, {self.ny}, {self.nz}); call resize() first"
            )

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

    def __init__(
        self,
        nx: int,
        ny: int,
        nz: int,
        max_verts: int = 0,
        max_tris: int = 0,
        device: Any = None,
        lower: Any = None,
        upper: Any = None,
        domain_bounds_lower_corner: Any = None,
        domain_bounds_upper_corner: Any = None,
    ) -> None:
        super().__init__(nx, ny, nz, device)
        self.lower = _canonical_bound(
            "lower", lower, "domain_bounds_lower_corner", domain_bounds_lower_corner
        )
        self.upper = _canonical_bound(
            "upper", upper, "domain_bounds_upper_corner", domain_bounds_upper_corner
        )
        self._tables = (
            array(np.array(self.CUBE_CORNER_OFFSETS, dtype=np.int32), dtype=int32, device=self.device),
            array(np.array(self.CASE_TO_TRI_RANGE, dtype=np.int32), dtype=int32, device=self.device),
            array(np.array(self.TRI_LOCAL_INDICES, dtype=np.int32), dtype=int32, device=self.device),
            array(edge_base(), dtype=int32, device=self.device),
        )

    def surface(self, field: array, threshold: float) -> None:
        """Extract the surface ``field == threshold`` into ``self.verts`` and ``self.indices``."""
        self._check_grid(field, "marching cubes")
        self.verts, self.indices = self._extract(field, float(threshold))

    @classmethod
    def extract(
        cls, field: array, threshold: float = 0.0, lower: Any = None, upper: Any = None, device: Any = None
    ) -> tuple[array, array]:
        """Extract ``field == threshold`` in one call; returns ``(verts, indices)``."""
        check_field("marching cubes", field)
        device = device if device is not None else field.device
        iso = cls(*field.shape, device=device, lower=lower, upper=upper)
        return iso._extract(field, float(threshold))

    @classmethod
    def extract_surface_marching_cubes(
        cls, field: array, threshold: float = 0.0, lower: Any = None, upper: Any = None, device: Any = None
    ) -> tuple[array, array]:
        """Deprecated name of :meth:`extract`."""
        warnings.warn(
            "MarchingCubes.extract_surface_marching_cubes() is deprecated; use "
            "IsoSurfaceMarchingCubes.extract() instead",
            DeprecationWarning,
            stacklevel=2,
        )
        return cls.extract(field, threshold, lower=lower, upper=upper, device=device)

    @property
    def domain_bounds_lower_corner(self) -> Any:
        """Deprecated name of ``lower``."""
        _warn_renamed("IsoSurfaceMarchingCubes.domain_bounds_lower_corner", "lower")
        return self.lower

    @domain_bounds_lower_corner.setter
    def domain_bounds_lower_corner(self, value: Any) -> None:
        _warn_renamed("IsoSurfaceMarchingCubes.domain_bounds_lower_corner", "lower")
        self.lower = value

    @property
    def domain_bounds_upper_corner(self) -> Any:
        """Deprecated name of ``upper``."""
        _warn_renamed("IsoSurfaceMarchingCubes.domain_bounds_upper_corner", "upper")
        return self.upper

    @domain_bounds_upper_corner.setter
    def domain_bounds_upper_corner(self, value: Any) -> None:
        _warn_renamed("IsoSurfaceMarchingCubes.domain_bounds_upper_corner", "upper")
        self.upper = value

    def _extract(self, field: array, threshold: float) -> tuple[array, array]:
        nx, ny, nz = field.shape
        device = field.device
        corner_offsets, tri_range, tri_edges, edges_of_cell = self._tables
        lower, spacing = node_bounds(field.shape, self.lower, self.upper)
        thr = float32(threshold)
        flags = empty(3 * nx * ny * nz, dtype=int32, device=device)
        launch(edge_flags, dim=(3, nx, ny, nz), inputs=[field, thr, flags], device=device)
        vertex_of_edge, n_verts = exclusive_scan(flags)
        verts = zeros(n_verts, dtype=vec3, device=device, requires_grad=field.requires_grad)
        if n_verts:
            launch(
                _edge_vertices,
                dim=(3, nx, ny, nz),
                inputs=[field, thr, flags, vertex_of_edge, lower, spacing],
                outputs=[verts],
                device=device,
            )
        cells = (nx - 1) * (ny - 1) * (nz - 1)
        cases = empty(cells, dtype=int32, device=device)
        counts = empty(cells, dtype=int32, device=device)
        launch(
            _cell_cases,
            dim=(nx - 1, ny - 1, nz - 1),
            inputs=[field, thr, corner_offsets, tri_range],
            outputs=[cases, counts],
            device=device,
        )
        first_tri, n_tris = exclusive_scan(counts)
        indices = zeros(3 * n_tris, dtype=int32, device=device)
        if n_tris:
            launch(
                _cell_triangles,
                dim=(nx - 1, ny - 1, nz - 1),
                inputs=[field, cases, first_tri, tri_range, tri_edges, edges_of_cell, vertex_of_edge],
                outputs=[indices],
                device=device,
            )
        return verts, indices
