"""Linear BVH (LBVH) construction in kernels on the items' device, no round trip through the host.

Produces the threaded preorder layout of :mod:`warp_geometry.bvh_build` (``skip``, ``first``,
``count``, ``items``), so the queries are the same whichever builder made the tree:

1. the bounds of the items' centroids (chunk reductions), and every item's 30-bit Morton code
   in them;
2. a stable radix sort of the item indices by Morton code (:mod:`warp_builtins.device_sort`);
   with ``groups``, then stably by group, so every group is one run of the order;
3. Karras' (2012) binary radix tree over the sorted keys: internal node ``i`` (of ``n - 1``)
   finds its range and split in parallel; a key is (group, Morton code, position), so duplicate
   codes split by position and groups split first (every group becomes a subtree);
4. subtrees of at most ``leaf_size`` items of one group become leaves: a node is kept when its
   parent is split, a kept node that is not split is a leaf. A scan of "a leaf starts at this
   item" counts the leaves before every item; a kept node covering items ``[a, b)`` is then
   numbered in preorder as ``2 * leaves_before(a) + (left turns from the root)`` and its
   subtree has ``2 * leaves(a, b) - 1`` nodes (so ``skip``), found by walking up its parents;
5. nodes are bucketed by depth (the only read back: one histogram of 128 depths, which gives
   the node count); bounds are then refitted level by level from the deepest
   (:mod:`warp_geometry.bvh_refit`).
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp_builtins import device_sort
from warp_geometry.bvh_refit import MAX_DEPTH, LevelOrder

#: items per thread of every level of the centroid-bounds reduction (a thread's loop runs at
#: memory latency on a GPU: short chunks, then the chunk boxes merged by chunks in turn)
BOUNDS_CHUNK = 32


@wp.kernel
def _centroid_bounds_chunks(
    lowers: wp.array(dtype=wp.vec3),
    uppers: wp.array(dtype=wp.vec3),
    n: int,
    chunk: int,
    chunk_lo: wp.array(dtype=wp.vec3),
    chunk_hi: wp.array(dtype=wp.vec3),
):
    c = wp.tid()
    first = c * chunk
    last = wp.min(first + chunk, n)
    lo = 0.5 * (lowers[first] + uppers[first])
    hi = lo
    for i in range(first + 1, last):
        x = 0.5 * (lowers[i] + uppers[i])
        lo = wp.min(lo, x)
        hi = wp.max(hi, x)
    chunk_lo[c] = lo
    chunk_hi[c] = hi


@wp.kernel
def _merge_bounds(
    lo: wp.array(dtype=wp.vec3),
    hi: wp.array(dtype=wp.vec3),
    base: int,
    n: int,
    chunk: int,
    out_base: int,
):
    # the boxes [base, base + n) of lo/hi merged by chunks into out_base + c
    c = wp.tid()
    first = base + c * chunk
    last = wp.min(first + chunk, base + n)
    a = lo[first]
    b = hi[first]
    for i in range(first + 1, last):
        a = wp.min(a, lo[i])
        b = wp.max(b, hi[i])
    lo[out_base + c] = a
    hi[out_base + c] = b


@wp.kernel
def _store_bounds(
    lo: wp.array(dtype=wp.vec3), hi: wp.array(dtype=wp.vec3), index: int, bounds: wp.array(dtype=wp.vec3)
):
    bounds[0] = lo[index]
    bounds[1] = hi[index]


@wp.func
def _spread10(v: int) -> int:
    """The low 10 bits of ``v`` moved to bits 0, 3, 6, ..., 27."""
    x = v & 1023
    x = (x | (x << 16)) & 0x030000FF
    x = (x | (x << 8)) & 0x0300F00F
    x = (x | (x << 4)) & 0x030C30C3
    x = (x | (x << 2)) & 0x09249249
    return x


@wp.func
def _cell(x: float, lo: float, hi: float) -> int:
    t = (x - lo) / wp.max(hi - lo, 1.0e-30) * 1023.0
    return wp.clamp(int(t), 0, 1023)


@wp.kernel
def _morton_codes(
    lowers: wp.array(dtype=wp.vec3),
    uppers: wp.array(dtype=wp.vec3),
    bounds: wp.array(dtype=wp.vec3),
    codes: wp.array(dtype=wp.int32),
    ids: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    c = 0.5 * (lowers[i] + uppers[i])
    lo = bounds[0]
    hi = bounds[1]
    x = _spread10(_cell(c[0], lo[0], hi[0]))
    y = _spread10(_cell(c[1], lo[1], hi[1]))
    z = _spread10(_cell(c[2], lo[2], hi[2]))
    codes[i] = (x << 2) | (y << 1) | z
    ids[i] = i


@wp.kernel
def _group_keys_of(
    groups: wp.array(dtype=wp.int32), ids: wp.array(dtype=wp.int32), keys: wp.array(dtype=wp.int32)
):
    k = wp.tid()
    # the sign bit flipped: signed group numbers sort as unsigned keys
    keys[k] = groups[ids[k]] ^ (1 << 31)


@wp.func
def _clz(x: int) -> int:
    """Leading zero bits of a 32-bit integer."""
    if x == 0:
        return 32
    if x < 0:
        return 0
    r = int(0)
    v = x
    if v >= 65536:
        v = v >> 16
        r += 16
    if v >= 256:
        v = v >> 8
        r += 8
    if v >= 16:
        v = v >> 4
        r += 4
    if v >= 4:
        v = v >> 2
        r += 2
    if v >= 2:
        r += 1
    return 31 - r


@wp.func
def _delta(codes: wp.array(dtype=wp.int32), gkeys: wp.array(dtype=wp.int32), n: int, i: int, j: int) -> int:
    """Length of the common prefix of the keys (group, code, position) of sorted items i and j;
    -1 when j is outside [0, n)."""
    if j < 0 or j >= n:
        return -1
    if gkeys.shape[0] > 0:
        g = gkeys[i] ^ gkeys[j]
        if g != 0:
            return _clz(g)
    x = codes[i] ^ codes[j]
    if x != 0:
        return 32 + _clz(x)
    return 64 + _clz(i ^ j)


@wp.kernel
def _init_leaves(
    n: int,
    node_a: wp.array(dtype=wp.int32),
    node_b: wp.array(dtype=wp.int32),
    left: wp.array(dtype=wp.int32),
    parent: wp.array(dtype=wp.int32),
):
    k = wp.tid()
    v = n - 1 + k
    node_a[v] = k
    node_b[v] = k + 1
    left[v] = -1
    if v == 0:
        parent[0] = -1


@wp.kernel
def _karras(
    codes: wp.array(dtype=wp.int32),
    gkeys: wp.array(dtype=wp.int32),
    n: int,
    node_a: wp.array(dtype=wp.int32),
    node_b: wp.array(dtype=wp.int32),
    left: wp.array(dtype=wp.int32),
    parent: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    d = int(1)
    if _delta(codes, gkeys, n, i, i - 1) > _delta(codes, gkeys, n, i, i + 1):
        d = -1
    dmin = _delta(codes, gkeys, n, i, i - d)
    lmax = int(2)
    while _delta(codes, gkeys, n, i, i + lmax * d) > dmin:
        lmax = lmax * 2
    l = int(0)
    t = lmax // 2
    while t >= 1:
        if _delta(codes, gkeys, n, i, i + (l + t) * d) > dmin:
            l += t
        t = t // 2
    j = i + l * d
    dnode = _delta(codes, gkeys, n, i, j)
    s = int(0)
    step = l
    searching = bool(True)
    while searching:
        step = (step + 1) // 2
        if _delta(codes, gkeys, n, i, i + (s + step) * d) > dnode:
            s += step
        if step <= 1:
            searching = False
    split = i + s * d + wp.min(d, 0)
    a = wp.min(i, j)
    b = wp.max(i, j)
    lc = split
    if a == split:
        lc = n - 1 + split
    rc = split + 1
    if b == split + 1:
        rc = n - 1 + split + 1
    node_a[i] = a
    node_b[i] = b + 1
    left[i] = lc
    parent[lc] = i
    parent[rc] = i
    if i == 0:
        parent[0] = -1


@wp.func
def _is_split(
    node_a: wp.array(dtype=wp.int32),
    node_b: wp.array(dtype=wp.int32),
    gkeys: wp.array(dtype=wp.int32),
    leaf_size: int,
    v: int,
) -> bool:
    a = node_a[v]
    b = node_b[v]
    if b - a > leaf_size:
        return True
    if gkeys.shape[0] > 0:
        return gkeys[a] != gkeys[b - 1]
    return False


@wp.func
def _is_kept(
    node_a: wp.array(dtype=wp.int32),
    node_b: wp.array(dtype=wp.int32),
    parent: wp.array(dtype=wp.int32),
    gkeys: wp.array(dtype=wp.int32),
    leaf_size: int,
    v: int,
) -> bool:
    if v == 0:
        return True
    return _is_split(node_a, node_b, gkeys, leaf_size, parent[v])


@wp.kernel
def _mark_leaves(
    node_a: wp.array(dtype=wp.int32),
    node_b: wp.array(dtype=wp.int32),
    parent: wp.array(dtype=wp.int32),
    gkeys: wp.array(dtype=wp.int32),
    leaf_size: int,
    marks: wp.array(dtype=wp.int32),
):
    v = wp.tid()
    if _is_kept(node_a, node_b, parent, gkeys, leaf_size, v):
        if not _is_split(node_a, node_b, gkeys, leaf_size, v):
            marks[node_a[v]] = 1


@wp.kernel
def _place_nodes(
    node_a: wp.array(dtype=wp.int32),
    node_b: wp.array(dtype=wp.int32),
    left: wp.array(dtype=wp.int32),
    parent: wp.array(dtype=wp.int32),
    gkeys: wp.array(dtype=wp.int32),
    leaf_size: int,
    leaves_before: wp.array(dtype=wp.int32),
    skip: wp.array(dtype=wp.int32),
    first: wp.array(dtype=wp.int32),
    count: wp.array(dtype=wp.int32),
    depth_of: wp.array(dtype=wp.int32),
    depth_hist: wp.array(dtype=wp.int32),
    group_root_at: wp.array(dtype=wp.int32),
):
    v = wp.tid()
    if not _is_kept(node_a, node_b, parent, gkeys, leaf_size, v):
        return
    depth = int(0)
    left_turns = int(0)
    c = v
    p = parent[c]
    while p >= 0:
        depth += 1
        if left[p] == c:
            left_turns += 1
        c = p
        p = parent[c]
    a = node_a[v]
    b = node_b[v]
    pre = 2 * leaves_before[a] + left_turns
    skip[pre] = pre + 2 * (leaves_before[b] - leaves_before[a]) - 1
    if _is_split(node_a, node_b, gkeys, leaf_size, v):
        first[pre] = 0
        count[pre] = 0
    else:
        first[pre] = a
        count[pre] = b - a
    d = wp.min(depth, 127)
    depth_of[pre] = d
    wp.atomic_add(depth_hist, d, 1)
    if gkeys.shape[0] > 0:
        top = v == 0
        if not top:
            pa = parent[v]
            top = gkeys[node_a[pa]] != gkeys[node_b[pa] - 1]
        if top and gkeys[a] == gkeys[b - 1]:
            group_root_at[a] = pre


@wp.kernel
def _flag_roots(group_root_at: wp.array(dtype=wp.int32), flags: wp.array(dtype=wp.int32)):
    k = wp.tid()
    f = int(0)
    if group_root_at[k] >= 0:
        f = 1
    flags[k] = f


@wp.kernel
def _compact_roots(
    group_root_at: wp.array(dtype=wp.int32),
    slots: wp.array(dtype=wp.int32),
    gkeys: wp.array(dtype=wp.int32),
    group_keys: wp.array(dtype=wp.int32),
    group_roots: wp.array(dtype=wp.int32),
):
    k = wp.tid()
    root = group_root_at[k]
    if root >= 0:
        group_keys[slots[k]] = gkeys[k] ^ (1 << 31)
        group_roots[slots[k]] = root


def _centroid_bounds(launch: Any, lowers: Any, uppers: Any, n: int, device: Any) -> Any:
    """The box of the ``n`` items' centroids as a 2-element array (lower, upper): chunk boxes of
    ``BOUNDS_CHUNK`` centroids, merged by chunks in turn down to one (every level in one pair of
    arrays)."""
    sizes = []
    m = n
    while True:
        m = (m + BOUNDS_CHUNK - 1) // BOUNDS_CHUNK
        sizes.append(m)
        if m == 1:
            break
    lo = wp.empty(sum(sizes), dtype=wp.vec3, device=device)
    hi = wp.empty(sum(sizes), dtype=wp.vec3, device=device)
    launch(_centroid_bounds_chunks, sizes[0], [lowers, uppers, n, BOUNDS_CHUNK, lo, hi])
    base = 0
    for below, size in zip(sizes, sizes[1:]):
        launch(_merge_bounds, size, [lo, hi, base, below, BOUNDS_CHUNK, base + below])
        base += below
    bounds = wp.empty(2, dtype=wp.vec3, device=device)
    launch(_store_bounds, 1, [lo, hi, base, bounds])
    return bounds


class DeviceBuild:
    """A tree built on the device: threaded node arrays (``num_nodes`` long), the sorted item
    ``items``, the nodes' depths and their level order; grouped trees also the group roots."""

    def __init__(self, lowers: Any, uppers: Any, leaf_size: int, groups: Any = None):
        n = int(lowers.shape[0])
        if n < 1:
            raise ValueError("DeviceBuild needs at least one item")
        device = lowers.device
        self.device = device
        launch = _launcher(device)

        bounds = _centroid_bounds(launch, lowers, uppers, n, device)
        codes = wp.empty(n, dtype=wp.int32, device=device)
        ids = wp.empty(n, dtype=wp.int32, device=device)
        launch(_morton_codes, n, [lowers, uppers, bounds, codes, ids])
        _, ids = device_sort.radix_sort_pairs(codes, ids, n, key_bits=30)
        gkeys = wp.empty(0, dtype=wp.int32, device=device)
        if groups is not None:
            gkeys = wp.empty(n, dtype=wp.int32, device=device)
            launch(_group_keys_of, n, [groups, ids, gkeys])
            gkeys, ids = device_sort.radix_sort_pairs(gkeys, ids, n, key_bits=32)
        sorted_codes = wp.empty(n, dtype=wp.int32, device=device)
        device_sort.gather(codes, ids, sorted_codes, n)
        self.items = ids

        total = 2 * n - 1
        node_a = wp.empty(total, dtype=wp.int32, device=device)
        node_b = wp.empty(total, dtype=wp.int32, device=device)
        left = wp.empty(total, dtype=wp.int32, device=device)
        parent = wp.empty(total, dtype=wp.int32, device=device)
        launch(_init_leaves, n, [n, node_a, node_b, left, parent])
        if n > 1:
            launch(_karras, n - 1, [sorted_codes, gkeys, n, node_a, node_b, left, parent])

        leaves_before = wp.zeros(n + 1, dtype=wp.int32, device=device)
        launch(_mark_leaves, total, [node_a, node_b, parent, gkeys, leaf_size, leaves_before])
        device_sort.exclusive_scan(leaves_before, leaves_before, n + 1)

        self.skip = wp.empty(total, dtype=wp.int32, device=device)
        self.first = wp.empty(total, dtype=wp.int32, device=device)
        self.count = wp.empty(total, dtype=wp.int32, device=device)
        self.depth = wp.empty(total, dtype=wp.int32, device=device)
        hist = wp.zeros(MAX_DEPTH, dtype=wp.int32, device=device)
        root_at = wp.full(n if groups is not None else 0, -1, dtype=wp.int32, device=device)
        place = [node_a, node_b, left, parent, gkeys, leaf_size, leaves_before]
        place += [self.skip, self.first, self.count, self.depth, hist, root_at]
        launch(_place_nodes, total, place)

        per_level = hist.numpy()  # the one read back: 128 counts
        self.num_nodes = int(per_level.sum())
        m = self.num_nodes
        self.skip, self.first, self.count, self.depth = (
            self.skip[:m],
            self.first[:m],
            self.count[:m],
            self.depth[:m],
        )
        self.levels = LevelOrder.from_depths(self.depth, per_level, self.num_nodes)

        self.group_keys = wp.zeros(0, dtype=wp.int32, device=device)
        self.group_roots = wp.zeros(0, dtype=wp.int32, device=device)
        if groups is not None:
            flags = wp.empty(n, dtype=wp.int32, device=device)
            launch(_flag_roots, n, [root_at, flags])
            num_groups = int(device_sort.exclusive_scan(flags, flags, n).numpy()[0])
            self.group_keys = wp.empty(num_groups, dtype=wp.int32, device=device)
            self.group_roots = wp.empty(num_groups, dtype=wp.int32, device=device)
            launch(_compact_roots, n, [root_at, flags, gkeys, self.group_keys, self.group_roots])


def _launcher(device: Any) -> Any:
    def launch(kernel: Any, dim: int, inputs: list[Any]) -> None:
        wp.launch(kernel, dim=dim, inputs=inputs, device=device)

    return launch
