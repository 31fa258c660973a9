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

from dataclasses import dataclass, field

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
    #: grouped trees: the group numbers, sorted, and the root node of each group's subtree
    group_keys: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    group_roots: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))

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


def _group_splits(gkey: np.ndarray, glist: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """For nodes [s, e) holding several groups (``glist`` sorted by group within each node): the
    group boundary nearest to each node's middle."""
    seg, pos = _segments(s, e)
    g = gkey[glist[pos]]
    change = np.zeros(len(pos), bool)
    change[1:] = (g[1:] != g[:-1]) & (seg[1:] == seg[:-1])
    cand_pos, cand_seg = pos[change], seg[change]
    order = np.lexsort((np.abs(2 * cand_pos - (s + e)[cand_seg]), cand_seg))
    _, first = np.unique(cand_seg[order], return_index=True)
    return cand_pos[order][first]


def build(
    lowers: np.ndarray,
    uppers: np.ndarray,
    leaf_size: int = 1,
    method: str = "median",
    groups: np.ndarray | None = None,
) -> BvhTree:
    """Build a BVH over items with bounds ``lowers[i]``..``uppers[i]`` (arrays of shape (N, 3)).

    ``method="median"`` splits every node at the median along its longest axis (better trees);
    ``method="lbvh"`` sorts the items once along a Morton curve and splits that order in halves
    (several times faster to build, somewhat slower to query).

    ``groups`` (one integer per item) makes a grouped tree: nodes holding items of several groups
    are split between groups first (at the group boundary nearest to their middle), so every
    group's items form one subtree, whose root is recorded in ``group_keys``/``group_roots``.
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
    gkey = None
    if groups is not None:
        gkey = np.asarray(groups, dtype=np.int64).reshape(-1)
        # one more list, sorted by group, partitioned like the others
        lists = np.concatenate([lists, np.argsort(gkey, kind="stable")[None, :]])
    left_item = np.zeros(n, dtype=bool)
    level_multi: list[np.ndarray] = []

    # -- topology and item order, level by level (nodes numbered breadth first) ------------
    level_starts, level_ends, level_parent_child = [], [], []
    starts, ends = np.array([0]), np.array([n])
    while len(starts):
        level_starts.append(starts)
        level_ends.append(ends)
        multi = np.zeros(len(starts), bool)
        if gkey is not None:
            glist = lists[-1]
            multi = gkey[glist[starts]] != gkey[glist[ends - 1]]
        level_multi.append(multi)
        split = ((ends - starts) > leaf_size) | multi
        s, e = starts[split], ends[split]
        mid = s + (e - s + 1) // 2
        by_group = multi[split]
        spatial = ~by_group if method != "lbvh" else np.zeros(len(s), bool)
        if by_group.any():
            assert gkey is not None  # multi (hence by_group) is set only with groups
            mid[by_group] = _group_splits(gkey, lists[-1], s[by_group], e[by_group])
        if spatial.any():
            seg, pos = _segments(s[spatial], e[spatial])
            ss, ee, mm = s[spatial], e[spatial], mid[spatial]
            ext = np.stack(
                [centroid[lists[a, ee - 1], a] - centroid[lists[a, ss], a] for a in range(3)], axis=1
            )
            axis = np.argmax(ext, axis=1)
            left_item[lists[axis[seg], pos]] = pos < mm[seg]
        if by_group.any():
            seg, pos = _segments(s[by_group], e[by_group])
            left_item[lists[-1, pos]] = pos < mid[by_group][seg]
        # stable partition of every list in the nodes that moved items (lbvh halves keep their order)
        part = spatial | by_group
        if part.any():
            sp, mp = s[part], mid[part]
            seg, pos = _segments(sp, e[part])
            for a in range(lists.shape[0]):
                x = lists[a, pos]
                flag = left_item[x]
                lefts = np.cumsum(flag) - flag  # left items before this one in the whole sequence
                seg_base = lefts[np.searchsorted(pos, sp)]  # ... before this segment
                nl = lefts - seg_base[seg]  # left items before this one in its segment
                offset_in_seg = pos - sp[seg]
                dest = np.where(flag, sp[seg] + nl, mp[seg] + (offset_in_seg - nl))
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
    if gkey is not None:
        tree.group_keys, tree.group_roots = _group_roots(
            gkey, order, pre, level_starts, level_multi, level_parent_child
        )
    refit(tree, lowers, uppers)
    return tree


def _group_roots(
    gkey: np.ndarray,
    order: np.ndarray,
    pre: list[np.ndarray],
    level_starts: list[np.ndarray],
    level_multi: list[np.ndarray],
    level_split: list[np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """(sorted group numbers, root node of each): the single-group nodes whose parent holds
    several groups (or the tree's root when there is one group)."""
    keys, roots = [], []
    parent_multi = np.ones(1, bool)
    for d in range(len(pre)):
        top = parent_multi & ~level_multi[d]
        keys.append(gkey[order[level_starts[d][top]]])
        roots.append(pre[d][top])
        if d < len(level_split):
            parent_multi = np.repeat(level_multi[d][level_split[d]], 2)
    k, r = np.concatenate(keys), np.concatenate(roots)
    by_key = np.argsort(k, kind="stable")
    return k[by_key].astype(np.int32), r[by_key].astype(np.int32)


def refit(tree: BvhTree, lowers: np.ndarray, uppers: np.ndarray) -> None:
    """Recompute node bounds in place from new item bounds (same items, same topology)."""
    if not tree.levels:
        return
    lo = np.asarray(lowers, dtype=np.float32).reshape(-1, 3)[tree.items]
    hi = np.asarray(uppers, dtype=np.float32).reshape(-1, 3)[tree.items]
    for p, s, e in tree.levels:
        tree.lower[p] = _range_reduce(lo, s, e, np.minimum)
        tree.upper[p] = _range_reduce(hi, s, e, np.maximum)
