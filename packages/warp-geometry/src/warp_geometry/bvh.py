"""``wp.Bvh``: a bounding volume hierarchy over user boxes, queryable from kernels by ``id``."""

from __future__ import annotations

from typing import Any

import numpy as np

import warp as wp
from warp_geometry import bvh_build
from warp_geometry.checks import check_array, check_vec3_array
from warp_geometry.descriptors import Descriptor

#: accepted values of ``constructor``: "lbvh" builds along a Morton curve, the others (and None)
#: with median splits on the longest axis
CONSTRUCTORS = ("sah", "median", "lbvh")


@wp.struct
class BvhNode:
    """One node in 32 bytes (one load per node for traversals that visit children in any order):
    an inner node's children are ``n + 1`` and ``next``; a leaf (``count`` > 0) holds the items
    ``items[next:next + count]``."""

    lower: wp.vec3
    next: wp.int32
    upper: wp.vec3
    count: wp.int32


def packed_nodes(tree: bvh_build.BvhTree) -> np.ndarray:
    """The nodes of ``tree`` as a NumPy structured array of :class:`BvhNode` records."""
    nodes: np.ndarray = np.zeros(tree.num_nodes, dtype=BvhNode.numpy_dtype())  # type: ignore[attr-defined]
    nodes["lower"] = tree.lower
    nodes["upper"] = tree.upper
    nodes["count"] = tree.count
    inner = tree.count == 0
    right = np.zeros(tree.num_nodes, np.int32)
    has_child = inner & (np.arange(tree.num_nodes) + 1 < tree.num_nodes)
    right[has_child] = tree.skip[np.flatnonzero(has_child) + 1]
    nodes["next"] = np.where(inner, right, tree.first)
    return nodes


@wp.struct
class BvhData:
    """Kernel-side BVH: threaded node arrays (see :mod:`warp_geometry.bvh_build`) and item bounds."""

    lower: wp.array(dtype=wp.vec3)
    upper: wp.array(dtype=wp.vec3)
    skip: wp.array(dtype=wp.int32)
    first: wp.array(dtype=wp.int32)
    count: wp.array(dtype=wp.int32)
    items: wp.array(dtype=wp.int32)
    item_lower: wp.array(dtype=wp.vec3)
    item_upper: wp.array(dtype=wp.vec3)
    num_nodes: wp.int32
    num_items: wp.int32
    #: the same nodes packed for traversals with a stack (see :class:`BvhNode`)
    nodes: wp.array(dtype=BvhNode)
    #: grouped trees: the group numbers (sorted) and the root node of each group's subtree
    group_keys: wp.array(dtype=wp.int32)
    group_roots: wp.array(dtype=wp.int32)


class TreeArrays:
    """A built tree's node arrays on a device, refitted in place."""

    def __init__(self, tree: bvh_build.BvhTree, device: Any):
        self.tree = tree
        self.lower = wp.array(tree.lower, dtype=wp.vec3, device=device)
        self.upper = wp.array(tree.upper, dtype=wp.vec3, device=device)
        self.skip = wp.array(tree.skip, dtype=wp.int32, device=device)
        self.first = wp.array(tree.first, dtype=wp.int32, device=device)
        self.count = wp.array(tree.count, dtype=wp.int32, device=device)
        self.items = wp.array(tree.items, dtype=wp.int32, device=device)
        self.nodes = wp.array(packed_nodes(tree), dtype=BvhNode, device=device)
        self.group_keys = wp.array(tree.group_keys, dtype=wp.int32, device=device)
        self.group_roots = wp.array(tree.group_roots, dtype=wp.int32, device=device)

    def fields(self) -> dict[str, Any]:
        """The BvhData fields describing this tree (item bounds excluded)."""
        return {
            "lower": self.lower,
            "upper": self.upper,
            "skip": self.skip,
            "first": self.first,
            "count": self.count,
            "items": self.items,
            "nodes": self.nodes,
            "group_keys": self.group_keys,
            "group_roots": self.group_roots,
            "num_nodes": self.tree.num_nodes,
            "num_items": int(self.items.shape[0]),
        }

    def refit(self, lowers: np.ndarray, uppers: np.ndarray) -> None:
        bvh_build.refit(self.tree, lowers, uppers)
        self.lower.assign(self.tree.lower)
        self.upper.assign(self.tree.upper)
        self.nodes.assign(packed_nodes(self.tree))


