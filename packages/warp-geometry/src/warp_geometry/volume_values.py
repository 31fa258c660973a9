"""Value types of volumes: the grid types kernels read directly or widened to vec4d, the
background a Python value stands for, the voxel sizes allocation accepts, and the kernel-side
fields of a grid."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

import warp as wp
from warp_geometry import nanovdb

FIELDS = {nanovdb.FLOAT: ("f", wp.float32), nanovdb.INT32: ("i", wp.int32), nanovdb.VEC3F: ("v", wp.vec3)}
#: grid types kept widened to vec4d in kernels: (number of components, value type)
WIDE = {
    nanovdb.DOUBLE: (1, wp.float64),
    nanovdb.VEC3D: (3, wp.vec3d),
    nanovdb.VEC4F: (4, wp.vec4f),
    nanovdb.VEC4D: (4, wp.vec4d),
}
#: integer grids kept as int64 in kernels (uint32 values exactly): grid type -> value type
LONG = {nanovdb.UINT32: wp.uint32, nanovdb.INT64: wp.int64}
_GRID_OF_TYPE = {wp.float32: nanovdb.FLOAT, wp.int32: nanovdb.INT32, wp.vec3f: nanovdb.VEC3F,
                 **{t: grid_type for grid_type, (_, t) in WIDE.items()},
                 **{t: grid_type for grid_type, t in LONG.items()}}
_BG_TYPES = "a float, an int, a 3- or 4-vector (float32 or float64), a wp.uint32 or a wp.int64"


def dtype_of_value(value: Any) -> tuple[int, Any]:
    """(grid type, background) for a background value given from Python: a warp scalar or vector
    gives its own type (``wp.float64(1.0)``: a float64 grid, ``wp.vec4d``: vec4d); Python and
    NumPy numbers give float32 or int32, sequences of 3 or 4 numbers vec3f or vec4f."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"wp.Volume: bg_value must be {_BG_TYPES}")
    grid_type = _GRID_OF_TYPE.get(type(value))
    if grid_type is not None:
        dtype = nanovdb.GridArrays(grid_type=grid_type).value_dtype
        return grid_type, np.asarray(getattr(value, "value", value), dtype.base)
    if isinstance(value, (int, np.integer)) or getattr(value, "dtype", None) in (np.int32, np.int64):
        return nanovdb.INT32, np.int32(value)
    if np.ndim(value) == 1 and len(value) == 3:
        return nanovdb.VEC3F, np.asarray(value, np.float32)
    if np.ndim(value) == 1 and len(value) == 4:
        return nanovdb.VEC4F, np.asarray(value, np.float32)
    if isinstance(value, (float, np.floating)) or np.ndim(value) == 0:
        return nanovdb.FLOAT, np.float32(value)
    raise TypeError(f"wp.Volume: bg_value must be {_BG_TYPES}, got {value!r}")


def value_type(grid_type: int) -> Any:
    """The value type of grids of ``grid_type`` (``wp.uint64`` for index grids)."""
    if grid_type in WIDE:
        return WIDE[grid_type][1]
    if grid_type in LONG:
        return LONG[grid_type]
    return FIELDS.get(grid_type, (None, wp.uint64))[1]


def value_fields(g: nanovdb.GridArrays, device: Any) -> tuple[dict[str, Any], int]:
    """The kernel-side fields holding the values of grid ``g`` (per tree level, background, leaf
    value indices) on ``device``, and its number of voxels with storage."""
    fields: dict[str, Any] = {}
    leaf_slots = len(g.leaf_origin) * 512
    if g.grid_type in (nanovdb.INDEX, nanovdb.ON_INDEX):
        idx = np.asarray(g.leaf_value, np.int64) - 1  # NanoVDB index 0 is the background
        if g.grid_type == nanovdb.ON_INDEX:
            idx = np.where(g.leaf_active, idx, -1)
        fields["leaf_index"] = wp.array(idx.astype(np.int32), dtype=wp.int32, device=device)
        return fields, int(idx.max() + 1) if idx.size else 0
    fields["leaf_index"] = wp.array(np.arange(leaf_slots, dtype=np.int32), dtype=wp.int32, device=device)
    levels = ("root", "upper", "lower", "leaf")
    if g.grid_type in WIDE:
        n = WIDE[g.grid_type][0]
        for level in levels:
            values = widened(getattr(g, f"{level}_value"), n)
            fields[f"{level}_w"] = wp.array(values, dtype=wp.vec4d, device=device)
        fields["background_w"] = wp.vec4d(*widened(g.background, n)[0])
    elif g.grid_type in LONG:
        for level in levels:
            values = np.asarray(getattr(g, f"{level}_value"), np.int64)
            fields[f"{level}_q"] = wp.array(values, dtype=wp.int64, device=device)
        fields["background_q"] = int(np.asarray(g.background).item())
    else:
        suffix, t = FIELDS[g.grid_type]
        for level in levels:
            values = np.ascontiguousarray(getattr(g, f"{level}_value"))
            fields[f"{level}_{suffix}"] = wp.array(values, dtype=t, device=device)
        bg = g.background
        fields[f"background_{suffix}"] = t(*np.atleast_1d(bg)) if suffix == "v" else bg.item()
    return fields, leaf_slots


