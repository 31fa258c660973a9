"""The swept volume (motion envelope) of rigid meshes moving through sampled poses
(``warp.geometry.swept_volume_mesh`` and its pieces ``swept_volume_field``/``swept_volume_bounds``).

Dense stamping: every node ``p`` of a grid over the swept bounds gets

    D(p) = min over meshes m, poses s of sdf_m(X[m, s]^-1 p)

(the motion is rigid, so one closest-point query in the mesh's rest frame per pose gives the
distance); the sign comes from the chosen classifier (:class:`SweptVolumeSignMode`). Marching
cubes at ``threshold`` gives the closed envelope. Motion between the sampled poses is not
bounded: sample finely enough for the tolerance needed. A posed vertex lies within the grid's
covering radius (half a cell diagonal) of a node where ``D <= 0``, so extracting at that level
encloses every stamped pose.
"""

from __future__ import annotations

import enum
import math
from typing import Any, Sequence

import numpy as np

import warp as wp


class SweptVolumeSignMode(enum.IntEnum):
    """How the distance field tells inside from outside.

    ``NORMAL``: the closest face's normal (fast; needs watertight, consistently oriented input).
    ``WINDING_NUMBER``: the generalized winding number (robust on open shells; the meshes must be
    built with ``support_winding_number=True``). ``PARITY``: the parity of ray crossings.
    ``NO_SIGN``: the unsigned distance (the input as a shell); only a positive ``threshold``
    makes a surface, an offset on both sides of the shell.
    """

    NORMAL = 0
    WINDING_NUMBER = 1
    PARITY = 2
    NO_SIGN = 3


@wp.kernel(enable_backward=False)
def _posed_bounds(
    points: wp.array(dtype=wp.vec3),
    poses: wp.array2d(dtype=wp.transform),
    mesh: int,
    lower: wp.array(dtype=float),
    upper: wp.array(dtype=float),
):
    s, v = wp.tid()
    p = wp.transform_point(poses[mesh, s], points[v])
    for a in range(3):
        wp.atomic_min(lower, a, p[a])
        wp.atomic_max(upper, a, p[a])


@wp.func
def _signed_distance(mesh: wp.uint64, x: wp.vec3, max_dist: float, mode: int) -> float:
    if mode == 0:
        q = wp.mesh_query_point_sign_normal(mesh, x, max_dist)
    elif mode == 1:
        q = wp.mesh_query_point_sign_winding_number(mesh, x, max_dist)
    elif mode == 2:
        # the majority of 3 rays, directions spread so that one grazing an edge is outvoted
        q = wp.mesh_query_point_sign_parity(mesh, x, max_dist, 3, 0.1)
    else:
        q = wp.mesh_query_point_no_sign(mesh, x, max_dist)
    if not q.result:
        return max_dist
    d = wp.length(x - wp.mesh_eval_position(mesh, q.face, q.u, q.v))
    if mode == 3:
        return d
    return q.sign * d


@wp.kernel(enable_backward=False)
def _stamp(
    meshes: wp.array(dtype=wp.uint64),
    inverse_poses: wp.array2d(dtype=wp.transform),
    lower: wp.vec3,
    spacing: wp.vec3,
    max_dist: float,
    mode: int,
    field: wp.array3d(dtype=float),
):
    i, j, k = wp.tid()
    p = lower + wp.cw_mul(spacing, wp.vec3(float(i), float(j), float(k)))
    d = max_dist
    for m in range(meshes.shape[0]):
        for s in range(inverse_poses.shape[1]):
            x = wp.transform_point(inverse_poses[m, s], p)
            d = wp.min(d, _signed_distance(meshes[m], x, max_dist, mode))
    field[i, j, k] = d


@wp.kernel(enable_backward=False)
def _invert(poses: wp.array2d(dtype=wp.transform), out: wp.array2d(dtype=wp.transform)):
    m, s = wp.tid()
    out[m, s] = wp.transform_inverse(poses[m, s])


def _check_meshes(meshes: Sequence[Any], what: str) -> list[Any]:
    meshes = list(meshes)
    if not meshes:
        raise ValueError(f"{what}: needs at least one mesh")
    for n, mesh in enumerate(meshes):
        if not isinstance(mesh, wp.Mesh):
            raise TypeError(f"{what}: meshes[{n}] is a {type(mesh).__name__}, not a wp.Mesh")
    return meshes


