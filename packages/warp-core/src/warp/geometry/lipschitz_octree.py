"""The Lipschitz octree: the cells of a grid where a field with a known Lipschitz bound may reach a level.

A field ``f`` with Lipschitz bound ``L`` (an exact signed distance has ``L = 1``) changes by at most
``L * r`` within distance ``r`` of a point. A cell whose centre value satisfies
``|f(centre) - level| > L * (half its diagonal)`` cannot contain the level set, nor can any of its
sub-cells. Starting from one root cell, each level evaluates the field at the centres of the
candidate cells (one batched call of the caller's ``evaluate``), keeps those that may contain the
level and splits them into their 8 children; the kept cells of the last level are the leaves.
Work and evaluations grow with the surface's area, not the grid's volume.

The refinement runs in index space: the root spans ``2**depth`` leaf cells per axis, leaf ``p``
spans ``lower + spacing * [p, p + 1]`` (``spacing`` may differ per axis), and cells lying wholly
beyond ``cells_per_axis`` (padding up to the power of two) are dropped before they are evaluated.
The octree's kernels are launched outside any ``wp.Tape`` (``record_tape=False``): the choice of
cells is not differentiated.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

import warp
from warp.arrays import array, empty
from warp.functions import Function
from warp.geometry.grid import exclusive_scan, vec3, vec3i
from warp.runtime.devices import get_device
from warp.runtime.launch import launch
from warp.types.scalars import float32, int32


@warp.kernel(enable_backward=False)
def cell_points(
    cells: warp.array(dtype=vec3i),
    width: int32,
    offset: float32,
    lower: vec3,
    spacing: vec3,
    points: warp.array(dtype=vec3),
) -> None:
    """``points[n]`` = the point at ``offset`` (in leaf units) from the lower corner of ``cells[n]``,
    a cell of ``width`` leaf cells."""
    n = warp.tid()
    c = cells[n]
    points[n] = vec3(
        lower[0] + spacing[0] * (float(c[0] * width) + offset),
        lower[1] + spacing[1] * (float(c[1] * width) + offset),
        lower[2] + spacing[2] * (float(c[2] * width) + offset),
    )


@warp.kernel(enable_backward=False)
def _may_cross(
    values: warp.array(dtype=float32), level: float32, band: float32, flags: warp.array(dtype=int32)
) -> None:
    n = warp.tid()
    d = values[n] - level
    if d < 0.0:
        d = -d
    flags[n] = int32(d <= band)


@warp.kernel(enable_backward=False)
def _split(
    cells: warp.array(dtype=vec3i),
    flags: warp.array(dtype=int32),
    offsets: warp.array(dtype=int32),
    limit: vec3i,
    children: warp.array(dtype=vec3i),
    inside: warp.array(dtype=int32),
) -> None:
    n = warp.tid()
    if flags[n] != 0:
        c = cells[n]
        first = offsets[n] * 8
        for k in range(8):
            child = vec3i(2 * c[0] + (k & 1), 2 * c[1] + ((k >> 1) & 1), 2 * c[2] + ((k >> 2) & 1))
            children[first + k] = child
            inside[first + k] = (
                int32(child[0] < limit[0]) * int32(child[1] < limit[1]) * int32(child[2] < limit[2])
            )


@warp.kernel(enable_backward=False)
def compact(
    cells: warp.array(dtype=vec3i),
    flags: warp.array(dtype=int32),
    offsets: warp.array(dtype=int32),
    out: warp.array(dtype=vec3i),
) -> None:
    """``out[offsets[n]] = cells[n]`` where ``flags[n]`` is set."""
    n = warp.tid()
    if flags[n] != 0:
        out[offsets[n]] = cells[n]


def check_evaluate(evaluate: Any, what: str) -> None:
    """Raise ``TypeError`` unless ``evaluate`` is a batched Python callable (not a ``@wp.func``)."""
    if isinstance(evaluate, Function):
        raise TypeError(
            f"{what}: evaluate must be a batched Python callable evaluate(points: wp.array(dtype=wp.vec3)) "
            f"-> wp.array(dtype=wp.float32), not the @wp.func '{evaluate.__name__}'; launch a kernel "
            "calling it from such a callable"
        )
    if not callable(evaluate):
        raise TypeError(
            f"{what}: evaluate must be a callable evaluate(points: wp.array(dtype=wp.vec3)) -> "
            f"wp.array(dtype=wp.float32), got {type(evaluate).__name__}"
        )


def check_lipschitz_bound(lipschitz_bound: float, what: str) -> float:
    """The bound as a float; ``ValueError`` unless it is finite and positive."""
    bound = float(lipschitz_bound)
    if not np.isfinite(bound) or bound <= 0.0:
        raise ValueError(f"{what}: lipschitz_bound must be positive, got {lipschitz_bound}")
    return bound


def evaluate_points(evaluate: Callable[[array], Any], points: array, what: str) -> array:
    """``evaluate(points)``, checked: a float32 wp.array of one value per point on their device."""
    values = evaluate(points)
    if not isinstance(values, array):
        raise TypeError(
            f"{what}: evaluate must return a wp.array of float32 values, got {type(values).__name__}"
        )
    n = points.shape[0]
    if values.dtype != float32 or values.ndim != 1 or values.shape[0] != n:
        raise ValueError(
            f"{what}: evaluate returned an array of {getattr(values.dtype, '__name__', values.dtype)} "
            f"with shape {values.shape}; expected {n} float32 values (one per point)"
        )
    if values.device != points.device:
        raise ValueError(
            f"{what}: evaluate returned values on {values.device}, the points are on {points.device}"
        )
    return values


def refine(
    evaluate: Callable[[array], Any],
    lower: np.ndarray,
    spacing: np.ndarray,
    cells_per_axis: tuple[int, int, int],
    depth: int,
    level: float,
    lipschitz_bound: float,
    device: Any,
    what: str,
) -> tuple[array, int, int]:
    """The leaf cells (vec3i subscripts in leaf units) that may hold ``f == level``, the number of
    field evaluations made and the number of cells dropped as padding."""
    lo, step = vec3(*lower), vec3(*spacing)
    half_diagonal = 0.5 * float(np.linalg.norm(spacing))
    cells = array(np.zeros((1, 3), dtype=np.int32), dtype=vec3i, device=device)
    evaluations = culled = 0
    for d in range(depth + 1):
        n = cells.shape[0]
        if n == 0:
            break
        width = 1 << (depth - d)
        points = empty(n, dtype=vec3, device=device)
        launch(cell_points, dim=n, inputs=[cells, int32(width), float32(0.5 * width), lo, step, points],
               device=device, record_tape=False)
        values = evaluate_points(evaluate, points, what)
        evaluations += n
        flags = empty(n, dtype=int32, device=device)
        band = float32(lipschitz_bound * half_diagonal * width)
        launch(_may_cross, dim=n, inputs=[values, float32(level), band, flags],
               device=device, record_tape=False)
        offsets, kept = exclusive_scan(flags)
        if d == depth:
            leaves = empty(kept, dtype=vec3i, device=device)
            if kept:
                launch(compact, dim=n, inputs=[cells, flags, offsets, leaves],
                       device=device, record_tape=False)
            return leaves, evaluations, culled
        child_width = width >> 1
        limit = vec3i(*(-(-c // child_width) for c in cells_per_axis))
        children = empty(8 * kept, dtype=vec3i, device=device)
        inside = empty(8 * kept, dtype=int32, device=device)
        if kept:
            launch(_split, dim=n, inputs=[cells, flags, offsets, limit, children, inside],
                   device=device, record_tape=False)
            offsets, n_inside = exclusive_scan(inside)
            culled += 8 * kept - n_inside
            cells = empty(n_inside, dtype=vec3i, device=device)
            if n_inside:
                launch(compact, dim=8 * kept, inputs=[children, inside, offsets, cells],
                       device=device, record_tape=False)
        else:
            cells = children
    return empty(0, dtype=vec3i, device=device), evaluations, culled


def lipschitz_octree(
    evaluate: Callable[[array], Any],
    origin: Any,
    root_width: float,
    max_depth: int,
    lipschitz_bound: float = 1.0,
    threshold: float = 0.0,
    device: Any = None,
) -> tuple[array, float]:
    """The leaf cells of an octree refined where ``evaluate``'s field may equal ``threshold``.

    ``evaluate(points)`` takes a ``wp.array(dtype=wp.vec3)`` and returns one float32 value per
    point (a ``wp.array`` on the points' device); the field must be ``lipschitz_bound``-Lipschitz
    (1 for a signed distance). The root cell is the cube ``origin + [0, root_width]^3``, refined
    ``max_depth`` times. Returns ``(cells, cell_width)``: the leaves' integer subscripts (a vec3i
    array; leaf ``c`` spans ``origin + cell_width * [c, c + 1]``) and the leaf width
    ``root_width / 2**max_depth``. Every leaf whose corners straddle the level is among them.
    """
    what = "lipschitz_octree"
    check_evaluate(evaluate, what)
    bound = check_lipschitz_bound(lipschitz_bound, what)
    depth = int(max_depth)
    if depth < 0:
        raise ValueError(f"{what}: max_depth must not be negative, got {max_depth}")
    if depth > 30:
        raise ValueError(f"{what}: max_depth {depth} is too deep for int32 cell subscripts (at most 30)")
    width = float(root_width)
    if not np.isfinite(width) or width <= 0.0:
        raise ValueError(f"{what}: root_width must be positive, got {root_width}")
    lower = np.array([float(v) for v in origin], dtype=np.float64)
    if lower.shape != (3,):
        raise ValueError(f"{what}: origin must have 3 coordinates, got {len(lower)}")
    cell_width = width / (1 << depth)
    resolution = 1 << depth
    cells, _, _ = refine(
        evaluate, lower, np.full(3, cell_width), (resolution,) * 3, depth, float(threshold), bound,
        get_device(device), what,
    )
    return cells, cell_width