def build_method(constructor: Any) -> str:
    """The builder method for a ``constructor`` argument."""
    return "lbvh" if constructor == "lbvh" else "median"


def group_numbers(groups: Any, count: int, owner: str, what: str) -> np.ndarray | None:
    """The ``groups`` argument (None, or a 1-d ``wp.int32`` array with one group per item) as NumPy."""
    if groups is None:
        return None
    check_array(groups, owner, "groups", wp.int32)
    if groups.shape[0] != count:
        raise ValueError(
            f"{owner}: 'groups' holds {groups.shape[0]} values, expected one per {what} ({count})"
        )
    return groups.numpy()


def is_cubql_available() -> bool:
    """Whether the cuBQL BVH builder (``constructor="cubql"`` in NVIDIA Warp, a CUDA library) can
    be used: never here; BVHs are built by this project's "sah"/"median" and "lbvh" builders."""
    return False


def check_constructor(constructor: Any, leaf_size: Any, owner: str) -> int:
    """Validate ``constructor``/``leaf_size`` arguments; returns the leaf size."""
    if constructor == "cubql":
        raise RuntimeError(
            f"{owner}: the cuBQL BVH constructor is not available (wp.is_cubql_available() is False); "
            f"use one of {CONSTRUCTORS} or None"
        )
    if constructor is not None and constructor not in CONSTRUCTORS:
        raise ValueError(
            f"{owner}: unknown BVH constructor {constructor!r}; expected one of {CONSTRUCTORS} or None"
        )
    if not isinstance(leaf_size, (int, np.integer)) or isinstance(leaf_size, bool) or leaf_size < 1:
        raise ValueError(f"{owner}: leaf_size must be a positive integer, got {leaf_size!r}")
    return int(leaf_size)


class Bvh:
    """Bounding volume hierarchy over boxes ``lowers[i]``..``uppers[i]`` (``wp.vec3`` arrays).

    ``id`` identifies it in kernels (``wp.bvh_query_aabb(id, lo, hi)``,
    ``wp.bvh_query_ray(id, start, dir)``). After changing the bounds in place call
    :meth:`refit`. ``constructor``: "lbvh" sorts the boxes along a Morton curve (fast build),
    "sah", "median" and None split at the median of the longest axis. ``groups`` (a ``wp.int32`` array,
    one group number per box) makes every group a subtree, whose root ``bvh_get_group_root(id, group)``
    returns for the queries' ``root`` argument.
    """

    def __init__(
        self, lowers: Any, uppers: Any, constructor: str | None = None, groups: Any = None, leaf_size: int = 1
    ):
        check_vec3_array(lowers, "wp.Bvh", "lowers")
        check_vec3_array(uppers, "wp.Bvh", "uppers")
        if lowers.shape != uppers.shape:
            raise ValueError(
                f"wp.Bvh: lowers {lowers.shape} and uppers {uppers.shape} must have the same shape"
            )
        if lowers.device != uppers.device:
            raise ValueError(f"wp.Bvh: lowers are on {lowers.device} but uppers on {uppers.device}")
        group_of = group_numbers(groups, lowers.shape[0], "wp.Bvh", "box")
        if groups is not None and groups.device != lowers.device:
            raise ValueError(f"wp.Bvh: groups are on {groups.device} but lowers on {lowers.device}")
        leaf = check_constructor(constructor, leaf_size, "wp.Bvh")
        self.device = lowers.device
        self.lowers = lowers
        self.uppers = uppers
        self.groups = groups
        tree = bvh_build.build(lowers.numpy(), uppers.numpy(), leaf, build_method(constructor), group_of)
        self._tree = TreeArrays(tree, self.device)
        self._descriptor = Descriptor(BvhData, self.device)
        self._descriptor.update(**self._tree.fields(), item_lower=lowers, item_upper=uppers)

    @property
    def id(self) -> int:
        """Unique ``uint64`` identifier of this BVH in kernels."""
        return self._descriptor.address

    def refit(self) -> None:
        """Recompute the node bounds after ``lowers``/``uppers`` changed (same number of boxes)."""
        self._tree.refit(self.lowers.numpy(), self.uppers.numpy())