def _poses(transforms: Any, num_meshes: int, device: Any, what: str) -> Any:
    """``transforms`` as a ``(num_meshes, num_samples)`` array of ``wp.transform`` on ``device``."""
    if isinstance(transforms, wp.array) and transforms.dtype == wp.transform:
        shape = transforms.shape
        poses = transforms if transforms.device == device else transforms.to(device)
    else:
        host = np.asarray(transforms.numpy() if isinstance(transforms, wp.array) else transforms, np.float32)
        if host.ndim != 3 or host.shape[2] != 7:
            raise ValueError(
                f"{what}: transforms must have shape (num_meshes, num_samples, 7) (translation, quaternion "
                f"xyzw), got {host.shape}"
            )
        shape = host.shape[:2]
        poses = wp.array(np.ascontiguousarray(host), dtype=wp.transform, device=device)
    if len(shape) != 2 or shape[0] != num_meshes:
        raise ValueError(
            f"{what}: transforms hold poses of {shape[0]} meshes, {num_meshes} meshes were given"
        )
    if shape[1] < 1:
        raise ValueError(f"{what}: transforms hold no pose samples (shape {tuple(shape)})")
    return poses


def _device(meshes: list[Any], device: Any, what: str) -> Any:
    """The device the meshes live on (queries run there); ``device`` must name it, if given."""
    found = meshes[0].device
    for n, mesh in enumerate(meshes):
        if mesh.device != found:
            raise ValueError(f"{what}: meshes[{n}] is on {mesh.device}, meshes[0] on {found}; use one device")
    if device is not None and wp.get_device(device) != found:
        raise ValueError(
            f"{what}: the meshes are on {found}, not on the requested device {wp.get_device(device)}"
        )
    return found


def _bounds(meshes: list[Any], poses: Any, device: Any) -> tuple[np.ndarray, np.ndarray]:
    lower = wp.full(3, np.inf, dtype=float, device=device)
    upper = wp.full(3, -np.inf, dtype=float, device=device)
    for m, mesh in enumerate(meshes):
        points = mesh.points
        if points.shape[0]:
            wp.launch(_posed_bounds, dim=(poses.shape[1], points.shape[0]),
                      inputs=[points, poses, m, lower, upper], device=device, record_tape=False)
    lo, hi = lower.numpy().astype(np.float64), upper.numpy().astype(np.float64)
    if not np.all(lo <= hi):
        raise ValueError("swept_volume_bounds: the meshes have no vertices")
    return lo, hi


def swept_volume_bounds(
    meshes: Sequence[Any], transforms: Any, padding: float = 0.0, device: Any = None
) -> tuple[Any, Any]:
    """The bounding box ``(lower, upper)`` (``wp.vec3``) of every mesh's vertices at every pose,
    grown by ``padding`` on each side. ``transforms`` has shape ``(num_meshes, num_samples, 7)``
    (translation, quaternion xyzw) or is a ``(num_meshes, num_samples)`` array of ``wp.transform``."""
    meshes = _check_meshes(meshes, "swept_volume_bounds")
    device = _device(meshes, device, "swept_volume_bounds")
    poses = _poses(transforms, len(meshes), device, "swept_volume_bounds")
    lo, hi = _bounds(meshes, poses, device)
    return wp.vec3(*(lo - float(padding))), wp.vec3(*(hi + float(padding)))


def _grid(
    lo: np.ndarray, hi: np.ndarray, voxel_size: Any, resolution: Any, lower: Any, upper: Any, padding: float,
) -> tuple[tuple[int, int, int], np.ndarray, np.ndarray]:
    """The grid's node counts and its corners (float64)."""
    what = "swept_volume_field"
    if (voxel_size is None) == (resolution is None):
        raise ValueError(f"{what}: give exactly one of voxel_size and resolution")
    if (lower is None) != (upper is None):
        raise ValueError(f"{what}: give both lower and upper (an explicit domain), or neither")
    if voxel_size is not None:
        h = float(voxel_size)
        if not math.isfinite(h) or h <= 0.0:
            raise ValueError(f"{what}: voxel_size must be positive, got {voxel_size}")
        if lower is not None:
            raise ValueError(
                f"{what}: an explicit lower/upper cannot be snapped to whole cells of voxel_size; "
                "give resolution with them"
            )
        start = lo - padding
        dims = tuple(int(math.ceil((b - a) / h - 1e-6)) + 1 for a, b in zip(start, hi + padding))
        dims = tuple(max(n, 2) for n in dims)
        return dims, start, start + h * (np.array(dims) - 1)  # type: ignore[return-value]
    dims = tuple(int(n) for n in resolution)
    if len(dims) != 3 or min(dims) < 2:
        raise ValueError(f"{what}: resolution must be 3 node counts of at least 2, got {tuple(resolution)}")
    if lower is not None:
        start = np.array([float(v) for v in lower])
        end = np.array([float(v) for v in upper])
        if not np.all(end > start):
            raise ValueError(f"{what}: upper {tuple(end)} must exceed lower {tuple(start)} on every axis")
        return dims, start, end  # type: ignore[return-value]
    return dims, lo - padding, hi + padding  # type: ignore[return-value]


