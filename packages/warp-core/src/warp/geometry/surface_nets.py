"""Iso-surface extraction by (naive) surface nets, as warp kernels.

Every cell whose corners lie on both sides of the threshold gets one vertex, the mean of the
points where the surface crosses the cell's edges (linear interpolation, as in marching cubes).
Every grid edge the surface crosses, away from the grid's boundary, gets one quad joining the
vertices of the four cells around it, oriented so that its normal points towards larger field
values; ``topology="triangle"`` splits each quad ``(a, b, c, d)`` into ``(a, b, c)`` and
``(a, c, d)``. Vertex positions are computed by a kernel, so a ``wp.Tape`` differentiates them.
"""

from __future__ import annotations

from typing import Any


import warp
from warp.arrays import array, array2d, array3d, empty, zeros
from warp.decorators import func, kernel
from warp.geometry.grid import (
    cell_edge_index, cell_index, check_field, edge_base, edge_end, edge_flags, edge_index, exclusive_scan,
    node_bounds, vec3,
)
from warp.geometry.marching_cubes import IsoSurfaceBase
from warp.runtime.launch import launch
from warp.types.scalars import float32, int32

TOPOLOGIES = ("triangle", "quad")


@kernel
def _active_cells(
    field: array3d(dtype=float32),
    quads: array(dtype=int32),
    edges_of_cell: array2d(dtype=int32),
    active: array(dtype=int32),
) -> None:
    # a cell gets a vertex when one of its edges carries a quad (a crossed edge with all four
    # cells around it inside the grid); crossings on the grid's boundary alone make no vertex
    i, j, k = warp.tid()
    flag = 0
    for e in range(12):
        if quads[cell_edge_index(field, edges_of_cell, e, i, j, k)] != 0:
            flag = 1
    active[cell_index(field, i, j, k)] = flag


@kernel
def _cell_vertices(
    field: array3d(dtype=float32),
    threshold: float32,
    active: array(dtype=int32),
    vertex_of_cell: array(dtype=int32),
    edges_of_cell: array2d(dtype=int32),
    lower: vec3,
    spacing: vec3,
    verts: array(dtype=vec3),
) -> None:
    i, j, k = warp.tid()
    cell = cell_index(field, i, j, k)
    if active[cell] != 0:
        sx = float(0.0)
        sy = float(0.0)
        sz = float(0.0)
        count = float(0.0)
        for e in range(12):
            i0 = i + edges_of_cell[e, 0]
            j0 = j + edges_of_cell[e, 1]
            k0 = k + edges_of_cell[e, 2]
            q = edge_end(edges_of_cell[e, 3], i0, j0, k0)
            f0 = field[i0, j0, k0]
            f1 = field[q[0], q[1], q[2]]
            if (f0 < threshold) != (f1 < threshold):
                t = (threshold - f0) / (f1 - f0)
                sx = sx + float(i0) + t * float(q[0] - i0)
                sy = sy + float(j0) + t * float(q[1] - j0)
                sz = sz + float(k0) + t * float(q[2] - k0)
                count = count + 1.0
        verts[vertex_of_cell[cell]] = vec3(
            lower[0] + sx / count * spacing[0],
            lower[1] + sy / count * spacing[1],
            lower[2] + sz / count * spacing[2],
        )


@func
def _quad_frame(d: int) -> tuple[int, int, int, int, int, int]:
    # the two axes after d in cyclic order: (u, v) with u x v = +d
    ux = 0
    uy = 0
    uz = 0
    vx = 0
    vy = 0
    vz = 0
    if d == 0:
        uy = 1
        vz = 1
    if d == 1:
        uz = 1
        vx = 1
    if d == 2:
        ux = 1
        vy = 1
    return ux, uy, uz, vx, vy, vz


@kernel
def _edge_quads(
    field: array3d(dtype=float32), flags: array(dtype=int32), quads: array(dtype=int32)
) -> None:
    d, i, j, k = warp.tid()
    e = edge_index(field, d, i, j, k)
    ux, uy, uz, vx, vy, vz = _quad_frame(d)
    q = 0
    if flags[e] != 0:
        # the four cells around the edge exist: one step back along u and v stays in the grid, and the
        # node is not on the last layer along u or v
        if i - ux - vx >= 0 and j - uy - vy >= 0 and k - uz - vz >= 0:
            if i + ux + vx < field.shape[0] and j + uy + vy < field.shape[1] and k + uz + vz < field.shape[2]:
                q = 1
    quads[e] = q


