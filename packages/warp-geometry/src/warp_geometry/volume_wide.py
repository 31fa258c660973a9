"""Volume builtins of the float64, vec3d, vec4f and vec4d grids (``wp.Volume.allocate*`` with such a
``bg_value``): lookups, sampling, gradients and stores.

These grids keep their values widened to ``wp.vec4d`` (unused components 0), so one tree walk
serves the four types: a value is read as a vec4d, interpolated in float64, and converted to the
grid's type at the end (``volume_lookup_w``, ``volume_sample_w``, ``volume_sample_grad_w`` take
a zero of that type as their last argument, which ``wp.volume_lookup(..., dtype)`` & co. pass).
The gradient of ``volume_sample_grad`` is the index-space Jacobian: a vec3d for float64 grids,
an ``(n, 3)`` matrix (one row per component) for vector grids.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp.extending import BuiltinRegistry
from warp_geometry.descriptors import add_builtin
from warp_geometry.nanovdb import DOUBLE, VEC3D, VEC4D, VEC4F
from warp_geometry.volume import VolumeData
from warp_geometry.volume_queries import locate

GROUP = "Volumes"
_DOUBLE = wp.constant(DOUBLE)
_VEC3D = wp.constant(VEC3D)
_VEC4F = wp.constant(VEC4F)
_VEC4D = wp.constant(VEC4D)

MAT33D = wp.types.matrix(shape=(3, 3), dtype=wp.float64)
MAT43F = wp.types.matrix(shape=(4, 3), dtype=wp.float32)
MAT43D = wp.types.matrix(shape=(4, 3), dtype=wp.float64)
#: value type -> type of its index-space gradient
GRADIENT_TYPES = {wp.float64: wp.vec3d, wp.vec3d: MAT33D, wp.vec4f: MAT43F, wp.vec4d: MAT43D}


@wp.func
def value_w(v: VolumeData, i: int, j: int, k: int) -> wp.vec4d:
    """Voxel (i, j, k) of a wide grid as a vec4d (zero for a grid of another type)."""
    t = v.grid_type
    if t != _DOUBLE and t != _VEC3D and t != _VEC4F and t != _VEC4D:
        return wp.vec4d()
    at = locate(v, i, j, k)
    if at[0] == 0:
        return v.leaf_w[at[1]]
    if at[0] == 1:
        return v.lower_w[at[1]]
    if at[0] == 2:
        return v.upper_w[at[1]]
    if at[0] == 3:
        return v.root_w[at[1]]
    return v.background_w


# -- conversions between vec4d and the grid's type (overloads chosen by the second argument) ------
@wp.func
def narrowed(w: wp.vec4d, like: wp.float64) -> wp.float64:
    return w[0]


@wp.func
def narrowed(w: wp.vec4d, like: wp.vec3d) -> wp.vec3d:  # noqa: F811 (an overload)
    return wp.vec3d(w[0], w[1], w[2])


@wp.func
def narrowed(w: wp.vec4d, like: wp.vec4f) -> wp.vec4f:  # noqa: F811
    return wp.vec4f(w)


@wp.func
def narrowed(w: wp.vec4d, like: wp.vec4d) -> wp.vec4d:  # noqa: F811
    return w


@wp.func
def widened(x: wp.float64) -> wp.vec4d:
    return wp.vec4d(x, wp.float64(0.0), wp.float64(0.0), wp.float64(0.0))


@wp.func
def widened(x: wp.vec3d) -> wp.vec4d:  # noqa: F811
    return wp.vec4d(x[0], x[1], x[2], wp.float64(0.0))


@wp.func
def widened(x: wp.vec4f) -> wp.vec4d:  # noqa: F811
    return wp.vec4d(x)


@wp.func
def widened(x: wp.vec4d) -> wp.vec4d:  # noqa: F811
    return x


@wp.func
def jacobian(dx: wp.vec4d, dy: wp.vec4d, dz: wp.vec4d, like: wp.vec3d) -> wp.vec3d:
    return wp.vec3d(dx[0], dy[0], dz[0])


@wp.func
def jacobian(dx: wp.vec4d, dy: wp.vec4d, dz: wp.vec4d, like: MAT33D) -> MAT33D:  # noqa: F811
    return MAT33D(dx[0], dy[0], dz[0], dx[1], dy[1], dz[1], dx[2], dy[2], dz[2])


@wp.func
def jacobian(dx: wp.vec4d, dy: wp.vec4d, dz: wp.vec4d, like: MAT43F) -> MAT43F:  # noqa: F811
    return MAT43F(wp.matrix_from_cols(dx, dy, dz))


@wp.func
def jacobian(dx: wp.vec4d, dy: wp.vec4d, dz: wp.vec4d, like: MAT43D) -> MAT43D:  # noqa: F811
    return wp.matrix_from_cols(dx, dy, dz)


# -- builtins -------------------------------------------------------------------------------------
@wp.func
def _nearest(x: float) -> int:
    return int(wp.floor(x + 0.5))


@wp.func
def _lerp(a: wp.vec4d, b: wp.vec4d, t: float) -> wp.vec4d:
    s = wp.float64(t)
    return a * (wp.float64(1.0) - s) + b * s


@wp.func
def volume_lookup_w(id: wp.uint64, i: int, j: int, k: int, like: Any):
    return narrowed(value_w(wp.volume_get(id), i, j, k), like)


@wp.func
def _sample_with_partials(id: wp.uint64, uvw: wp.vec3, sampling_mode: int):
    """Value and index-space partials of the trilinear interpolant, as vec4d (CLOSEST: the
    nearest voxel's value, with the interpolant's partials)."""
    v = wp.volume_get(id)
    b = wp.vec3(wp.floor(uvw[0]), wp.floor(uvw[1]), wp.floor(uvw[2]))
    t = uvw - b
    i = int(b[0])
    j = int(b[1])
    k = int(b[2])
    f000 = value_w(v, i, j, k)
    f001 = value_w(v, i, j, k + 1)
    f010 = value_w(v, i, j + 1, k)
    f011 = value_w(v, i, j + 1, k + 1)
    f100 = value_w(v, i + 1, j, k)
    f101 = value_w(v, i + 1, j, k + 1)
    f110 = value_w(v, i + 1, j + 1, k)
    f111 = value_w(v, i + 1, j + 1, k + 1)
    c00 = _lerp(f000, f001, t[2])
    c01 = _lerp(f010, f011, t[2])
    c10 = _lerp(f100, f101, t[2])
    c11 = _lerp(f110, f111, t[2])
    c0 = _lerp(c00, c01, t[1])
    c1 = _lerp(c10, c11, t[1])
    dx = c1 - c0
    dy = _lerp(c01 - c00, c11 - c10, t[0])
    dz = _lerp(_lerp(f001 - f000, f011 - f010, t[1]), _lerp(f101 - f100, f111 - f110, t[1]), t[0])
    value = _lerp(c0, c1, t[0])
    if sampling_mode == 0:
        value = value_w(v, _nearest(uvw[0]), _nearest(uvw[1]), _nearest(uvw[2]))
    return value, dx, dy, dz


@wp.func
def volume_sample_w(id: wp.uint64, uvw: wp.vec3, sampling_mode: int, like: Any):
    if sampling_mode == 0:
        v = wp.volume_get(id)
        return narrowed(value_w(v, _nearest(uvw[0]), _nearest(uvw[1]), _nearest(uvw[2])), like)
    value, dx, dy, dz = _sample_with_partials(id, uvw, sampling_mode)
    return narrowed(value, like)


@wp.func
def volume_sample_grad_w(id: wp.uint64, uvw: wp.vec3, sampling_mode: int, grad: Any, like: Any):
    value, dx, dy, dz = _sample_with_partials(id, uvw, sampling_mode)
    return narrowed(value, like), jacobian(dx, dy, dz, grad)


@wp.func
def volume_store_w(id: wp.uint64, i: int, j: int, k: int, value: Any):
    v = wp.volume_get(id)
    t = v.grid_type
    if t == _DOUBLE or t == _VEC3D or t == _VEC4F or t == _VEC4D:
        at = locate(v, i, j, k)
        if at[0] == 0:
            v.leaf_w[at[1]] = widened(value)


def register(registry: BuiltinRegistry) -> None:
    """Register the typed builtins behind ``wp.volume_lookup/sample/sample_grad/store`` of the
    float64, vec3d, vec4f and vec4d grids."""
    u64, i32, v3 = wp.uint64, wp.int32, wp.vec3
    ijk = [("id", u64), ("i", i32), ("j", i32), ("k", i32)]
    head = [("id", u64), ("uvw", v3), ("sampling_mode", i32)]
    wide = "a float64/vec3d/vec4f/vec4d volume (``like``: a zero of its type)"
    for t, g in GRADIENT_TYPES.items():
        add_builtin(registry, "volume_lookup_w", params=ijk + [("like", t)], result=t, func=volume_lookup_w,
                    group=GROUP, doc=f"wp.volume_lookup of {wide}.")
        add_builtin(registry, "volume_sample_w", params=head + [("like", t)], result=t, func=volume_sample_w,
                    group=GROUP, differentiable=True, doc=f"wp.volume_sample of {wide}.")
        add_builtin(registry, "volume_sample_grad_w", params=head + [("grad", g), ("like", t)],
                    result=(t, g), func=volume_sample_grad_w, group=GROUP, differentiable=True,
                    mutated_args=(3,),
                    doc=f"wp.volume_sample_grad of {wide}: also writes the index-space Jacobian to ``grad``.")
        add_builtin(registry, "volume_store", params=ijk + [("value", t)], result=None, func=volume_store_w,
                    group=GROUP, side_effects=True,
                    doc="Store ``value`` at voxel (i, j, k) of a volume of its type, when the voxel lies in "
                    "an allocated leaf (no-op otherwise).")