def swept_volume_field(
    meshes: Sequence[Any],
    transforms: Any,
    voxel_size: float | None = None,
    resolution: Sequence[int] | None = None,
    lower: Any = None,
    upper: Any = None,
    sign_mode: SweptVolumeSignMode = SweptVolumeSignMode.WINDING_NUMBER,
    padding: float | None = None,
    device: Any = None,
) -> tuple[Any, Any, Any]:
    """The swept signed distance ``min_m min_s sdf_m(X[m, s]^-1 p)`` on a grid; returns
    ``(field, lower, upper)``: a float32 ``wp.array3d`` of node values and the grid's corners.

    Size the grid with ``voxel_size`` (cubic cells over the swept bounds grown by ``padding``,
    two cells by default) or ``resolution`` (node counts; over ``lower``/``upper`` when given,
    verbatim, else over the padded bounds, 5% of their largest extent by default).
    """
    what = "swept_volume_field"
    meshes = _check_meshes(meshes, what)
    mode = SweptVolumeSignMode(sign_mode)
    device = _device(meshes, device, what)
    poses = _poses(transforms, len(meshes), device, what)
    if mode == SweptVolumeSignMode.WINDING_NUMBER:
        for n, mesh in enumerate(meshes):
            if not mesh.support_winding_number:
                raise ValueError(
                    f"{what}: sign_mode WINDING_NUMBER needs meshes built with support_winding_number=True "
                    f"(meshes[{n}] is not); build them so, or choose another sign_mode"
                )
    if voxel_size is None and resolution is None:
        raise ValueError(f"{what}: give voxel_size or resolution to size the grid")
    lo, hi = _bounds(meshes, poses, device)
    if padding is None:
        padding = 2.0 * float(voxel_size) if voxel_size is not None else 0.05 * float(np.max(hi - lo))
    dims, start, end = _grid(lo, hi, voxel_size, resolution, lower, upper, float(padding))
    # every node must reach the surface: the diagonal of the box holding the grid and the geometry
    max_dist = float(np.linalg.norm(np.maximum(end, hi) - np.minimum(start, lo))) * 1.01 + 1e-3
    inverse = wp.empty(poses.shape, dtype=wp.transform, device=device)
    wp.launch(_invert, dim=poses.shape, inputs=[poses, inverse], device=device, record_tape=False)
    ids = wp.array(np.array([mesh.id for mesh in meshes], dtype=np.uint64), dtype=wp.uint64, device=device)
    spacing = (end - start) / (np.array(dims) - 1)
    field = wp.empty(dims, dtype=float, device=device)
    wp.launch(
        _stamp,
        dim=dims,
        inputs=[ids, inverse, wp.vec3(*start), wp.vec3(*spacing), max_dist, int(mode), field],
        device=device,
        record_tape=False,
    )
    return field, wp.vec3(*start), wp.vec3(*end)


def swept_volume_mesh(
    meshes: Sequence[Any],
    transforms: Any,
    voxel_size: float | None = None,
    threshold: float = 0.0,
    sign_mode: SweptVolumeSignMode = SweptVolumeSignMode.WINDING_NUMBER,
    resolution: Sequence[int] | None = None,
    lower: Any = None,
    upper: Any = None,
    device: Any = None,
) -> tuple[Any, Any]:
    """The closed envelope of ``meshes`` moved through the poses ``transforms`` (shape
    ``(num_meshes, num_samples, 7)``: translation and quaternion xyzw, per mesh per sample):
    marching cubes of :func:`swept_volume_field` at ``threshold``; returns ``(verts, indices)``.

    A positive ``threshold`` offsets the envelope outward (the grid grows with it); half the cell
    diagonal (``0.5 * sqrt(3) * voxel_size``) encloses every stamped pose. ``NO_SIGN`` needs a
    positive ``threshold``.
    """
    what = "swept_volume_mesh"
    meshes = _check_meshes(meshes, what)
    mode = SweptVolumeSignMode(sign_mode)
    level = float(threshold)
    if mode == SweptVolumeSignMode.NO_SIGN and not level > 0.0:
        raise ValueError(
            f"{what}: sign_mode NO_SIGN gives an unsigned field with no zero level; give a positive "
            f"threshold (the offset of the shell), got {threshold}"
        )
    device = _device(meshes, device, what)
    _poses(transforms, len(meshes), device, what)  # checked before any kernel runs
    padding = None
    if voxel_size is not None:
        padding = max(level, 0.0) + 2.0 * float(voxel_size)
    elif lower is None:
        lo, hi = _bounds(meshes, _poses(transforms, len(meshes), device, what), device)
        padding = max(level, 0.0) + 0.05 * float(np.max(hi - lo))
    field, lo_corner, hi_corner = swept_volume_field(
        meshes, transforms, voxel_size=voxel_size, resolution=resolution, lower=lower, upper=upper,
        sign_mode=mode, padding=padding, device=device,
    )
    # warp.geometry is a core plugin loaded with warp (not imported by warp/__init__, so mypy
    # does not see it as an attribute of the package)
    return wp.geometry.IsoSurfaceMarchingCubes.extract(  # type: ignore[attr-defined]
        field, threshold=level, lower=lo_corner, upper=hi_corner
    )
