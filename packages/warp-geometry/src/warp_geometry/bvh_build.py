"""Bounding volume hierarchy construction and refitting with vectorised NumPy.

The tree is built top down, one *level* at a time: every node of a level that holds more than
``leaf_size`` items sorts its items by centroid along the longest axis of their centroid bounds
and splits them at the median. All nodes of a level are processed by the same few NumPy calls
(a segmented sort), so the work is O(N log^2 N) in vector operations and there is no Python loop
over items or nodes, only over the ~log2(N) levels.

The result is stored *threaded* in depth-first (preorder) order, the layout kernels traverse
without a stack (see :mod:`warp_geometry.bvh_queries`):

- ``lower[n]``, ``upper[n]``: bounds of node ``n``;
- ``skip[n]``: the node that follows ``n``'s subtree in preorder (the next node to visit
  when the subtree is rejected); the first child of an inner node is ``n + 1``;
- ``first[n]``, ``count[n]``: for a leaf, its items are ``items[first:first + count]``
  (``count`` is 0 for inner nodes);
- ``items``: item indices, leaf by leaf.

Every node covers a contiguous range of ``items``, which makes refitting a per-level segmented
reduction over the items' bounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class BvhTree:
    """A threaded BVH (NumPy arrays, see the module docstring)."""

    lower: np.ndarray  # (num_nodes, 3) float32
    upper: np.ndarray  # (num_nodes, 3) float32
    skip: np.ndarray  # (num_nodes,) int32
    first: np.ndarray  # (num_nodes,) int32
    count: np.ndarray  # (num_nodes,) int32
    items: np.ndarray  # (num_items,) int32
    #: per level (root first): preorder indices of the level's nodes and their item ranges
    levels: list[tuple[np.ndarray, np.ndarray, np.ndarray]]

    @property
    def num_nodes(self) -> int:
        return int(self.skip.shape[0])


def _segments(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For disjoint ranges [starts[k], ends[k]): (segment id, position) of every element."""
    counts = ends - starts
    seg = np.repeat(np.arange(len(starts)), counts)
    offsets = np.cumsum(counts) - counts
    pos = starts[seg] + (np.arange(int(counts.sum())) - offsets[seg])
    return seg, pos


