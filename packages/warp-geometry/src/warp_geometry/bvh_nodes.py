"""The packed BVH node record of traversals with a stack, and packing a NumPy tree's nodes."""

from __future__ import annotations

import numpy as np

import warp as wp
from warp_geometry.bvh_build import BvhTree


@wp.struct
class BvhNode:
    """One node in 32 bytes (one load per node for traversals that visit children in any order):
    an inner node's children are ``n + 1`` and ``next``; a leaf (``count`` > 0) holds the items
    ``items[next:next + count]``."""

    lower: wp.vec3
    next: wp.int32
    upper: wp.vec3
    count: wp.int32


def packed_nodes(tree: BvhTree) -> np.ndarray:
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
