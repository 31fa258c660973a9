"""``wp.Bvh``: a bounding volume hierarchy over user boxes, queryable from kernels by ``id``."""

from __future__ import annotations

from typing import Any

import numpy as np

import warp as wp
from warp_geometry import bvh_build
from warp_geometry.bvh_nodes import BvhNode
from warp_geometry.bvh_tree import TreeArrays
from warp_geometry.checks import check_array, check_vec3_array
from warp_geometry.descriptors import Descriptor, Releasable

#: accepted values of ``constructor``: "lbvh" builds along a Morton curve (in kernels on the
#: device), "sah" and "median" with median splits on the longest axis (NumPy, on the host);
#: None is "lbvh" on CUDA devices and "median" on the CPU
CONSTRUCTORS = ("sah", "median", "lbvh")


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


def build_method(constructor: Any) -> str:
    """The NumPy builder's method for a ``constructor`` argument."""
    return "lbvh" if constructor == "lbvh" else "median"


def builds_on_device(constructor: Any, device: Any) -> bool:
    """Whether a tree for ``constructor`` on ``device`` is built in kernels on the device (the
    LBVH builder: "lbvh", and None on a CUDA device) rather than with NumPy on the host (median
    splits: "sah"/"median", and None on the CPU, whose trees query faster)."""
    return constructor == "lbvh" or (constructor is None and not device.is_cpu)


def build_tree(lowers: Any, uppers: Any, leaf_size: int, constructor: Any, groups: Any) -> TreeArrays:
    """The tree over boxes ``lowers``/``uppers`` (``wp.vec3`` arrays) on their device: built in
    kernels there or with NumPy on the host (a CUDA device's bounds are read back for it)."""
    if lowers.shape[0] and builds_on_device(constructor, lowers.device):
        return TreeArrays.build_on_device(lowers, uppers, leaf_size, groups)
    lo, hi = lowers.numpy(), uppers.numpy()
    group_of = None if groups is None else groups.numpy()
    tree = bvh_build.build(lo, hi, leaf_size, build_method(constructor), group_of)
    return TreeArrays.from_host(tree, lowers.device)


def check_groups(groups: Any, count: int, owner: str, what: str) -> None:
    """Validate the ``groups`` argument (None, or a 1-d ``wp.int32`` array with one group per item)."""
    if groups is None:
        return
    check_array(groups, owner, "groups", wp.int32)
    if groups.shape[0] != count:
        raise ValueError(
            f"{owner}: 'groups' holds {groups.shape[0]} values, expected one per {what} ({count})"
        )


def is_cubql_available() -> bool:
    """Whether the cuBQL BVH builder (``constructor="cubql"`` in NVIDIA Warp, a CUDA library) can
    be used: never here; BVHs are built by this project's "sah"/"median" and "lbvh" builders."""
    return False


def check_constructor(constructor: Any, leaf_size: Any, owner: str, grouped: bool = False) -> int:
    """Validate ``constructor``/``leaf_size`` arguments (``grouped``: ``groups`` were given);
    returns the leaf size."""
    if constructor == "cubql" and grouped:
        raise RuntimeError(
            f"{owner}: Grouped BVHs cannot be built with the cuBQL constructor; "
            f"use one of {CONSTRUCTORS} or None"
        )
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


class Bvh(Releasable):
    """Bounding volume hierarchy over boxes ``lowers[i]``..``uppers[i]`` (``wp.vec3`` arrays).

    ``id`` identifies it in kernels (``wp.bvh_query_aabb(id, lo, hi)``,
    ``wp.bvh_query_ray(id, start, dir)``). After changing the bounds in place call
    :meth:`refit` (kernels on the BVH's device). ``constructor``: "lbvh" sorts the boxes along
    a Morton curve (fast build, in kernels on the BVH's device), "sah" and "median" split
    at the median of the longest axis (NumPy, on the host); None is "lbvh" on CUDA devices and
    "median" on the CPU. ``groups`` (a ``wp.int32`` array,
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
        check_groups(groups, lowers.shape[0], "wp.Bvh", "box")
        if groups is not None and groups.device != lowers.device:
            raise ValueError(f"wp.Bvh: groups are on {groups.device} but lowers on {lowers.device}")
        leaf = check_constructor(constructor, leaf_size, "wp.Bvh", grouped=groups is not None)
        self.device = lowers.device
        self.lowers = lowers
        self.uppers = uppers
        self.groups = groups
        self.constructor = constructor
        self.leaf_size = leaf
        self._tree = build_tree(lowers, uppers, leaf, constructor, groups)
        self._descriptor = Descriptor(BvhData, self.device)
        self._descriptor.update(**self._tree.fields(), item_lower=lowers, item_upper=uppers)

    @property
    def id(self) -> int:
        """Unique ``uint64`` identifier of this BVH in kernels."""
        return self._descriptor.address

    def refit(self) -> None:
        """Recompute the node bounds after ``lowers``/``uppers`` changed (same number of boxes)."""
        self._tree.refit(self.lowers, self.uppers)

    def rebuild(self, constructor: str | None = None) -> None:
        """Build the tree again over the current ``lowers``/``uppers`` (better queries than a
        refit after large motions); ``id`` stays valid. ``constructor`` None keeps the one the
        BVH was made with. Not capturable in a CUDA graph (the build reads back its node count)."""
        if constructor is not None:
            check_constructor(constructor, self.leaf_size, "wp.Bvh.rebuild", grouped=self.groups is not None)
            self.constructor = constructor
        if self.device.is_capturing:
            raise RuntimeError(
                "wp.Bvh.rebuild: a BVH cannot be rebuilt while a CUDA graph is captured on "
                f"{self.device} (the build reads its node count back); use refit() in graphs"
            )
        self._tree = build_tree(self.lowers, self.uppers, self.leaf_size, self.constructor, self.groups)
        self._descriptor.update(**self._tree.fields(), item_lower=self.lowers, item_upper=self.uppers)
