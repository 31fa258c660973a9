"""A built BVH's node arrays on its device (from the NumPy or the device builder), refitted in
place in kernels on that device (:mod:`warp_geometry.bvh_refit`)."""

from __future__ import annotations

from typing import Any

import numpy as np

import warp as wp
from warp_geometry import bvh_build, bvh_refit
from warp_geometry.bvh_device_build import DeviceBuild
from warp_geometry.bvh_nodes import BvhNode, packed_nodes


class TreeArrays:
    """A tree's node arrays on a device (see :mod:`warp_geometry.bvh_build` for the layout).

    ``host`` is the NumPy tree where the tree was built on the host (None for a device build
    until :meth:`host_tree` downloads it)."""

    def __init__(
        self,
        device: Any,
        arrays: dict[str, Any],
        num_nodes: int,
        levels: bvh_refit.LevelOrder,
        host: bvh_build.BvhTree | None,
        depth: Any = None,
    ):
        self.device = device
        self.arrays = arrays
        self.num_nodes = num_nodes
        self.levels = levels
        self.host = host
        self._depth = depth

    @classmethod
    def from_host(cls, tree: bvh_build.BvhTree, device: Any) -> TreeArrays:
        """Upload a NumPy-built tree (bounds included)."""
        arrays = {
            "lower": wp.array(tree.lower, dtype=wp.vec3, device=device),
            "upper": wp.array(tree.upper, dtype=wp.vec3, device=device),
            "skip": wp.array(tree.skip, dtype=wp.int32, device=device),
            "first": wp.array(tree.first, dtype=wp.int32, device=device),
            "count": wp.array(tree.count, dtype=wp.int32, device=device),
            "items": wp.array(tree.items, dtype=wp.int32, device=device),
            "nodes": wp.array(packed_nodes(tree), dtype=BvhNode, device=device),
            "group_keys": wp.array(tree.group_keys, dtype=wp.int32, device=device),
            "group_roots": wp.array(tree.group_roots, dtype=wp.int32, device=device),
        }
        levels = bvh_refit.LevelOrder.from_host_levels(tree.levels, device)
        return cls(device, arrays, tree.num_nodes, levels, tree)

    @classmethod
    def build_on_device(cls, lowers: Any, uppers: Any, leaf_size: int, groups: Any = None) -> TreeArrays:
        """Build an LBVH over the boxes ``lowers``/``uppers`` (vec3 arrays) in kernels on their
        device (:mod:`warp_geometry.bvh_device_build`) and fit its bounds."""
        b = DeviceBuild(lowers, uppers, leaf_size, groups)
        device = lowers.device
        arrays = {
            "lower": wp.empty(b.num_nodes, dtype=wp.vec3, device=device),
            "upper": wp.empty(b.num_nodes, dtype=wp.vec3, device=device),
            "skip": b.skip,
            "first": b.first,
            "count": b.count,
            "items": b.items,
            "nodes": wp.empty(b.num_nodes, dtype=BvhNode, device=device),
            "group_keys": b.group_keys,
            "group_roots": b.group_roots,
        }
        tree = cls(device, arrays, b.num_nodes, b.levels, None, b.depth)
        bvh_refit.refit(b.levels, arrays, lowers, uppers)
        return tree

    @property
    def items(self) -> Any:
        """Item number of every leaf slot (device array)."""
        return self.arrays["items"]

    def fields(self) -> dict[str, Any]:
        """The BvhData fields describing this tree (item bounds excluded)."""
        return dict(self.arrays, num_nodes=self.num_nodes, num_items=int(self.arrays["items"].shape[0]))

    def refit(self, lowers: Any, uppers: Any) -> None:
        """Refit to new item bounds (``wp.vec3`` arrays on the tree's device), in kernels."""
        bvh_refit.refit(self.levels, self.arrays, lowers, uppers)

    def host_tree(self) -> bvh_build.BvhTree:
        """The tree as NumPy arrays with the bounds of the last fit (for host-side node data such
        as the winding-number expansions; a device build's topology is downloaded once)."""
        if self.host is None:
            self.host = self._download_topology()
        self.host.lower = self.arrays["lower"].numpy()[: self.num_nodes].copy()
        self.host.upper = self.arrays["upper"].numpy()[: self.num_nodes].copy()
        return self.host

    def _download_topology(self) -> bvh_build.BvhTree:
        n = self.num_nodes
        first = self.arrays["first"].numpy()[:n].copy()
        count = self.arrays["count"].numpy()[:n].copy()
        skip = self.arrays["skip"].numpy()[:n].copy()
        depth = self._depth.numpy()[:n]
        # every node covers the items of the leaves of its subtree, contiguous in preorder
        ends = np.cumsum(count)
        node_start, node_end = ends - count, ends[skip - 1]
        levels = []
        for d in range(int(depth.max()) + 1):
            p = np.flatnonzero(depth == d)
            levels.append((p, node_start[p], node_end[p]))
        empty = np.zeros((n, 3), np.float32)
        return bvh_build.BvhTree(
            lower=empty,
            upper=empty.copy(),
            skip=skip,
            first=first,
            count=count,
            items=self.arrays["items"].numpy().copy(),
            levels=levels,
            group_keys=self.arrays["group_keys"].numpy().copy(),
            group_roots=self.arrays["group_roots"].numpy().copy(),
        )
