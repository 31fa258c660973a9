"""``wp.Mesh``: a triangle mesh with a BVH, queryable from kernels by ``id``."""

from __future__ import annotations

from typing import Any

import numpy as np

import warp as wp
from warp_geometry import mesh_device, winding
from warp_geometry.winding_device import DeviceWinding
from warp_geometry.bvh import BvhData, build_tree, check_constructor, check_groups
from warp_geometry.checks import check_array, check_same_device, check_vec3_array
from warp_geometry.descriptors import Descriptor, Releasable


#: triangles per BVH leaf when ``bvh_leaf_size`` is None: closest-point and ray queries are
#: fastest around 8-16 here (benchmarks/bench_geometry.py)
DEFAULT_LEAF_SIZE = 8


@wp.struct
class MeshData:
    """Kernel-side mesh (``wp.mesh_get(id)``): its arrays, its triangle BVH and sign-query data."""

    points: wp.array(dtype=wp.vec3)
    velocities: wp.array(dtype=wp.vec3)
    indices: wp.array(dtype=wp.int32)
    bvh: BvhData
    bvh_id: wp.uint64
    num_tris: wp.int32
    num_points: wp.int32
    avg_edge_length: wp.float32
    has_winding: wp.bool
    wn_center: wp.array(dtype=wp.vec3)
    wn_normal: wp.array(dtype=wp.vec3)
    wn_moment: wp.array(dtype=wp.mat33)
    wn_radius: wp.array(dtype=wp.float32)
    #: the triangles' corners (rows a, b, c) in BVH leaf order: slot s of ``bvh.items`` is
    #: triangle ``bvh.items[s]``, whose corners are ``leaf_tris[s]``
    leaf_tris: wp.array(dtype=wp.mat33)


