"""Volume builtins of the uint32 and int64 grids (``wp.Volume.allocate*`` with a ``wp.uint32`` or
``wp.int64`` ``bg_value``): lookups, closest-voxel sampling and stores.

These grids keep their values as int64 (uint32 values exactly), so one tree walk serves both
types; ``volume_lookup_q`` and ``volume_sample_q`` take a zero of the value type as their last
argument (which ``wp.volume_lookup(..., dtype)`` and ``wp.volume_sample(..., dtype)`` pass) and
read only grids of that type (the background value 0 otherwise), and ``volume_store`` of a
uint32 or int64 value writes only into grids of the value's type.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp.extending import BuiltinRegistry
from warp_geometry.descriptors import add_builtin
from warp_geometry.nanovdb import INT64, UINT32
from warp_geometry.volume import VolumeData
from warp_geometry.volume_queries import locate, store_leaf, stored
from warp_geometry.volume_trilinear import nearest

GROUP = "Volumes"
_UINT32 = wp.constant(UINT32)
_INT64 = wp.constant(INT64)
#: the value types of these grids
INTEGER_TYPES = (wp.uint32, wp.int64)


@wp.func
def grid_type_of(like: wp.uint32) -> int:
    return _UINT32


@wp.func
def grid_type_of(like: wp.int64) -> int:  # noqa: F811 (an overload)
    return _INT64


@wp.func
def narrowed(x: wp.int64, like: wp.uint32) -> wp.uint32:
    return wp.uint32(x)


@wp.func
def narrowed(x: wp.int64, like: wp.int64) -> wp.int64:  # noqa: F811
    return x


@wp.func
def value_q(v: VolumeData, grid_type: int, i: int, j: int, k: int) -> wp.int64:
    """Voxel (i, j, k) of a grid of ``grid_type`` as an int64 (zero for a grid of another type)."""
    if v.grid_type != grid_type:
        return wp.int64(0)
    return stored(locate(v, i, j, k), v.root_q, v.upper_q, v.lower_q, v.leaf_q, v.background_q)


@wp.func
def volume_lookup_q(id: wp.uint64, i: int, j: int, k: int, like: Any):
    return narrowed(value_q(wp.volume_get(id), grid_type_of(like), i, j, k), like)


@wp.func
def volume_sample_q(id: wp.uint64, uvw: wp.vec3, sampling_mode: int, like: Any):
    # integer values are sampled at the closest voxel (as int32 volumes are)
    i, j, k = nearest(uvw[0]), nearest(uvw[1]), nearest(uvw[2])
    return narrowed(value_q(wp.volume_get(id), grid_type_of(like), i, j, k), like)


@wp.func
def volume_store_q(id: wp.uint64, i: int, j: int, k: int, value: Any):
    v = wp.volume_get(id)
    if v.grid_type == grid_type_of(value):
        store_leaf(v, i, j, k, v.leaf_q, wp.int64(value))


def register(registry: BuiltinRegistry) -> None:
    """Register the typed builtins behind ``wp.volume_lookup/sample/store`` of the uint32 and
    int64 grids."""
    u64, i32 = wp.uint64, wp.int32
    ijk = [("id", u64), ("i", i32), ("j", i32), ("k", i32)]
    head = [("id", u64), ("uvw", wp.vec3), ("sampling_mode", i32)]
    doc = "a uint32/int64 volume (``like``: a zero of its type)"
    for t in INTEGER_TYPES:
        add_builtin(registry, "volume_lookup_q", params=ijk + [("like", t)], result=t, func=volume_lookup_q,
                    group=GROUP, doc=f"wp.volume_lookup of {doc}.")
        add_builtin(registry, "volume_sample_q", params=head + [("like", t)], result=t, func=volume_sample_q,
                    group=GROUP, doc=f"wp.volume_sample of {doc}: the value of the closest voxel.")
        add_builtin(registry, "volume_store", params=ijk + [("value", t)], result=None, func=volume_store_q,
                    group=GROUP, side_effects=True,
                    doc="Store ``value`` at voxel (i, j, k) of a volume of its type, when the voxel lies in "
                    "an allocated leaf (no-op otherwise).")
