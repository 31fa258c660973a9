"""Kernel builtins of ``wp.Volume``: lookups, sampling (closest, trilinear), gradients, stores, transforms.

``locate`` walks the tree for integer coordinates and returns ``(level, slot)``: level 0 is a
leaf voxel, 1/2/3 a lower/upper/root tile, -1 the background. Sampling is written on top of it
in the kernel language, so ``volume_sample_f`` with ``LINEAR`` is differentiable with respect to
the sample point (trilinear weights) like NVIDIA Warp's. ``stored`` picks a level's value for a
place ``locate`` found, ``voxel``/``corners`` read the grid of a value type (float32, vec3, and
the vec4d of the wide grids), and the interpolation arithmetic is :mod:`warp_geometry.volume_trilinear`'s.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp.extending import BuiltinRegistry
from warp_geometry.descriptors import func_adder, register_getter
from warp_geometry.nanovdb import DOUBLE, FLOAT, INT32, VEC3D, VEC3F, VEC4D, VEC4F
from warp_geometry.volume import VolumeData
from warp_geometry.volume_trilinear import cell, nearest, trilinear_partials

GROUP = "Volumes"
T_FLOAT = wp.constant(FLOAT)
T_INT = wp.constant(INT32)
T_VEC = wp.constant(VEC3F)
T_DOUBLE = wp.constant(DOUBLE)
T_VEC3D = wp.constant(VEC3D)
T_VEC4F = wp.constant(VEC4F)
T_VEC4D = wp.constant(VEC4D)


@wp.func
def locate(v: VolumeData, i: int, j: int, k: int) -> wp.vec2i:
    oi = i & ~4095
    oj = j & ~4095
    ok = k & ~4095
    r = int(0)
    while r < v.num_roots:
        o = v.root_origin[r]
        if o[0] == oi and o[1] == oj and o[2] == ok:
            break
        r += 1
    if r >= v.num_roots:
        return wp.vec2i(-1, 0)
    u = v.root_child[r]
    if u < 0:
        return wp.vec2i(3, r)
    su = u * 32768 + (((i & 4095) >> 7) << 10) + (((j & 4095) >> 7) << 5) + ((k & 4095) >> 7)
    lo = v.upper_child[su]
    if lo < 0:
        return wp.vec2i(2, su)
    sl = lo * 4096 + (((i & 127) >> 3) << 8) + (((j & 127) >> 3) << 4) + ((k & 127) >> 3)
    leaf = v.lower_child[sl]
    if leaf < 0:
        return wp.vec2i(1, sl)
    return wp.vec2i(0, leaf * 512 + ((i & 7) << 6) + ((j & 7) << 3) + (k & 7))


@wp.func
def stored(
    at: wp.vec2i,
    root: wp.array(dtype=Any),
    upper: wp.array(dtype=Any),
    lower: wp.array(dtype=Any),
    leaf: wp.array(dtype=Any),
    background: Any,
):
    """The value kept for the place ``locate`` found (a voxel, a tile of a level, the background)."""
    if at[0] == 0:
        return leaf[at[1]]
    if at[0] == 1:
        return lower[at[1]]
    if at[0] == 2:
        return upper[at[1]]
    if at[0] == 3:
        return root[at[1]]
    return background


@wp.func
def value_f(v: VolumeData, i: int, j: int, k: int) -> float:
    if v.grid_type != T_FLOAT:
        return 0.0
    return stored(locate(v, i, j, k), v.root_f, v.upper_f, v.lower_f, v.leaf_f, v.background_f)


@wp.func
def value_v(v: VolumeData, i: int, j: int, k: int) -> wp.vec3:
    if v.grid_type != T_VEC:
        return wp.vec3(0.0, 0.0, 0.0)
    return stored(locate(v, i, j, k), v.root_v, v.upper_v, v.lower_v, v.leaf_v, v.background_v)


@wp.func
def value_i(v: VolumeData, i: int, j: int, k: int) -> int:
    if v.grid_type != T_INT:
        return 0
    return stored(locate(v, i, j, k), v.root_i, v.upper_i, v.lower_i, v.leaf_i, v.background_i)


@wp.func
def is_wide(t: int) -> bool:
    """Whether grid type ``t`` keeps its values widened to vec4d (float64, vec3d, vec4f, vec4d)."""
    return t == T_DOUBLE or t == T_VEC3D or t == T_VEC4F or t == T_VEC4D


@wp.func
def value_w(v: VolumeData, i: int, j: int, k: int) -> wp.vec4d:
    """Voxel (i, j, k) of a wide grid as a vec4d (zero for a grid of another type)."""
    if not is_wide(v.grid_type):
        return wp.vec4d()
    return stored(locate(v, i, j, k), v.root_w, v.upper_w, v.lower_w, v.leaf_w, v.background_w)


# -- voxels of the grid whose value type is that of ``like`` (overloads), and the eight around a cell
@wp.func
def voxel(v: VolumeData, i: int, j: int, k: int, like: float) -> float:
    return value_f(v, i, j, k)


@wp.func
def voxel(v: VolumeData, i: int, j: int, k: int, like: wp.vec3) -> wp.vec3:  # noqa: F811 (an overload)
    return value_v(v, i, j, k)


@wp.func
def voxel(v: VolumeData, i: int, j: int, k: int, like: wp.vec4d) -> wp.vec4d:  # noqa: F811
    return value_w(v, i, j, k)


@wp.func
def corners(v: VolumeData, i: int, j: int, k: int, like: Any):
    """Voxels (i + di, j + dj, k + dk) for di, dj, dk in (0, 1), dk fastest (as
    ``trilinear_partials`` takes them)."""
    return (
        voxel(v, i, j, k, like),
        voxel(v, i, j, k + 1, like),
        voxel(v, i, j + 1, k, like),
        voxel(v, i, j + 1, k + 1, like),
        voxel(v, i + 1, j, k, like),
        voxel(v, i + 1, j, k + 1, like),
        voxel(v, i + 1, j + 1, k, like),
        voxel(v, i + 1, j + 1, k + 1, like),
    )


# -- lookups and stores ------------------------------------------------------------------------
@wp.func
def volume_lookup_f_f(id: wp.uint64, i: int, j: int, k: int) -> float:
    return value_f(wp.volume_get(id), i, j, k)


@wp.func
def volume_lookup_v_f(id: wp.uint64, i: int, j: int, k: int) -> wp.vec3:
    return value_v(wp.volume_get(id), i, j, k)


@wp.func
def volume_lookup_i_f(id: wp.uint64, i: int, j: int, k: int) -> int:
    return value_i(wp.volume_get(id), i, j, k)


@wp.func
def volume_lookup_index_f(id: wp.uint64, i: int, j: int, k: int) -> int:
    v = wp.volume_get(id)
    at = locate(v, i, j, k)
    if at[0] == 0:
        return v.leaf_index[at[1]]
    return -1


@wp.func
def store_leaf(v: VolumeData, i: int, j: int, k: int, leaf: wp.array(dtype=Any), value: Any):
    """Store ``value`` at voxel (i, j, k) of ``leaf`` (one of ``v``'s leaf value arrays) when the
    voxel lies in an allocated leaf (no-op otherwise)."""
    at = locate(v, i, j, k)
    if at[0] == 0:
        leaf[at[1]] = value


@wp.func
def volume_store_f_f(id: wp.uint64, i: int, j: int, k: int, value: float):
    v = wp.volume_get(id)
    if v.grid_type == T_FLOAT:
        store_leaf(v, i, j, k, v.leaf_f, value)


@wp.func
def volume_store_v_f(id: wp.uint64, i: int, j: int, k: int, value: wp.vec3):
    v = wp.volume_get(id)
    if v.grid_type == T_VEC:
        store_leaf(v, i, j, k, v.leaf_v, value)


@wp.func
def volume_store_i_f(id: wp.uint64, i: int, j: int, k: int, value: int):
    v = wp.volume_get(id)
    if v.grid_type == T_INT:
        store_leaf(v, i, j, k, v.leaf_i, value)


@wp.func
def volume_voxel_count_f(id: wp.uint64) -> int:
    v = wp.volume_get(id)
    if v.counts.shape[0] > 0:  # a topology built on the device
        return v.counts[0]
    return v.voxel_count


# -- sampling ---------------------------------------------------------------------------------
@wp.func
def _sample(id: wp.uint64, uvw: wp.vec3, sampling_mode: int, like: Any):
    # each corner pair is read where it is weighted (composite arithmetic may be contracted: the
    # placement fixes the bits)
    v = wp.volume_get(id)
    if sampling_mode == 0:
        return voxel(v, nearest(uvw[0]), nearest(uvw[1]), nearest(uvw[2]), like)
    t, i, j, k = cell(uvw)
    c00 = voxel(v, i, j, k, like) * (1.0 - t[2]) + voxel(v, i, j, k + 1, like) * t[2]
    c01 = voxel(v, i, j + 1, k, like) * (1.0 - t[2]) + voxel(v, i, j + 1, k + 1, like) * t[2]
    c10 = voxel(v, i + 1, j, k, like) * (1.0 - t[2]) + voxel(v, i + 1, j, k + 1, like) * t[2]
    c11 = voxel(v, i + 1, j + 1, k, like) * (1.0 - t[2]) + voxel(v, i + 1, j + 1, k + 1, like) * t[2]
    c0 = c00 * (1.0 - t[1]) + c01 * t[1]
    c1 = c10 * (1.0 - t[1]) + c11 * t[1]
    return c0 * (1.0 - t[0]) + c1 * t[0]


@wp.func
def volume_sample_f_f(id: wp.uint64, uvw: wp.vec3, sampling_mode: int) -> float:
    return _sample(id, uvw, sampling_mode, 0.0)


@wp.func
def volume_sample_v_f(id: wp.uint64, uvw: wp.vec3, sampling_mode: int) -> wp.vec3:
    return _sample(id, uvw, sampling_mode, wp.vec3())


@wp.func
def volume_sample_i_f(id: wp.uint64, uvw: wp.vec3) -> int:
    return value_i(wp.volume_get(id), nearest(uvw[0]), nearest(uvw[1]), nearest(uvw[2]))


@wp.func
def sample_with_partials(id: wp.uint64, uvw: wp.vec3, sampling_mode: int, like: Any, weights: Any):
    """Value and index-space partials (d/du, d/dv, d/dw) of the trilinear interpolant of the grid
    of ``like``'s type (CLOSEST: the nearest voxel's value, with the interpolant's partials)."""
    v = wp.volume_get(id)
    t, i, j, k = cell(uvw)
    f000, f001, f010, f011, f100, f101, f110, f111 = corners(v, i, j, k, like)
    value, dx, dy, dz = trilinear_partials(f000, f001, f010, f011, f100, f101, f110, f111, t, weights)
    if sampling_mode == 0:
        value = voxel(v, nearest(uvw[0]), nearest(uvw[1]), nearest(uvw[2]), like)
    return value, dx, dy, dz


@wp.func
def volume_sample_grad_f_f(id: wp.uint64, uvw: wp.vec3, sampling_mode: int, grad: wp.vec3):
    """Value and index-space gradient of the trilinear interpolant (CLOSEST: the nearest voxel's value).

    Written out rather than through ``trilinear_partials``: the adjoint of this flat form sums
    its terms in an order of its own, which these builtins' gradients keep."""
    v = wp.volume_get(id)
    t, i, j, k = cell(uvw)
    f000, f001, f010, f011, f100, f101, f110, f111 = corners(v, i, j, k, 0.0)
    c00 = f000 * (1.0 - t[2]) + f001 * t[2]
    c01 = f010 * (1.0 - t[2]) + f011 * t[2]
    c10 = f100 * (1.0 - t[2]) + f101 * t[2]
    c11 = f110 * (1.0 - t[2]) + f111 * t[2]
    c0 = c00 * (1.0 - t[1]) + c01 * t[1]
    c1 = c10 * (1.0 - t[1]) + c11 * t[1]
    dx = c1 - c0
    dy = (c01 - c00) * (1.0 - t[0]) + (c11 - c10) * t[0]
    e0 = (f001 - f000) * (1.0 - t[1]) + (f011 - f010) * t[1]
    e1 = (f101 - f100) * (1.0 - t[1]) + (f111 - f110) * t[1]
    dz = e0 * (1.0 - t[0]) + e1 * t[0]
    value = c0 * (1.0 - t[0]) + c1 * t[0]
    if sampling_mode == 0:
        value = value_f(v, nearest(uvw[0]), nearest(uvw[1]), nearest(uvw[2]))
    return value, wp.vec3(dx, dy, dz)


@wp.func
def volume_sample_grad_v_f(id: wp.uint64, uvw: wp.vec3, sampling_mode: int, grad: wp.mat33):
    """Value and index-space Jacobian (row r: the gradient of component r) of the trilinear
    interpolant of a vec3 volume (CLOSEST: the nearest voxel's value), computed in the order of
    ``volume_sample_grad_index``, so both give the same bits for the same data."""
    value, dx, dy, dz = sample_with_partials(id, uvw, sampling_mode, wp.vec3(), wp.float32(0.0))
    return value, wp.matrix_from_cols(dx, dy, dz)


# -- transforms -------------------------------------------------------------------------------
@wp.func
def volume_index_to_world_f(id: wp.uint64, uvw: wp.vec3) -> wp.vec3:
    v = wp.volume_get(id)
    return v.mat * uvw + v.vec


@wp.func
def volume_world_to_index_f(id: wp.uint64, xyz: wp.vec3) -> wp.vec3:
    v = wp.volume_get(id)
    return v.inv_mat * (xyz - v.vec)


@wp.func
def volume_index_to_world_dir_f(id: wp.uint64, uvw: wp.vec3) -> wp.vec3:
    return wp.volume_get(id).mat * uvw


@wp.func
def volume_world_to_index_dir_f(id: wp.uint64, xyz: wp.vec3) -> wp.vec3:
    return wp.volume_get(id).inv_mat * xyz


def register(registry: BuiltinRegistry) -> None:
    """Register the volume builtins."""
    register_getter(
        registry, "volume_get", VolumeData, "The kernel-side data of the wp.Volume ``id``.", GROUP
    )
    u64, i32, f32, v3 = wp.uint64, wp.int32, wp.float32, wp.vec3
    ijk = [("id", u64), ("i", i32), ("j", i32), ("k", i32)]

    add = func_adder(registry, GROUP, differentiable=False)

    add(
        "volume_lookup_f",
        ijk,
        f32,
        volume_lookup_f_f,
        "Value of the float voxel (i, j, k) (background if it has no storage).",
    )
    add(
        "volume_lookup_v",
        ijk,
        v3,
        volume_lookup_v_f,
        "Value of the vec3f voxel (i, j, k) (background if it has no storage).",
    )
    add(
        "volume_lookup_i",
        ijk,
        i32,
        volume_lookup_i_f,
        "Value of the int32 voxel (i, j, k) (background if it has no storage).",
    )
    add(
        "volume_lookup_index",
        ijk,
        i32,
        volume_lookup_index_f,
        "Linear index of voxel (i, j, k) in [0, volume_voxel_count(id)), or -1 when it has none.",
    )
    add(
        "volume_store_f",
        ijk + [("value", f32)],
        None,
        volume_store_f_f,
        "Store a float at voxel (i, j, k) when it lies in an allocated leaf (no-op otherwise).",
        side_effects=True,
    )
    add(
        "volume_store_v",
        ijk + [("value", v3)],
        None,
        volume_store_v_f,
        "Store a vec3f at voxel (i, j, k) when it lies in an allocated leaf (no-op otherwise).",
        side_effects=True,
    )
    add(
        "volume_store_i",
        ijk + [("value", i32)],
        None,
        volume_store_i_f,
        "Store an int32 at voxel (i, j, k) when it lies in an allocated leaf (no-op otherwise).",
        side_effects=True,
    )
    add(
        "volume_voxel_count",
        [("id", u64)],
        i32,
        volume_voxel_count_f,
        "Number of voxels with storage (the size of per-voxel arrays indexed by volume_lookup_index).",
    )
    sample = [("id", u64), ("uvw", v3), ("sampling_mode", i32)]
    add(
        "volume_sample_f",
        sample,
        f32,
        volume_sample_f_f,
        "Sample a float volume at index-space point uvw (wp.Volume.CLOSEST or wp.Volume.LINEAR).",
        diff=True,
    )
    add(
        "volume_sample_v",
        sample,
        v3,
        volume_sample_v_f,
        "Sample a vec3f volume at index-space point uvw (wp.Volume.CLOSEST or wp.Volume.LINEAR).",
        diff=True,
    )
    add(
        "volume_sample_i",
        [("id", u64), ("uvw", v3)],
        i32,
        volume_sample_i_f,
        "Value of the int32 voxel nearest to index-space point uvw.",
    )
    add(
        "volume_sample_grad_f",
        sample + [("grad", v3)],
        (f32, v3),
        volume_sample_grad_f_f,
        "Sample a float volume and write the index-space gradient of its trilinear interpolant to ``grad``.",
        diff=True,
        updated=(3,),
    )
    add(
        "volume_sample_grad_v",
        sample + [("grad", wp.mat33)],
        (v3, wp.mat33),
        volume_sample_grad_v_f,
        "Sample a vec3 volume and write the index-space Jacobian of its trilinear interpolant to ``grad`` "
        "(row r: the gradient of component r).",
        diff=True,
        updated=(3,),
    )
    for name, func, doc in (
        ("volume_index_to_world", volume_index_to_world_f, "Transform an index-space point to world space."),
        ("volume_world_to_index", volume_world_to_index_f, "Transform a world-space point to index space."),
        (
            "volume_index_to_world_dir",
            volume_index_to_world_dir_f,
            "Transform an index-space direction to world space.",
        ),
        (
            "volume_world_to_index_dir",
            volume_world_to_index_dir_f,
            "Transform a world-space direction to index space.",
        ),
    ):
        add(name, [("id", u64), ("uvw" if "index_to" in name else "xyz", v3)], v3, func, doc, diff=True)
