"""Marching cubes over an explicit list of cells (``sparse_marching_cubes_from_cells``), as warp kernels.

Each cell is given by its integer subscripts ``(i, j, k)`` (its lower corner, in units of the cell
width) and the field's values at its eight corners, ordered as
``IsoSurfaceMarchingCubes.CUBE_CORNER_OFFSETS``. Every cell edge the surface crosses is named by a
64-bit key (its lower node and axis); a stable sort of the keys groups the cells sharing an edge,
so each crossed edge becomes one vertex, placed from the first cell (in cell order) that names it,
and neighbouring cells' triangles share it. Given the corner values of the cells of a dense grid,
the triangles, vertex positions and orientations are those of :class:`IsoSurfaceMarchingCubes`.

Subscripts are taken relative to the smallest one, the difference folded into the origin in
double precision, so that subscripts past float32's exact-integer range still give exact
positions. Vertex positions are computed by a kernel from the corner values, so a ``wp.Tape``
differentiates them with respect to those values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import warp
from warp.arrays import array, empty, full, zeros
from warp.geometry import mc_tables
from warp.geometry.grid import axis_step, edge_base, exclusive_scan, vec3, vec3i
from warp.runtime.devices import get_device
from warp.runtime.launch import launch
from warp.utils import radix_sort_pairs
from warp.types.scalars import float32, int32, int64

#: largest number of distinct edge keys (3 per node of the cells' bounding box) the 64-bit keys hold
_MAX_KEYS = 1 << 62


def edge_corners() -> np.ndarray:
    """Per cell edge: its lower corner and its upper corner (int32, shape (12, 2))."""
    rows = []
    for a, b in mc_tables.EDGE_TO_CORNERS:
        oa, ob = mc_tables.CUBE_CORNER_OFFSETS[a], mc_tables.CUBE_CORNER_OFFSETS[b]
        rows.append([a, b] if sum(oa) < sum(ob) else [b, a])
    return np.array(rows, dtype=np.int32)


@warp.kernel(enable_backward=False)
def _cell_bounds(
    cells: warp.array(dtype=vec3i), lo: warp.array(dtype=int32), hi: warp.array(dtype=int32)
) -> None:
    c = warp.tid()
    p = cells[c]
    for a in range(3):
        warp.atomic_min(lo, a, p[a])
        warp.atomic_max(hi, a, p[a])


@warp.kernel(enable_backward=False)
def _shift_cells(cells: warp.array(dtype=vec3i), base: vec3i, out: warp.array(dtype=vec3i)) -> None:
    c = warp.tid()
    p = cells[c]
    out[c] = vec3i(p[0] - base[0], p[1] - base[1], p[2] - base[2])


@warp.func
def _crossed(case: int32, corners_of_edge: warp.array2d(dtype=int32), e: int32) -> bool:
    """Whether cell edge ``e`` joins a corner below the threshold to one above it in ``case``."""
    return ((case >> corners_of_edge[e, 0]) & 1) != ((case >> corners_of_edge[e, 1]) & 1)


@warp.kernel(enable_backward=False)
def _cell_cases(
    values: warp.array2d(dtype=float32),
    threshold: float32,
    corners_of_edge: warp.array2d(dtype=int32),
    tri_range: warp.array(dtype=int32),
    cases: warp.array(dtype=int32),
    tri_counts: warp.array(dtype=int32),
    edge_counts: warp.array(dtype=int32),
) -> None:
    c = warp.tid()
    case = 0
    for k in range(8):
        if values[c, k] < threshold:
            case = case | (1 << k)
    crossed = 0
    for e in range(12):
        if _crossed(case, corners_of_edge, e):
            crossed = crossed + 1
    cases[c] = case
    tri_counts[c] = tri_range[case + 1] - tri_range[case]
    edge_counts[c] = crossed


@warp.kernel(enable_backward=False)
def _edge_keys(
    cells: warp.array(dtype=vec3i),
    cases: warp.array(dtype=int32),
    first_edge: warp.array(dtype=int32),
    corners_of_edge: warp.array2d(dtype=int32),
    edges_of_cell: warp.array2d(dtype=int32),
    ny: int64,
    nz: int64,
    keys: warp.array(dtype=int64),
    sources: warp.array(dtype=int32),
) -> None:
    # key of an edge: its lower node's number in the (nx, ny, nz) node box, times 3, plus its axis
    c = warp.tid()
    case = cases[c]
    p = cells[c]
    n = first_edge[c]
    for e in range(12):
        if _crossed(case, corners_of_edge, e):
            i = int64(p[0] + edges_of_cell[e, 0])
            j = int64(p[1] + edges_of_cell[e, 1])
            k = int64(p[2] + edges_of_cell[e, 2])
            keys[n] = ((i * ny + j) * nz + k) * int64(3) + int64(edges_of_cell[e, 3])
            sources[n] = c * 12 + e
            n = n + 1


@warp.kernel(enable_backward=False)
def run_starts(keys: warp.array(dtype=int64), starts: warp.array(dtype=int32)) -> None:
    """``starts[s]`` is 1 where sorted ``keys[s]`` begins a run of equal keys, else 0."""
    s = warp.tid()
    flag = 1
    if s > 0:
        if keys[s] == keys[s - 1]:
            flag = 0
    starts[s] = flag


@warp.func
def run_number(starts: warp.array(dtype=int32), run_ids: warp.array(dtype=int32), s: int32) -> int32:
    """The number of the run sorted entry ``s`` belongs to (see :func:`sort_and_number`)."""
    return run_ids[s] + starts[s] - 1


@warp.kernel(enable_backward=False)
def _number_edges(
    sources: warp.array(dtype=int32),
    starts: warp.array(dtype=int32),
    run_ids: warp.array(dtype=int32),
    edge_vertex: warp.array(dtype=int32),
    vertex_source: warp.array(dtype=int32),
) -> None:
    s = warp.tid()
    v = run_number(starts, run_ids, s)
    edge_vertex[sources[s]] = v
    if starts[s] != 0:
        vertex_source[v] = sources[s]


@warp.kernel
def _place_vertices(
    cells: warp.array(dtype=vec3i),
    values: warp.array2d(dtype=float32),
    threshold: float32,
    vertex_source: warp.array(dtype=int32),
    corners_of_edge: warp.array2d(dtype=int32),
    edges_of_cell: warp.array2d(dtype=int32),
    origin: vec3,
    spacing: vec3,
    verts: warp.array(dtype=vec3),
) -> None:
    v = warp.tid()
    src = vertex_source[v]
    c = src // 12
    e = src - c * 12
    f0 = values[c, corners_of_edge[e, 0]]
    f1 = values[c, corners_of_edge[e, 1]]
    t = (threshold - f0) / (f1 - f0)
    p = cells[c]
    s = axis_step(edges_of_cell[e, 3])
    verts[v] = vec3(
        origin[0] + (float(p[0] + edges_of_cell[e, 0]) + t * float(s[0])) * spacing[0],
        origin[1] + (float(p[1] + edges_of_cell[e, 1]) + t * float(s[1])) * spacing[1],
        origin[2] + (float(p[2] + edges_of_cell[e, 2]) + t * float(s[2])) * spacing[2],
    )


@warp.kernel(enable_backward=False)
def _cell_triangles(
    cases: warp.array(dtype=int32),
    first_tri: warp.array(dtype=int32),
    tri_range: warp.array(dtype=int32),
    tri_edges: warp.array(dtype=int32),
    edge_vertex: warp.array(dtype=int32),
    indices: warp.array(dtype=int32),
) -> None:
    c = warp.tid()
    case = cases[c]
    start = tri_range[case] * 3
    shift = first_tri[c] * 3 - start
    for n in range(start, tri_range[case + 1] * 3):
        indices[n + shift] = edge_vertex[c * 12 + tri_edges[n]]


class _Tables:
    """The marching-cubes tables as arrays on one device (made per extraction: 4 small copies; a
    cache would outlive a device's context)."""

    def __init__(self, device: Any) -> None:
        self.corners_of_edge = array(edge_corners(), dtype=int32, device=device)
        self.edges_of_cell = array(edge_base(), dtype=int32, device=device)
        self.tri_range = array(np.array(mc_tables.CASE_TO_TRI_RANGE, dtype=np.int32), device=device)
        self.tri_edges = array(np.array(mc_tables.TRI_LOCAL_INDICES, dtype=np.int32), device=device)


def sort_and_number(keys: array, sources: array, count: int) -> tuple[array, array, int]:
    """Sort the first ``count`` (key, source) pairs by key (stably, in place; both arrays hold
    ``2 * count`` entries) and number the distinct keys in order. Returns ``(starts, run_ids, n)``:
    sorted entry ``s`` has the number ``run_ids[s] + starts[s] - 1`` and begins its run where
    ``starts[s]`` is 1; ``n`` is the number of distinct keys."""
    device = keys.device
    radix_sort_pairs(keys, sources, count)
    starts = empty(count, dtype=int32, device=device)
    launch(run_starts, dim=count, inputs=[keys, starts], device=device, record_tape=False)
    run_ids, n = exclusive_scan(starts)
    return starts, run_ids, n


def extract_cells(
    cells: array, values: array, threshold: float, origin: Any, spacing: Any, nodes: tuple[int, int, int]
) -> tuple[array, array]:
    """Marching cubes over ``cells`` (vec3i subscripts, all within ``[0, nodes - 1)``) with corner
    ``values`` (shape ``(len(cells), 8)``); node ``p`` lies at ``origin + spacing * p``."""
    device = cells.device
    tables = _Tables(device)
    n_cells = cells.shape[0]
    thr = float32(threshold)
    cases = empty(n_cells, dtype=int32, device=device)
    tri_counts = empty(n_cells, dtype=int32, device=device)
    edge_counts = empty(n_cells, dtype=int32, device=device)
    launch(
        _cell_cases,
        dim=n_cells,
        inputs=[values, thr, tables.corners_of_edge, tables.tri_range],
        outputs=[cases, tri_counts, edge_counts],
        device=device,
        record_tape=False,
    )
    first_edge, n_entries = exclusive_scan(edge_counts)
    verts = zeros(0, dtype=vec3, device=device, requires_grad=values.requires_grad)
    if n_entries == 0:
        return verts, zeros(0, dtype=int32, device=device)
    keys = empty(2 * n_entries, dtype=int64, device=device)
    sources = empty(2 * n_entries, dtype=int32, device=device)
    launch(
        _edge_keys,
        dim=n_cells,
        inputs=[cells, cases, first_edge, tables.corners_of_edge, tables.edges_of_cell,
                int64(nodes[1]), int64(nodes[2])],
        outputs=[keys, sources],
        device=device,
        record_tape=False,
    )
    starts, run_ids, n_verts = sort_and_number(keys, sources, n_entries)
    edge_vertex = full(12 * n_cells, -1, dtype=int32, device=device)
    vertex_source = empty(n_verts, dtype=int32, device=device)
    launch(
        _number_edges,
        dim=n_entries,
        inputs=[sources, starts, run_ids],
        outputs=[edge_vertex, vertex_source],
        device=device,
        record_tape=False,
    )
    verts = zeros(n_verts, dtype=vec3, device=device, requires_grad=values.requires_grad)
    launch(
        _place_vertices,
        dim=n_verts,
        inputs=[cells, values, thr, vertex_source, tables.corners_of_edge, tables.edges_of_cell,
                vec3(*origin), vec3(*spacing)],
        outputs=[verts],
        device=device,
    )
    first_tri, n_tris = exclusive_scan(tri_counts)
    indices = zeros(3 * n_tris, dtype=int32, device=device)
    if n_tris:
        launch(
            _cell_triangles,
            dim=n_cells,
            inputs=[cases, first_tri, tables.tri_range, tables.tri_edges, edge_vertex],
            outputs=[indices],
            device=device,
            record_tape=False,
        )
    return verts, indices


# -- the public entry point: argument checks and conversions ---------------------------------------


def _as_cells(cells: Any, device: Any) -> array:
    """``cells`` as a 1-D vec3i array on ``device`` (a vec3i array, an ``(N, 3)`` int32 array, or
    anything NumPy reads as ``(N, 3)`` integers)."""
    if isinstance(cells, array):
        if cells.dtype == vec3i and cells.ndim == 1:
            return cells
        if cells.dtype == int32 and cells.ndim == 2 and cells.shape[1] == 3:
            return (cells if cells.is_contiguous else cells.contiguous()).view(vec3i)
        raise ValueError(
            "sparse_marching_cubes_from_cells: cells must be a wp.array of vec3i or an (N, 3) int32 "
            f"array, got an array of {getattr(cells.dtype, '__name__', cells.dtype)} with shape {cells.shape}"
        )
    host = np.asarray(cells)
    if host.size == 0:
        host = host.reshape(0, 3)
    if host.ndim != 2 or host.shape[1] != 3:
        raise ValueError(f"sparse_marching_cubes_from_cells: cells must have shape (N, 3), got {host.shape}")
    if not np.issubdtype(host.dtype, np.integer):
        raise TypeError(
            f"sparse_marching_cubes_from_cells: cells must be integer subscripts, got {host.dtype}"
        )
    info = np.iinfo(np.int32)
    if host.size and (host.min() < info.min or host.max() > info.max):
        raise ValueError("sparse_marching_cubes_from_cells: cell subscripts must fit in int32")
    return array(np.ascontiguousarray(host, dtype=np.int32), dtype=vec3i, device=device)


def _as_corner_values(values: Any, n_cells: int, device: Any) -> array:
    """``values`` as an ``(N, 8)`` float32 array (views are kept, so gradients reach the caller's)."""
    if isinstance(values, array):
        if values.dtype != float32:
            raise TypeError(
                "sparse_marching_cubes_from_cells: corner_values must be float32, got "
                f"{getattr(values.dtype, '__name__', values.dtype)}"
            )
        if values.ndim == 2 and values.shape == (n_cells, 8):
            return values
        if values.ndim == 1 and values.shape[0] == 8 * n_cells:
            return (values if values.is_contiguous else values.contiguous()).reshape((n_cells, 8))
        raise ValueError(
            f"sparse_marching_cubes_from_cells: corner_values of shape {values.shape} do not match "
            f"{n_cells} cells (expected ({n_cells}, 8) or ({8 * n_cells},))"
        )
    host = np.asarray(values, dtype=np.float32)
    if host.size != 8 * n_cells or host.ndim not in (1, 2) or (host.ndim == 2 and host.shape[1] != 8):
        raise ValueError(
            f"sparse_marching_cubes_from_cells: corner_values of shape {host.shape} do not match "
            f"{n_cells} cells (expected ({n_cells}, 8) or ({8 * n_cells},))"
        )
    return array(np.ascontiguousarray(host.reshape(n_cells, 8)), dtype=float32, device=device)


def _cell_width(cell_width: Any) -> np.ndarray:
    width = np.broadcast_to(np.asarray(cell_width, dtype=np.float64), (3,)).copy()
    if not np.all(np.isfinite(width)) or np.any(width <= 0.0):
        raise ValueError(f"sparse_marching_cubes_from_cells: cell_width must be positive, got {cell_width}")
    return width


def sparse_marching_cubes_from_cells(
    cells: Any,
    corner_values: Any,
    origin: Any = (0.0, 0.0, 0.0),
    cell_width: Any = 1.0,
    threshold: float = 0.0,
    device: Any = None,
) -> tuple[array, array]:
    """Extract ``field == threshold`` from the given cells; returns ``(verts, indices)``.

    ``cells`` are integer subscripts ``(N, 3)`` (or a vec3i array): cell ``c`` spans
    ``origin + cell_width * [c, c + 1]``. ``corner_values`` holds the field at each cell's 8
    corners, ``(N, 8)`` or flat, ordered as ``IsoSurfaceMarchingCubes.CUBE_CORNER_OFFSETS``.
    ``cell_width`` is a positive number or one per axis. Cells sharing an edge share its vertex;
    triangles are oriented as :class:`IsoSurfaceMarchingCubes` orients them.
    """
    if device is None:
        device = cells.device if isinstance(cells, array) else get_device()
    device = get_device(device)
    width = _cell_width(cell_width)
    cells_wp = _as_cells(cells, device)
    n_cells = cells_wp.shape[0]
    values = _as_corner_values(corner_values, n_cells, device)
    if cells_wp.device != device or values.device != device:
        raise ValueError(
            f"sparse_marching_cubes_from_cells: cells ({cells_wp.device}) and corner_values "
            f"({values.device}) must be on the device {device}"
        )
    if n_cells == 0:
        return zeros(0, dtype=vec3, device=device), zeros(0, dtype=int32, device=device)
    info = np.iinfo(np.int32)
    lo = full(3, int(info.max), dtype=int32, device=device)
    hi = full(3, int(info.min), dtype=int32, device=device)
    launch(_cell_bounds, dim=n_cells, inputs=[cells_wp, lo, hi], device=device, record_tape=False)
    base = lo.numpy().astype(np.int64)
    span = hi.numpy().astype(np.int64) - base + 2
    nodes = (int(span[0]), int(span[1]), int(span[2]))
    if max(nodes) > info.max or 3 * nodes[0] * nodes[1] * nodes[2] >= _MAX_KEYS:
        raise ValueError(
            f"sparse_marching_cubes_from_cells: the cells span {nodes} nodes, too many to number"
        )
    shifted = empty(n_cells, dtype=vec3i, device=device)
    launch(
        _shift_cells, dim=n_cells, inputs=[cells_wp, vec3i(*(int(b) for b in base)), shifted],
        device=device, record_tape=False,
    )
    lower = np.array([float(v) for v in origin], dtype=np.float64) + base * width
    return extract_cells(shifted, values, threshold, lower, width, nodes)