@kernel
def _emit_quads(
    field: array3d(dtype=float32),
    threshold: float32,
    quads: array(dtype=int32),
    first_quad: array(dtype=int32),
    vertex_of_cell: array(dtype=int32),
    triangles: int,
    indices: array(dtype=int32),
) -> None:
    d, i, j, k = warp.tid()
    e = edge_index(field, d, i, j, k)
    if quads[e] != 0:
        ux, uy, uz, vx, vy, vz = _quad_frame(d)
        c00 = vertex_of_cell[cell_index(field, i - ux - vx, j - uy - vy, k - uz - vz)]
        c10 = vertex_of_cell[cell_index(field, i - vx, j - vy, k - vz)]
        c11 = vertex_of_cell[cell_index(field, i, j, k)]
        c01 = vertex_of_cell[cell_index(field, i - ux, j - uy, k - uz)]
        a = c00
        b = c10
        c = c11
        dd = c01
        if field[i, j, k] >= threshold:  # the field decreases along +d: reverse the quad
            b = c01
            dd = c10
        if triangles != 0:
            o = first_quad[e] * 6
            indices[o + 0] = a
            indices[o + 1] = b
            indices[o + 2] = c
            indices[o + 3] = a
            indices[o + 4] = c
            indices[o + 5] = dd
        else:
            o = first_quad[e] * 4
            indices[o + 0] = a
            indices[o + 1] = b
            indices[o + 2] = c
            indices[o + 3] = dd


def _check_topology(topology: str) -> str:
    if topology not in TOPOLOGIES:
        raise ValueError(f"topology must be one of {TOPOLOGIES}, got {topology!r}")
    return topology


class IsoSurfaceNets(IsoSurfaceBase):
    """Surface nets over a dense ``(nx, ny, nz)`` grid of float32 values on nodes.

    Node placement (``lower``/``upper``) as :class:`IsoSurfaceMarchingCubes`. After
    ``surface(field, threshold)``, ``verts`` holds one ``vec3`` per cell the surface crosses and
    ``indices`` 3 (``topology="triangle"``) or 4 (``"quad"``) vertex numbers per face.
    """

    def __init__(
        self,
        nx: int,
        ny: int,
        nz: int,
        device: Any = None,
        lower: Any = None,
        upper: Any = None,
        topology: str = "triangle",
    ) -> None:
        super().__init__(nx, ny, nz, device)
        self.lower = lower
        self.upper = upper
        self.topology = _check_topology(topology)
        self._tables = (array(edge_base(), dtype=int32, device=self.device),)

    def surface(self, field: array, threshold: float) -> None:
        """Extract the surface ``field == threshold`` into ``self.verts`` and ``self.indices``."""
        self._check_grid(field, "surface nets")
        self.verts, self.indices = self._extract(field, float(threshold))

    @classmethod
    def extract(
        cls,
        field: array,
        threshold: float = 0.0,
        lower: Any = None,
        upper: Any = None,
        topology: str = "triangle",
        device: Any = None,
    ) -> tuple[array, array]:
        """Extract ``field == threshold`` in one call; returns ``(verts, indices)``."""
        check_field("surface nets", field)
        device = device if device is not None else field.device
        nx, ny, nz = field.shape
        iso = cls(nx, ny, nz, device=device, lower=lower, upper=upper, topology=topology)
        return iso._extract(field, float(threshold))

    def _extract(self, field: array, threshold: float) -> tuple[array, array]:
        nx, ny, nz = field.shape
        device = field.device
        edges_of_cell = self._tables[0]
        lower, spacing = node_bounds(field.shape, self.lower, self.upper)
        thr = float32(threshold)
        cells = (nx - 1, ny - 1, nz - 1)
        flags = empty(3 * nx * ny * nz, dtype=int32, device=device)
        launch(edge_flags, dim=(3, nx, ny, nz), inputs=[field, thr, flags], device=device)
        quads = empty(3 * nx * ny * nz, dtype=int32, device=device)
        launch(_edge_quads, dim=(3, nx, ny, nz), inputs=[field, flags], outputs=[quads], device=device)
        active = empty(cells[0] * cells[1] * cells[2], dtype=int32, device=device)
        launch(
            _active_cells, dim=cells, inputs=[field, quads, edges_of_cell], outputs=[active], device=device
        )
        vertex_of_cell, n_verts = exclusive_scan(active)
        verts = zeros(n_verts, dtype=vec3, device=device, requires_grad=field.requires_grad)
        if n_verts:
            launch(
                _cell_vertices,
                dim=cells,
                inputs=[field, thr, active, vertex_of_cell, edges_of_cell, lower, spacing],
                outputs=[verts],
                device=device,
            )
        first_quad, n_quads = exclusive_scan(quads)
        triangles = self.topology == "triangle"
        indices = zeros(n_quads * (6 if triangles else 4), dtype=int32, device=device)
        if n_quads:
            launch(
                _emit_quads,
                dim=(3, nx, ny, nz),
                inputs=[field, thr, quads, first_quad, vertex_of_cell, int(triangles)],
                outputs=[indices],
                device=device,
            )
        return verts, indices