def grid_fields(g: nanovdb.GridArrays, device: Any) -> tuple[dict[str, Any], int]:
    """The kernel-side ``VolumeData`` fields of grid ``g`` on ``device`` (map, tree arrays and
    values), and its number of voxels with storage."""
    fields: dict[str, Any] = {
        "grid_type": g.grid_type,
        "num_roots": len(g.root_origin),
        "mat": wp.mat33(*np.asarray(g.mat, np.float32).ravel()),
        "inv_mat": wp.mat33(*np.linalg.inv(np.asarray(g.mat, np.float64)).astype(np.float32).ravel()),
        "vec": wp.vec3(*np.asarray(g.vec, np.float32)),
        "root_origin": wp.array(
            np.asarray(g.root_origin, np.int32).reshape(-1, 3), dtype=wp.vec3i, device=device
        ),
        "root_child": wp.array(g.root_child.astype(np.int32), dtype=wp.int32, device=device),
        "upper_child": wp.array(g.upper_child.astype(np.int32), dtype=wp.int32, device=device),
        "lower_child": wp.array(g.lower_child.astype(np.int32), dtype=wp.int32, device=device),
    }
    values, count = value_fields(g, device)
    fields.update(values)
    fields["voxel_count"] = count
    return fields, count


def leaf_values(g: nanovdb.GridArrays, fields: dict[str, Any]) -> np.ndarray | None:
    """The current leaf values of grid ``g`` read back from its kernel-side ``fields`` (kernels may
    have stored into them), in the grid's value type; None for index grids."""
    if g.leaf_value is None or g.grid_type in (nanovdb.INDEX, nanovdb.ON_INDEX):
        return g.leaf_value
    shape, base = g.leaf_value.shape, g.value_dtype.base
    if g.grid_type in FIELDS:
        return fields[f"leaf_{FIELDS[g.grid_type][0]}"].numpy().reshape(shape).copy()
    if g.grid_type in WIDE:
        rows = fields["leaf_w"].numpy()[:, : WIDE[g.grid_type][0]]
        return rows.astype(base).reshape(shape)
    return fields["leaf_q"].numpy().astype(base).reshape(shape)


def widened(values: np.ndarray, n: int) -> np.ndarray:
    """Values of a wide grid as ``(count, 4)`` float64 rows (components past ``n`` are 0)."""
    rows = np.asarray(values, np.float64).reshape(-1, n)
    return np.pad(rows, ((0, 0), (0, 4 - n)))


def voxel_sizes(voxel_size: Any, owner: str) -> np.ndarray:
    """The per-axis voxel sizes of a scalar or a 3-sequence: ``TypeError`` for other types,
    ``ValueError`` for a wrong length or sizes that are not positive and finite."""
    if isinstance(voxel_size, (str, bytes)) or voxel_size is None or isinstance(voxel_size, bool):
        raise TypeError(
            f"{owner}: voxel_size must be a number or a sequence of 3 numbers, got {voxel_size!r}"
        )
    if isinstance(voxel_size, (numbers.Real, np.number)):
        sizes = np.full(3, float(voxel_size))
    else:
        try:
            items = list(voxel_size)
        except TypeError:
            raise TypeError(
                f"{owner}: voxel_size must be a number or a sequence of 3 numbers, got {voxel_size!r}"
            ) from None
        if not all(isinstance(v, (numbers.Real, np.number)) and not isinstance(v, bool) for v in items):
            raise TypeError(f"{owner}: voxel_size must hold numbers, got {voxel_size!r}")
        if len(items) != 3:
            raise ValueError(f"{owner}: voxel_size must have 3 entries (x, y, z), got {len(items)}")
        sizes = np.array(items, dtype=np.float64)
    if not np.all(np.isfinite(sizes)) or not np.all(sizes > 0.0):
        raise ValueError(f"{owner}: voxel_size must be positive and finite, got {voxel_size!r}")
    return sizes


def index_map(voxel_size: Any, transform: Any, owner: str) -> np.ndarray:
    """The 3x3 index-to-world matrix (world = M @ ijk + translation): ``transform`` when given (a
    finite, invertible 3x3 matrix, row major), else the diagonal of ``voxel_size``."""
    if transform is None:
        return np.diag(voxel_sizes(voxel_size, owner))
    try:
        m = np.array(transform, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{owner}: transform must be a 3x3 matrix of numbers, got {transform!r}") from None
    if m.size != 9:
        raise ValueError(f"{owner}: transform must be a 3x3 matrix, got shape {m.shape}")
    m = m.reshape(3, 3)
    if not np.all(np.isfinite(m)) or abs(np.linalg.det(m)) < 1e-300:
        raise ValueError(f"{owner}: transform must be finite and invertible, got {m.tolist()}")
    return m