def _range_reduce(values: np.ndarray, starts: np.ndarray, ends: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    """``ufunc.reduce(values[s:e])`` for increasing, disjoint, non-empty ranges [s, e)."""
    padded = np.concatenate([values, values[:1]], axis=0)  # lets an index equal len(values)
    idx = np.empty(2 * len(starts), dtype=np.int64)
    idx[0::2], idx[1::2] = starts, ends
    return ufunc.reduceat(padded, idx, axis=0)[0::2]


def _morton(points: np.ndarray) -> np.ndarray:
    """30-bit Morton codes of points quantized to 1024 cells per axis of their bounding box."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    q = ((points - lo) / np.maximum(hi - lo, 1e-30) * 1023.0).astype(np.uint32)
    code = np.zeros(len(points), np.uint32)
    for bit in range(10):
        for axis in range(3):
            code |= ((q[:, axis] >> np.uint32(bit)) & np.uint32(1)) << np.uint32(3 * bit + 2 - axis)
    return code


def build(lowers: np.ndarray, uppers: np.ndarray, leaf_size: int = 1, method: str = "median") -> BvhTree:
    """Build a BVH over items with bounds ``lowers[i]``..``uppers[i]`` (arrays of shape (N, 3)).

    ``method="median"`` splits every node at the median along its longest axis (better trees);
    ``method="lbvh"`` sorts the items once along a Morton curve and splits that order in halves
    (several times faster to build, somewhat slower to query).
    """
    lowers = np.ascontiguousarray(lowers, dtype=np.float32).reshape(-1, 3)
    uppers = np.ascontiguousarray(uppers, dtype=np.float32).reshape(-1, 3)
    n = lowers.shape[0]
    leaf_size = max(1, int(leaf_size))
    if n == 0:
        inf = np.float32(np.inf)
        return BvhTree(
            lower=np.full((1, 3), inf, np.float32),
            upper=np.full((1, 3), -inf, np.float32),
            skip=np.ones(1, np.int32),
            first=np.zeros(1, np.int32),
            count=np.zeros(1, np.int32),
            items=np.zeros(0, np.int32),
            levels=[],
        )
    centroid = 0.5 * (lowers.astype(np.float64) + uppers.astype(np.float64))
    # items sorted by centroid along each axis; every level partitions all three lists stably,
    # so within every node's range each list stays sorted along its axis (as in kd-tree builds)
    if method == "lbvh":
        lists = np.argsort(_morton(centroid), kind="stable")[None, :]
    else:
        lists = np.stack([np.argsort(centroid[:, a], kind="stable") for a in range(3)])
    left_item = np.zeros(n, dtype=bool)

    # -- topology and item order, level by level (nodes numbered breadth first) ------------
    level_starts, level_ends, level_parent_child = [], [], []
    starts, ends = np.array([0]), np.array([n])
    while len(starts):
        level_starts.append(starts)
        level_ends.append(ends)
        split = (ends - starts) > leaf_size
        s, e = starts[split], ends[split]
        mid = s + (e - s + 1) // 2
        if len(s) and method != "lbvh":
            ext = np.stack(
                [centroid[lists[a, e - 1], a] - centroid[lists[a, s], a] for a in range(3)], axis=1
            )
            axis = np.argmax(ext, axis=1)
            seg, pos = _segments(s, e)
            left_item[lists[axis[seg], pos]] = pos < mid[seg]
            for a in range(3):
                x = lists[a, pos]
                flag = left_item[x]
                lefts = np.cumsum(flag) - flag  # left items before this one in the whole sequence
                seg_base = lefts[np.searchsorted(pos, s)]  # ... before this segment
                nl = lefts - seg_base[seg]  # left items before this one in its segment
                offset_in_seg = pos - s[seg]
                dest = np.where(flag, s[seg] + nl, mid[seg] + (offset_in_seg - nl))
                lists[a, dest] = x
        level_parent_child.append(split)
        starts = np.stack([s, mid], axis=1).reshape(-1)
        ends = np.stack([mid, e], axis=1).reshape(-1)
    order = lists[0]

    # -- subtree sizes (bottom up) and preorder numbers (top down) ---------------------------
    num_levels = len(level_starts)
    sizes: list[np.ndarray] = [np.ones(len(s), dtype=np.int64) for s in level_starts]
    for d in range(num_levels - 2, -1, -1):
        split = level_parent_child[d]
        if split.any():
            child = sizes[d + 1].reshape(-1, 2).sum(axis=1)
            sizes[d][split] += child
    pre: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
    for d in range(num_levels - 1):
        split = level_parent_child[d]
        parent = pre[d][split]
        left_size = sizes[d + 1].reshape(-1, 2)[:, 0]
        pre.append(np.stack([parent + 1, parent + 1 + left_size], axis=1).reshape(-1))

    num_nodes = int(sizes[0][0])
    skip = np.empty(num_nodes, np.int32)
    first = np.zeros(num_nodes, np.int32)
    count = np.zeros(num_nodes, np.int32)
    levels = []
    for d in range(num_levels):
        p, s, e = pre[d], level_starts[d], level_ends[d]
        skip[p] = p + sizes[d]
        leaf = ~level_parent_child[d] if d < len(level_parent_child) else np.ones(len(p), bool)
        first[p[leaf]] = s[leaf]
        count[p[leaf]] = (e - s)[leaf]
        levels.append((p, s, e))
    tree = BvhTree(
        lower=np.empty((num_nodes, 3), np.float32),
        upper=np.empty((num_nodes, 3), np.float32),
        skip=skip,
        first=first,
        count=count,
        items=order.astype(np.int32),
        levels=levels,
    )
    refit(tree, lowers, uppers)
    return tree


def refit(tree: BvhTree, lowers: np.ndarray, uppers: np.ndarray) -> None:
    """Recompute node bounds in place from new item bounds (same items, same topology)."""
    if not tree.levels:
        return
    lo = np.asarray(lowers, dtype=np.float32).reshape(-1, 3)[tree.items]
    hi = np.asarray(uppers, dtype=np.float32).reshape(-1, 3)[tree.items]
    for p, s, e in tree.levels:
        tree.lower[p] = _range_reduce(lo, s, e, np.minimum)
        tree.upper[p] = _range_reduce(hi, s, e, np.maximum)
