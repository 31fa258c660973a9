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
def _weighted(x: Any, w: float):
    return x * w


@wp.func
def _weighted(x: wp.float64, w: float):  # noqa: F811 (an overload)
    return x * wp.float64(w)


@wp.func
def _weighted(x: wp.vec2d, w: float):  # noqa: F811
    return x * wp.float64(w)


@wp.func
def _weighted(x: wp.vec3d, w: float):  # noqa: F811
    return x * wp.float64(w)


@wp.func
def _weighted(x: wp.vec4d, w: float):  # noqa: F811
    return x * wp.float64(w)


@wp.func
def _lerp(a: Any, b: Any, t: float):
    return _weighted(a, 1.0 - t) + _weighted(b, t)


@wp.func
def _closest(v: VolumeData, uvw: wp.vec3, voxel_data: wp.array(dtype=Any), background: Any) -> Any:
    i = int(wp.floor(uvw[0] + 0.5))
    j = int(wp.floor(uvw[1] + 0.5))
    k = int(wp.floor(uvw[2] + 0.5))
    return index_value(v, i, j, k, voxel_data, background)


@wp.func
def volume_sample_index_f(
    id: wp.uint64, uvw: wp.vec3, sampling_mode: int, voxel_data: wp.array(dtype=Any), background: Any
) -> Any:
    v = wp.volume_get(id)
    if type(background) in INT_TYPES:
        return _closest(v, uvw, voxel_data, background)
    if sampling_mode == 0:
        return _closest(v, uvw, voxel_data, background)
    b = wp.vec3(wp.floor(uvw[0]), wp.floor(uvw[1]), wp.floor(uvw[2]))
    t = uvw - b
    i = int(b[0])
    j = int(b[1])
    k = int(b[2])
    c00 = _lerp(
        index_value(v, i, j, k, voxel_data, background),
        index_value(v, i, j, k + 1, voxel_data, background),
        t[2],
    )
    c01 = _lerp(
        index_value(v, i, j + 1, k, voxel_data, background),
        index_value(v, i, j + 1, k + 1, voxel_data, background),
        t[2],
    )
    c10 = _lerp(
        index_value(v, i + 1, j, k, voxel_data, background),
        index_value(v, i + 1, j, k + 1, voxel_data, background),
        t[2],
    )
    c11 = _lerp(
        index_value(v, i + 1, j + 1, k, voxel_data, background),
        index_value(v, i + 1, j + 1, k + 1, voxel_data, background),
        t[2],
    )
    return _lerp(_lerp(c00, c01, t[1]), _lerp(c10, c11, t[1]), t[0])


@wp.func
def _sample_with_partials(
    id: wp.uint64, uvw: wp.vec3, sampling_mode: int, voxel_data: wp.array(dtype=Any), background: Any
):
    """Value and index-space partial derivatives (d/du, d/dv, d/dw) of the trilinear interpolant
    (CLOSEST: the nearest voxel's value, with the interpolant's partials)."""
    v = wp.volume_get(id)
    b = wp.vec3(wp.floor(uvw[0]), wp.floor(uvw[1]), wp.floor(uvw[2]))
    t = uvw - b
    i = int(b[0])
    j = int(b[1])
    k = int(b[2])
    f000 = index_value(v, i, j, k, voxel_data, background)
    f001 = index_value(v, i, j, k + 1, voxel_data, background)
    f010 = index_value(v, i, j + 1, k, voxel_data, background)
    f011 = index_value(v, i, j + 1, k + 1, voxel_data, background)
    f100 = index_value(v, i + 1, j, k, voxel_data, background)
    f101 = index_value(v, i + 1, j, k + 1, voxel_data, background)
    f110 = index_value(v, i + 1, j + 1, k, voxel_data, background)
    f111 = index_value(v, i + 1, j + 1, k + 1, voxel_data, background)
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
