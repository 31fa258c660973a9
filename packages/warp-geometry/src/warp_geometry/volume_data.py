"""What a ``wp.Volume`` is made of and reports: :class:`VolumeData`, the kernel-side struct that
``wp.volume_get(id)`` returns, and the named tuples of :meth:`Volume.get_active_stats` and
:meth:`Volume.get_grid_info` (importable from :mod:`warp_geometry.volume` as before).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import warp as wp
from warp_geometry import nanovdb


@wp.struct
class VolumeData:
    """Kernel-side volume: the index/world map and the tree's arrays (one value type populated)."""

    grid_type: wp.int32
    num_roots: wp.int32
    voxel_count: wp.int32
    background_f: wp.float32
    background_v: wp.vec3
    background_i: wp.int32
    mat: wp.mat33
    inv_mat: wp.mat33
    vec: wp.vec3
    root_origin: wp.array(dtype=wp.vec3i)
    root_child: wp.array(dtype=wp.int32)
    upper_child: wp.array(dtype=wp.int32)
    lower_child: wp.array(dtype=wp.int32)
    root_f: wp.array(dtype=wp.float32)
    upper_f: wp.array(dtype=wp.float32)
    lower_f: wp.array(dtype=wp.float32)
    leaf_f: wp.array(dtype=wp.float32)
    root_v: wp.array(dtype=wp.vec3)
    upper_v: wp.array(dtype=wp.vec3)
    lower_v: wp.array(dtype=wp.vec3)
    leaf_v: wp.array(dtype=wp.vec3)
    root_i: wp.array(dtype=wp.int32)
    upper_i: wp.array(dtype=wp.int32)
    lower_i: wp.array(dtype=wp.int32)
    leaf_i: wp.array(dtype=wp.int32)
    leaf_index: wp.array(dtype=wp.int32)
    #: float64, vec3d, vec4f and vec4d grids: values widened to vec4d (unused components 0)
    background_w: wp.vec4d
    root_w: wp.array(dtype=wp.vec4d)
    upper_w: wp.array(dtype=wp.vec4d)
    lower_w: wp.array(dtype=wp.vec4d)
    leaf_w: wp.array(dtype=wp.vec4d)
    #: uint32 and int64 grids: values as int64
    background_q: wp.int64
    root_q: wp.array(dtype=wp.int64)
    upper_q: wp.array(dtype=wp.int64)
    lower_q: wp.array(dtype=wp.int64)
    leaf_q: wp.array(dtype=wp.int64)
    #: volumes whose topology is built on the device: active voxels, leaves, lower and upper
    #: nodes, status flags (empty otherwise: ``voxel_count`` holds the count)
    counts: wp.array(dtype=wp.int32)


class ActiveStats(NamedTuple):
    """What :meth:`Volume.get_active_stats` reports: active voxels and allocated tree nodes."""

    #: number of active voxels
    voxel_count: int
    #: number of leaf nodes (8^3 tiles)
    leaf_node_count: int
    #: number of lower internal nodes (128^3)
    lower_node_count: int
    #: number of upper internal nodes (4096^3)
    upper_node_count: int


class GridInfo(NamedTuple):
    """What :meth:`Volume.get_grid_info` reports about a volume's grid."""

    #: the grid's name
    name: str
    #: size of the grid buffer in bytes
    size_in_bytes: int
    #: position of the grid in the file it was loaded from (0 otherwise)
    grid_index: int
    #: number of grids in that file (1 otherwise)
    grid_count: int
    #: value type name as NanoVDB spells it ("float", "int32", "Vec3f", "Index", "OnIndex")
    type_str: str
    #: index-to-world translation
    translation: Any
    #: index-to-world matrix (9 values, row major)
    transform_matrix: Any


#: NanoVDB spelling of each grid type (GridInfo.type_str)
TYPE_STR = {
    nanovdb.FLOAT: "float",
    nanovdb.INT32: "int32",
    nanovdb.VEC3F: "Vec3f",
    nanovdb.INDEX: "Index",
    nanovdb.ON_INDEX: "OnIndex",
    nanovdb.DOUBLE: "double",
    nanovdb.VEC3D: "Vec3d",
    nanovdb.VEC4F: "Vec4f",
    nanovdb.VEC4D: "Vec4d",
    nanovdb.INT64: "int64",
    nanovdb.UINT32: "uint32",
}
