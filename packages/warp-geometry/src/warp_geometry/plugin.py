"""The warp plugin of warp-geometry (entry point ``geometry`` in the ``warp`` group)."""

from __future__ import annotations

from typing import Any

from warp.extending import hookimpl, BuiltinRegistry

from warp_geometry import (
    bvh_queries,
    swept_volume,
    hash_grid_queries,
    intersections,
    live_ids,
    mesh_box_queries,
    mesh_queries,
    mesh_ray_queries,
    query_types,
    volume_generic,
    volume_index_sampling,
    volume_integers,
    volume_queries,
    volume_wide,
)
from warp_geometry.bvh import Bvh, is_cubql_available
from warp_geometry.hash_grid import HashGrid
from warp_geometry.mesh import Mesh
from warp_geometry.volume import Volume


@hookimpl
def warp_register_builtins(registry: BuiltinRegistry) -> None:
    """Kernel builtins of BVHs, meshes, hash grids and volumes."""
    bvh_queries.register(registry)
    mesh_queries.register(registry)
    mesh_ray_queries.register(registry)
    mesh_box_queries.register(registry)
    hash_grid_queries.register(registry)
    volume_queries.register(registry)
    volume_generic.register(registry)
    volume_index_sampling.register(registry)
    volume_wide.register(registry)
    volume_integers.register(registry)
    intersections.register(registry)


@hookimpl
def warp_check_launch(kernel: Any, args: Any, device: Any) -> None:
    """Debug mode: ids passed to geometry queries must be ids of live objects of the right kind."""
    live_ids.check_launch(kernel, args)


@hookimpl
def warp_module_exports() -> dict[str, dict[str, Any]]:
    """The swept volume of meshes, on ``warp.geometry``."""
    return {
        "warp.geometry": {
            "SweptVolumeSignMode": swept_volume.SweptVolumeSignMode,
            "swept_volume_bounds": swept_volume.swept_volume_bounds,
            "swept_volume_field": swept_volume.swept_volume_field,
            "swept_volume_mesh": swept_volume.swept_volume_mesh,
        }
    }


@hookimpl
def warp_exports() -> dict[str, Any]:
    """The geometry classes and query types (with NVIDIA Warp's older ``*_t`` aliases)."""
    return {
        **volume_generic.exports(),
        "Bvh": Bvh,
        "is_cubql_available": is_cubql_available,
        "Mesh": Mesh,
        "HashGrid": HashGrid,
        "Volume": Volume,
        "BvhQuery": query_types.BvhQuery,
        "bvh_query_t": query_types.BvhQuery,
        "MeshQueryPoint": query_types.MeshQueryPoint,
        "mesh_query_point_t": query_types.MeshQueryPoint,
        "MeshQueryRay": query_types.MeshQueryRay,
        "mesh_query_ray_t": query_types.MeshQueryRay,
        "MeshQueryAABB": query_types.MeshQueryAABB,
        "MeshQuery": query_types.MeshQueryAABB,
        "mesh_query_aabb_t": query_types.MeshQueryAABB,
        "HashGridQuery": query_types.HashGridQuery,
        "hash_grid_query_t": query_types.HashGridQuery,
    }
