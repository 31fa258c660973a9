"""Refitting a threaded BVH on its device: node bounds level by level, deepest first.

Every tree (from the NumPy builder or the device builder) carries a :class:`LevelOrder`: its
nodes grouped by depth, deepest first. One launch per level computes each node's box from its
items (a leaf) or from its two children ``n + 1`` and ``skip[n + 1]`` (an inner node), which
the previous launch finished, and writes the packed :class:`~warp_geometry.bvh_nodes.BvhNode`
copy too. No atomics, so the result is the same on every device and equals the NumPy refit.

On a CUDA device the level launches cost more host time than the GPU spends on them (a tree of
100k triangles has about 20 levels: 0.22 ms of launches on an H200 host). From the second refit
of a tree over the same arrays on, they are recorded once into a CUDA graph and replayed with
one launch (not while the caller itself is capturing a graph: its capture records the launches).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import warp as wp
from warp_geometry.bvh_nodes import BvhNode

#: depths a tree may have (the device builder's trees are at most ~97 deep)
MAX_DEPTH = 128
#: refits of a tree over the same arrays after which its level launches are replayed from a graph
GRAPH_AFTER = 2
#: the tree arrays the refit kernel reads or writes
_TREE_ARRAYS = ("skip", "first", "count", "items", "lower", "upper", "nodes")


@wp.kernel
def _order_by_depth(
    depth: wp.array(dtype=wp.int32),
    base: wp.array(dtype=wp.int32),
    fill: wp.array(dtype=wp.int32),
    order: wp.array(dtype=wp.int32),
):
    n = wp.tid()
    d = depth[n]
    order[base[d] + wp.atomic_add(fill, d, 1)] = n


@wp.kernel
def _refit_level(
    order: wp.array(dtype=wp.int32),
    offset: int,
    skip: wp.array(dtype=wp.int32),
    first: wp.array(dtype=wp.int32),
    count: wp.array(dtype=wp.int32),
    items: wp.array(dtype=wp.int32),
    item_lower: wp.array(dtype=wp.vec3),
    item_upper: wp.array(dtype=wp.vec3),
    lower: wp.array(dtype=wp.vec3),
    upper: wp.array(dtype=wp.vec3),
    nodes: wp.array(dtype=BvhNode),
):
    n = order[offset + wp.tid()]
    c = count[n]
    node = BvhNode()
    if c > 0:
        f = first[n]
        it = items[f]
        lo = item_lower[it]
        hi = item_upper[it]
        for k in range(f + 1, f + c):
            it = items[k]
            lo = wp.min(lo, item_lower[it])
            hi = wp.max(hi, item_upper[it])
        node.next = f
    else:
        a = n + 1
        b = skip[a]
        lo = wp.min(lower[a], lower[b])
        hi = wp.max(upper[a], upper[b])
        node.next = b
    lower[n] = lo
    upper[n] = hi
    node.lower = lo
    node.upper = hi
    node.count = c
    nodes[n] = node


class LevelOrder:
    """A tree's node numbers grouped by depth, deepest level first, on the tree's device, and the
    (start, size) of every level in that order (host integers, for the launches)."""

    def __init__(self, order: Any, spans: list[tuple[int, int]]):
        self.order = order
        self.spans = spans
        #: the CUDA graph of the level launches, the arrays' addresses it was recorded for, the
        #: arrays themselves (kept alive while the graph may run) and the refits seen with them
        self.graph: Any = None
        self.graph_key: tuple[int, ...] | None = None
        self.graph_arrays: tuple[Any, ...] = ()
        self.refits = 0

    @classmethod
    def from_host_levels(
        cls, levels: list[tuple[np.ndarray, np.ndarray, np.ndarray]], device: Any
    ) -> LevelOrder:
        """From a NumPy tree's ``levels`` (root level first)."""
        parts = [np.asarray(p, np.int32) for p, _, _ in reversed(levels)]
        spans, start = [], 0
        for p in parts:
            spans.append((start, len(p)))
            start += len(p)
        order = np.concatenate(parts) if parts else np.zeros(0, np.int32)
        return cls(wp.array(order, dtype=wp.int32, device=device), spans)

    @classmethod
    def from_depths(cls, depth: Any, per_level: np.ndarray, num_nodes: int) -> LevelOrder:
        """From every node's depth (a device array) and the nodes per depth (host counts)."""
        device = depth.device
        counts = np.asarray(per_level, np.int64)
        deepest_first = counts[::-1]
        starts = np.cumsum(deepest_first) - deepest_first  # per depth, reversed
        base = starts[::-1].astype(np.int32)
        order = wp.empty(num_nodes, dtype=wp.int32, device=device)
        fill = wp.zeros(len(counts), dtype=wp.int32, device=device)
        base_arr = wp.array(base, dtype=wp.int32, device=device)
        if num_nodes:
            wp.launch(_order_by_depth, dim=num_nodes, inputs=[depth, base_arr, fill, order], device=device)
        spans = [(int(base[d]), int(counts[d])) for d in range(len(counts) - 1, -1, -1) if counts[d]]
        return cls(order, spans)


def refit(levels: LevelOrder, tree: dict[str, Any], item_lower: Any, item_upper: Any) -> None:
    """Recompute ``tree``'s ``lower``/``upper``/``nodes`` (device arrays, in place) from the item
    bounds; ``tree`` also holds ``skip``, ``first``, ``count`` and ``items``."""
    device = item_lower.device
    if device.is_cpu or device.is_capturing:
        _launch_levels(levels, tree, item_lower, item_upper)
        return
    arrays = (levels.order, item_lower, item_upper, *(tree[name] for name in _TREE_ARRAYS))
    key = tuple(int(a.ptr) for a in arrays)
    if levels.graph_key != key:
        levels.graph, levels.graph_key, levels.graph_arrays, levels.refits = None, key, (), 0
    levels.refits += 1
    if levels.graph is None and levels.refits >= GRAPH_AFTER:
        with wp.ScopedCapture(device=device) as capture:
            _launch_levels(levels, tree, item_lower, item_upper)
        levels.graph, levels.graph_arrays = capture.graph, arrays
    if levels.graph is None:
        _launch_levels(levels, tree, item_lower, item_upper)
    else:
        wp.capture_launch(levels.graph)


def _launch_levels(levels: LevelOrder, tree: dict[str, Any], item_lower: Any, item_upper: Any) -> None:
    """One launch of the refit kernel per level, deepest first."""
    device = item_lower.device
    for start, size in levels.spans:
        inputs = [levels.order, start, tree["skip"], tree["first"], tree["count"], tree["items"]]
        inputs += [item_lower, item_upper, tree["lower"], tree["upper"], tree["nodes"]]
        wp.launch(_refit_level, dim=size, inputs=inputs, device=device)