class Mesh(Releasable):
    """A triangle mesh: ``points`` (``wp.vec3``), ``indices`` (``wp.int32``, 3 per triangle).

    ``id`` identifies it in kernels (``wp.mesh_query_point(id, p, max_dist)``, ...). The mesh
    keeps references to its buffers; after moving ``points`` call :meth:`refit`. Changing the
    topology needs a new Mesh. ``support_winding_number=True`` precomputes the data of
    ``mesh_query_point_sign_winding_number``; ``bvh_constructor`` "lbvh" builds the BVH along
    a Morton curve (fast; in kernels on the mesh's device), "sah" and "median" with median splits
    (NumPy, on the host), None is "lbvh" on CUDA devices and "median" on the CPU. The triangle
    data and refits are computed in kernels on the mesh's device; ``bvh_leaf_size`` None
    means :data:`DEFAULT_LEAF_SIZE` triangles per leaf. ``groups`` (a ``wp.int32`` array, one group
    number per triangle) makes every group a subtree of the BVH, whose root
    ``mesh_get_group_root(id, group)`` returns for the ray queries' ``root`` argument.
    """

    def __init__(
        self,
        points: Any,
        indices: Any,
        velocities: Any = None,
        support_winding_number: bool = False,
        bvh_constructor: str | None = None,
        bvh_leaf_size: int | None = None,
        groups: Any = None,
    ):
        check_vec3_array(points, "wp.Mesh", "points")
        check_array(indices, "wp.Mesh", "indices", wp.int32)
        if indices.shape[0] % 3 != 0:
            raise ValueError(
                f"wp.Mesh: 'indices' holds {indices.shape[0]} values, not a multiple of 3 (3 per triangle)"
            )
        if velocities is not None:
            check_vec3_array(velocities, "wp.Mesh", "velocities")
            if velocities.shape != points.shape:
                raise ValueError(
                    f"wp.Mesh: 'velocities' {velocities.shape} must match 'points' {points.shape}"
                )
        check_groups(groups, indices.shape[0] // 3, "wp.Mesh", "triangle")
        self.device = check_same_device(
            "wp.Mesh", points=points, indices=indices, velocities=velocities, groups=groups
        )
        self.groups = groups
        leaf_size = DEFAULT_LEAF_SIZE if bvh_leaf_size is None else bvh_leaf_size
        leaf = check_constructor(bvh_constructor, leaf_size, "wp.Mesh", grouped=groups is not None)
        self._points = points
        self._velocities = velocities
        self.indices = indices
        self.support_winding_number = bool(support_winding_number)
        num_tris = indices.shape[0] // 3
        self._tri_lower = wp.empty(num_tris, dtype=wp.vec3, device=self.device)
        self._tri_upper = wp.empty(num_tris, dtype=wp.vec3, device=self.device)
        self._leaf_tris = wp.empty(num_tris, dtype=wp.mat33, device=self.device)
        mesh_device.check_indices(indices, points.shape[0], "wp.Mesh")
        mesh_device.triangle_bounds(points, indices, self._tri_lower, self._tri_upper)
        self._tree = build_tree(self._tri_lower, self._tri_upper, leaf, bvh_constructor, groups)
        self._bvh_descriptor = Descriptor(BvhData, self.device)
        self._descriptor = Descriptor(MeshData, self.device)
        self._winding: winding.WindingData | None = None
        self._device_winding: DeviceWinding | None = None
        #: the descriptor's mean-edge-length field as a device array (made on the first refit)
        self._edge_field: Any = None
        self._written: tuple[Any, Any] = (None, None)
        self._fill_leaf_corners()
        self._write()

    def _fill_leaf_corners(self) -> None:
        """Corner coordinates of the triangles in BVH leaf order into ``_leaf_tris``."""
        mesh_device.leaf_corners(self._points, self.indices, self._tree.items, self._leaf_tris)

    def _update_winding(self) -> winding.WindingData:
        """The winding-number node data for the current points: NumPy on the CPU, kernels on
        a CUDA device (:mod:`warp_geometry.winding_device`)."""
        if self.device.is_cpu:
            tris = self.indices.numpy().reshape(-1, 3).astype(np.int64)
            tree = self._tree.host_tree()
            self._winding = winding.node_data(tree, self._points.numpy(), tris, self.device)
        else:
            if self._device_winding is None:
                self._device_winding = DeviceWinding(self._tree.num_nodes, self.device)
            tree_arrays = self._tree.arrays
            self._winding = self._device_winding.compute(
                self._tree.levels, tree_arrays, self._points, self.indices
            )
        return self._winding

    # -- descriptor -----------------------------------------------------------------------
    def _write(self) -> None:
        bvh_fields = dict(self._tree.fields(), item_lower=self._tri_lower, item_upper=self._tri_upper)
        self._bvh_descriptor.update(**bvh_fields)
        fields: dict[str, Any] = {}
        edge = mesh_device.average_edge_length(self._points, self.indices)
        if self.support_winding_number:
            fields.update(self._update_winding().fields())
        self._descriptor.update(
            points=self._points,
            velocities=self._velocities,
            indices=self.indices,
            bvh=self._bvh_descriptor.value,
            bvh_id=self._bvh_descriptor.address,
            num_tris=int(self.indices.shape[0]) // 3,
            num_points=int(self._points.shape[0]),
            avg_edge_length=edge,
            has_winding=self.support_winding_number,
            leaf_tris=self._leaf_tris,
            **fields,
        )
        self._descriptor.update_gradients(points=self._points, velocities=self._velocities)
        #: the point and index arrays the descriptor holds (a refit over the same ones updates
        #: only what kernels can write in place)
        self._written = (self._points, self.indices)

    def _refresh_in_place(self) -> None:
        """After a refit over the arrays the descriptor already holds, on a CUDA device: the node
        arrays were refitted in place, the winding data is recomputed in place and the mean edge
        length is written into the descriptor by a kernel. Nothing goes through the host, so a
        refit costs no synchronization and graph capture records all of it."""
        if self.support_winding_number:
            self._update_winding()  # kernels on the device, in place
        if self._edge_field is None:
            self._edge_field = self._descriptor.field_view("avg_edge_length")
        mesh_device.store_average_edge_length(self._points, self.indices, self._edge_field)

    @property
    def id(self) -> int:
        """Unique ``uint64`` identifier of this mesh in kernels."""
        return self._descriptor.address

    @property
    def points(self) -> Any:
        """The vertex positions (``wp.vec3`` array); assigning a new array refits the BVH."""
        return self._points

    @points.setter
    def points(self, value: Any) -> None:
        check_vec3_array(value, "wp.Mesh", "points")
        if value.shape != self._points.shape:
            raise ValueError(
                f"wp.Mesh: new points {value.shape} must have the shape of the old ones {self._points.shape}"
            )
        check_same_device("wp.Mesh", points=value, indices=self.indices)
        self._points = value
        self.refit()

    @property
    def velocities(self) -> Any:
        """The vertex velocities (``wp.vec3`` array) or None."""
        return self._velocities

    @velocities.setter
    def velocities(self, value: Any) -> None:
        if value is not None:
            check_vec3_array(value, "wp.Mesh", "velocities")
            if value.shape != self._points.shape:
                raise ValueError(
                    f"wp.Mesh: 'velocities' {value.shape} must match 'points' {self._points.shape}"
                )
            check_same_device("wp.Mesh", velocities=value, points=self._points)
        self._velocities = value
        self._descriptor.update(velocities=value)
        self._descriptor.update_gradients(points=self._points, velocities=value)

    def refit(self) -> None:
        """Refit the BVH (and the winding-number data) to the current ``points`` and ``indices``.

        ``indices`` may have been edited in place since the mesh was built: they are checked
        again (``ValueError`` for an index that is not a valid point index).
        """
        capturing = self.device.is_capturing
        if not capturing:  # reading the verdict back is impossible while a graph is captured
            mesh_device.check_indices(self.indices, self._points.shape[0], "wp.Mesh.refit")
        mesh_device.triangle_bounds(self._points, self.indices, self._tri_lower, self._tri_upper)
        self._tree.refit(self._tri_lower, self._tri_upper)
        self._fill_leaf_corners()
        written = self._written
        if not self.device.is_cpu and written[0] is self._points and written[1] is self.indices:
            self._refresh_in_place()
        elif capturing:  # the node arrays are refitted in place: the descriptor stays as it is
            if self.support_winding_number:
                self._update_winding()  # kernels on the device, in place
        else:
            self._write()
