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
from warp_geometry.volume_queries import is_wide, sample_with_partials, store_leaf, value_w
from warp_geometry.volume_trilinear import nearest

GROUP = "Volumes"

MAT33D = wp.types.matrix(shape=(3, 3), dtype=wp.float64)
MAT43F = wp.types.matrix(shape=(4, 3), dtype=wp.float32)
MAT43D = wp.types.matrix(shape=(4, 3), dtype=wp.float64)
#: value type -> type of its index-space gradient
GRADIENT_TYPES = {wp.float64: wp.vec3d, wp.vec3d: MAT33D, wp.vec4f: MAT43F, wp.vec4d: MAT43D}


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
def volume_lookup_w(id: wp.uint64, i: int, j: int, k: int, like: Any):
    return narrowed(value_w(wp.volume_get(id), i, j, k), like)


@wp.func
def volume_sample_w(id: wp.uint64, uvw: wp.vec3, sampling_mode: int, like: Any):
    if sampling_mode == 0:
        v = wp.volume_get(id)
        return narrowed(value_w(v, nearest(uvw[0]), nearest(uvw[1]), nearest(uvw[2])), like)
    value, dx, dy, dz = sample_with_partials(id, uvw, sampling_mode, wp.vec4d(), wp.float64(0.0))
    return narrowed(value, like)


@wp.func
def volume_sample_grad_w(id: wp.uint64, uvw: wp.vec3, sampling_mode: int, grad: Any, like: Any):
    value, dx, dy, dz = sample_with_partials(id, uvw, sampling_mode, wp.vec4d(), wp.float64(0.0))
    return narrowed(value, like), jacobian(dx, dy, dz, grad)


@wp.func
def volume_store_w(id: wp.uint64, i: int, j: int, k: int, value: Any):
    v = wp.volume_get(id)
    if is_wide(v.grid_type):
        store_leaf(v, i, j, k, v.leaf_w, widened(value))


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
