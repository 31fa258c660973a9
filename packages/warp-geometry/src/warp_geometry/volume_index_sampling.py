"""``volume_sample_index`` and ``volume_sample_grad_index``: sampling values kept in a separate
per-voxel array, addressed through a volume's voxel indices (``volume_lookup_index``).

A voxel with an index ``i >= 0`` has the value ``voxel_data[i]``; every other location (an
inactive voxel of an on-index grid, or a place without a leaf) has ``background``. On classical
grids every slot of an allocated leaf has an index, so several fields can share one topology.
Sampling follows ``volume_sample_f``: CLOSEST takes the nearest voxel, LINEAR interpolates
trilinearly (differentiable with respect to ``uvw``; integer data is always sampled at the
closest voxel).
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp.extending import ArrayOf, TypeVar, BuiltinRegistry
from warp_geometry.descriptors import add_builtin
from warp_geometry.volume import VolumeData
from warp_geometry.volume_queries import locate
from warp_geometry.volume_trilinear import cell, lerp, nearest, trilinear_partials

GROUP = "Volumes"
INT_TYPES = (wp.int8, wp.int16, wp.int32, wp.int64, wp.uint8, wp.uint16, wp.uint32, wp.uint64, wp.bool)


@wp.func
def index_value(
    v: VolumeData, i: int, j: int, k: int, voxel_data: wp.array(dtype=Any), background: Any
) -> Any:
    at = locate(v, i, j, k)
    if at[0] == 0:
        idx = v.leaf_index[at[1]]
        if idx >= 0:
            return voxel_data[idx]
    return background


@wp.func
def _corners(v: VolumeData, i: int, j: int, k: int, voxel_data: wp.array(dtype=Any), background: Any):
    """``index_value`` of voxels (i + di, j + dj, k + dk), dk fastest (as ``trilinear_partials``
    takes them)."""
    return (
        index_value(v, i, j, k, voxel_data, background),
        index_value(v, i, j, k + 1, voxel_data, background),
        index_value(v, i, j + 1, k, voxel_data, background),
        index_value(v, i, j + 1, k + 1, voxel_data, background),
        index_value(v, i + 1, j, k, voxel_data, background),
        index_value(v, i + 1, j, k + 1, voxel_data, background),
        index_value(v, i + 1, j + 1, k, voxel_data, background),
        index_value(v, i + 1, j + 1, k + 1, voxel_data, background),
    )


@wp.func
def _closest(v: VolumeData, uvw: wp.vec3, voxel_data: wp.array(dtype=Any), background: Any) -> Any:
    return index_value(v, nearest(uvw[0]), nearest(uvw[1]), nearest(uvw[2]), voxel_data, background)


@wp.func
def volume_sample_index_f(
    id: wp.uint64, uvw: wp.vec3, sampling_mode: int, voxel_data: wp.array(dtype=Any), background: Any
) -> Any:
    v = wp.volume_get(id)
    if type(background) in INT_TYPES:
        return _closest(v, uvw, voxel_data, background)
    if sampling_mode == 0:
        return _closest(v, uvw, voxel_data, background)
    # each corner pair is read where it is weighted (composite arithmetic may be contracted: the
    # placement fixes the bits)
    t, i, j, k = cell(uvw)
    w = wp.float32(0.0)
    c00 = lerp(
        index_value(v, i, j, k, voxel_data, background),
        index_value(v, i, j, k + 1, voxel_data, background),
        t[2],
        w,
    )
    c01 = lerp(
        index_value(v, i, j + 1, k, voxel_data, background),
        index_value(v, i, j + 1, k + 1, voxel_data, background),
        t[2],
        w,
    )
    c10 = lerp(
        index_value(v, i + 1, j, k, voxel_data, background),
        index_value(v, i + 1, j, k + 1, voxel_data, background),
        t[2],
        w,
    )
    c11 = lerp(
        index_value(v, i + 1, j + 1, k, voxel_data, background),
        index_value(v, i + 1, j + 1, k + 1, voxel_data, background),
        t[2],
        w,
    )
    return lerp(lerp(c00, c01, t[1], w), lerp(c10, c11, t[1], w), t[0], w)


@wp.func
def _sample_with_partials(
    id: wp.uint64, uvw: wp.vec3, sampling_mode: int, voxel_data: wp.array(dtype=Any), background: Any
):
    """Value and index-space partial derivatives (d/du, d/dv, d/dw) of the trilinear interpolant
    (CLOSEST: the nearest voxel's value, with the interpolant's partials)."""
    v = wp.volume_get(id)
    t, i, j, k = cell(uvw)
    f000, f001, f010, f011, f100, f101, f110, f111 = _corners(v, i, j, k, voxel_data, background)
    value, dx, dy, dz = trilinear_partials(f000, f001, f010, f011, f100, f101, f110, f111, t, wp.float32(0.0))
    if sampling_mode == 0:
        value = _closest(v, uvw, voxel_data, background)
    return value, dx, dy, dz


@wp.func
def volume_sample_grad_index_f(
    id: wp.uint64,
    uvw: wp.vec3,
    sampling_mode: int,
    voxel_data: wp.array(dtype=Any),
    background: Any,
    grad: Any,
):
    """Scalar data: the value and its index-space gradient (a 3-vector)."""
    value, dx, dy, dz = _sample_with_partials(id, uvw, sampling_mode, voxel_data, background)
    return value, type(grad)(dx, dy, dz)


@wp.func
def volume_sample_grad_index_v(
    id: wp.uint64,
    uvw: wp.vec3,
    sampling_mode: int,
    voxel_data: wp.array(dtype=Any),
    background: Any,
    grad: Any,
):
    """Vector data: the value and its Jacobian (one row per component, one column per axis)."""
    value, dx, dy, dz = _sample_with_partials(id, uvw, sampling_mode, voxel_data, background)
    return value, wp.matrix_from_cols(dx, dy, dz)


def register(registry: BuiltinRegistry) -> None:
    """Register the index-sampling builtins."""
    u64, v3, i32 = wp.uint64, wp.vec3, wp.int32
    head = [("id", u64), ("uvw", v3), ("sampling_mode", i32)]
    T = TypeVar("T")
    add_builtin(
        registry,
        "volume_sample_index",
        params=head + [("voxel_data", ArrayOf(T, 1)), ("background", T)],
        result=T,
        func=volume_sample_index_f,
        doc=(
            "Sample the values ``voxel_data[volume_lookup_index(id, i, j, k)]`` of the wp.Volume ``id`` at "
            "index-space point uvw (``background`` where a voxel has no index); wp.Volume.CLOSEST or "
            "wp.Volume.LINEAR (integer data: always the closest voxel)."
        ),
        group=GROUP,
        differentiable=True,
    )
    for scalar, vec in ((wp.float32, wp.vec3), (wp.float64, wp.vec3d)):
        add_builtin(
            registry,
            "volume_sample_grad_index",
            params=head + [("voxel_data", ArrayOf(scalar, 1)), ("background", scalar), ("grad", vec)],
            result=(scalar, vec),
            func=volume_sample_grad_index_f,
            doc=(
                "volume_sample_index of scalar data, also writing the index-space gradient of the "
                "trilinear interpolant to ``grad``."
            ),
            group=GROUP,
            differentiable=True,
            mutated_args=(5,),
        )
    for scalar in (wp.float32, wp.float64):
        for n in (2, 3, 4):
            vec = wp.types.vector(length=n, dtype=scalar)
            jac = wp.types.matrix(shape=(n, 3), dtype=scalar)
            add_builtin(
                registry,
                "volume_sample_grad_index",
                params=head + [("voxel_data", ArrayOf(vec, 1)), ("background", vec), ("grad", jac)],
                result=(vec, jac),
                func=volume_sample_grad_index_v,
                doc=(
                    "volume_sample_index of vector data, also writing the index-space Jacobian of the "
                    "trilinear interpolant to ``grad`` (row r: the gradient of component r)."
                ),
                group=GROUP,
                differentiable=True,
                mutated_args=(5,),
            )
