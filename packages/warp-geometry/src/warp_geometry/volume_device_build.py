"""Topologies of rebuildable volumes built by kernel launches on the volume's device.

A rebuildable volume on a CUDA device keeps fixed-capacity tree arrays (``max_upper_nodes``
root tiles and upper nodes, ``max_lower_nodes`` lower nodes, ``max_tiles``/``max_leaf_nodes``
leaves); :class:`DeviceTopology` rebuilds them from points without reading device memory back
or uploading anything that depends on the points, so a graph capture records it and replays it
with the points' values at launch time. The steps:

1. points to index coordinates (integer points as they are, world points to the nearest voxel,
   masked points marked invalid);
2. a stable LSD radix sort (:mod:`warp_builtins.device_sort`) of the points by (leaf x, y, z,
   voxel slot) -- the order of the host path's leaves and voxel indices --, flags and an
   inclusive scan numbering the distinct voxels and leaves;
3. the distinct leaves sorted by lower node, then the distinct lower nodes by upper node, each
   numbered the same way (lexicographic node order, as ``np.unique`` gives the host path);
4. one thread compares the counts with the capacities and writes the status flags; the tree
   arrays are cleared and, when the topology fits, filled (child tables, voxel indices).

Unused root tiles get an origin no coordinate maps to, so the queries' root search over
``num_roots`` (the capacity) finds only built ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import warp as wp
from warp_builtins import device_sort
from warp_geometry import nanovdb
from warp_geometry.volume_rebuild import RebuildSpec
from warp_geometry.volume_topology import grid_from_leaves
from warp_geometry.volume_values import FIELDS, LONG, WIDE, value_fields

#: key of an invalid (masked or past the end) entry, 1 << 29: above every valid node key
#: (coordinates >> 3 biased by 1 << 28)
_INVALID_BIT = 29
#: shifts of the node sorts: leaves (8^3), lower (128^3) and upper (4096^3) nodes
_LEAF, _LOWER, _UPPER = 3, 7, 12


# -- points to index coordinates --------------------------------------------------------------
@wp.func
def _masked(mask: wp.array(dtype=wp.int32), has_mask: int, i: int) -> int:
    if has_mask != 0:
        if mask[i] == 0:
            return 0
    return 1


# a point of each supported layout (overloads): a row of vec3i/vec3 or of an (N, 3) int32/float32 array
@wp.func
def _point(points: wp.array(dtype=wp.vec3i), i: int) -> wp.vec3i:
    return points[i]


@wp.func
def _point(points: wp.array2d(dtype=wp.int32), i: int) -> wp.vec3i:  # noqa: F811 (an overload)
    return wp.vec3i(points[i, 0], points[i, 1], points[i, 2])


@wp.func
def _point(points: wp.array(dtype=wp.vec3), i: int) -> wp.vec3:  # noqa: F811
    return points[i]


@wp.func
def _point(points: wp.array2d(dtype=wp.float32), i: int) -> wp.vec3:  # noqa: F811
    return wp.vec3(points[i, 0], points[i, 1], points[i, 2])


@wp.func
def _voxel(p: wp.vec3i, translation: wp.vec3d, diag: wp.vec3d, inv: wp.mat33d, diagonal: int) -> wp.vec3i:
    """An integer point is an index coordinate already."""
    return p


@wp.func
def _voxel(  # noqa: F811 (an overload)
    p: wp.vec3, translation: wp.vec3d, diag: wp.vec3d, inv: wp.mat33d, diagonal: int
) -> wp.vec3i:
    """The voxel nearest to world point ``p``."""
    o = wp.vec3d(wp.float64(p[0]), wp.float64(p[1]), wp.float64(p[2])) - translation
    s = o
    if diagonal != 0:  # a diagonal map divides, as the host's solve does
        s = wp.vec3d(o[0] / diag[0], o[1] / diag[1], o[2] / diag[2])
    else:
        s = inv * o
    half = wp.float64(0.5)
    return wp.vec3i(int(wp.floor(s[0] + half)), int(wp.floor(s[1] + half)), int(wp.floor(s[2] + half)))


@wp.kernel
def _ijk_of_points(
    points: Any,
    mask: wp.array(dtype=wp.int32),
    has_mask: int,
    translation: wp.vec3d,
    diag: wp.vec3d,
    inv: wp.mat33d,
    diagonal: int,
    ijk: wp.array(dtype=wp.vec3i),
    valid: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    ijk[i] = _voxel(_point(points, i), translation, diag, inv, diagonal)
    valid[i] = _masked(mask, has_mask, i)


#: the instances of the point layouts ``supported`` accepts, declared up front (compiled like the
#: module's other kernels)
for _layout in (
    wp.array(dtype=wp.vec3i),
    wp.array2d(dtype=wp.int32),
    wp.array(dtype=wp.vec3),
    wp.array2d(dtype=wp.float32),
):
    wp.overload(_ijk_of_points, {"points": _layout})


# -- sorting and numbering ----------------------------------------------------------------------
@wp.kernel
def _iota(out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = i


@wp.kernel
def _pass_keys(
    coords: wp.array(dtype=wp.vec3i),
    valid: wp.array(dtype=wp.int32),
    perm: wp.array(dtype=wp.int32),
    axis: int,
    shift: int,
    keys: wp.array(dtype=wp.int32),
):
    """Key of pass ``axis`` (0..2: node coordinate ``c >> shift``, biased; 3: voxel slot)."""
    i = wp.tid()
    j = perm[i]
    c = coords[j]
    if axis == 3:  # (invalid entries: any slot, the node passes put them last)
        keys[i] = ((c[0] & 7) << 6) | ((c[1] & 7) << 3) | (c[2] & 7)
    elif valid[j] == 0:
        keys[i] = 1 << 29
    else:
        keys[i] = (c[axis] >> shift) + (1 << 28)


@wp.func
def _same(a: wp.vec3i, b: wp.vec3i, shift: int) -> int:
    if (a[0] >> shift) == (b[0] >> shift) and (a[1] >> shift) == (b[1] >> shift):
        if (a[2] >> shift) == (b[2] >> shift):
            return 1
    return 0


@wp.kernel
def _first_flags(
    coords: wp.array(dtype=wp.vec3i),
    valid: wp.array(dtype=wp.int32),
    perm: wp.array(dtype=wp.int32),
    shift: int,
    flags: wp.array(dtype=wp.int32),
):
    """1 where sorted entry ``i`` starts a new node of size ``2**shift`` (valid entries only)."""
    i = wp.tid()
    j = perm[i]
    flags[i] = 0
    if valid[j] != 0:
        if i == 0:
            flags[i] = 1
        elif _same(coords[j], coords[perm[i - 1]], shift) == 0:
            flags[i] = 1


@wp.kernel
def _number_nodes(
    coords: wp.array(dtype=wp.vec3i),
    valid: wp.array(dtype=wp.int32),
    perm: wp.array(dtype=wp.int32),
    flags: wp.array(dtype=wp.int32),
    ranks: wp.array(dtype=wp.int32),
    shift: int,
    node_of: wp.array(dtype=wp.int32),
    origins: wp.array(dtype=wp.vec3i),
    origin_valid: wp.array(dtype=wp.int32),
):
    """Entry ``perm[i]`` belongs to node ``ranks[i] - 1`` (inclusive scan of ``flags``); each
    node's first entry writes the node's origin."""
    i = wp.tid()
    j = perm[i]
    node = ranks[i] - 1
    node_of[j] = node
    if flags[i] != 0:
        c = coords[j]
        m = ~((1 << shift) - 1)
        origins[node] = wp.vec3i(c[0] & m, c[1] & m, c[2] & m)
        origin_valid[node] = 1


# -- capacities, status and the tree arrays -----------------------------------------------------
@wp.kernel
def _check(
    voxels: wp.array(dtype=wp.int32),
    leaves: wp.array(dtype=wp.int32),
    lowers: wp.array(dtype=wp.int32),
    uppers: wp.array(dtype=wp.int32),
    voxels_per_leaf: int,
    caps: wp.vec4i,
    counts: wp.array(dtype=wp.int32),
    status: wp.array(dtype=wp.uint32),
    has_status: int,
):
    n_vox = voxels[0]
    if voxels_per_leaf > 0:
        n_vox = leaves[0] * voxels_per_leaf
    flags = int(0)
    if n_vox > caps[0]:
        flags = flags | 1
    if leaves[0] > caps[1]:
        flags = flags | 2
    if lowers[0] > caps[2]:
        flags = flags | 4
    if uppers[0] > caps[3]:
        flags = flags | 8
    if flags == 0:
        counts[0] = n_vox
        counts[1] = leaves[0]
        counts[2] = lowers[0]
        counts[3] = uppers[0]
    else:
        counts[0] = 0
        counts[1] = 0
        counts[2] = 0
        counts[3] = 0
    counts[4] = flags
    if has_status != 0:
        status[0] = wp.uint32(flags)


@wp.kernel
def _fill_i32(out: wp.array(dtype=wp.int32), value: int):
    out[wp.tid()] = value


@wp.kernel
def _clear_roots(root_origin: wp.array(dtype=wp.vec3i), root_child: wp.array(dtype=wp.int32)):
    u = wp.tid()
    root_origin[u] = wp.vec3i(1, 1, 1)
    root_child[u] = -1


@wp.func
def _slot(o: wp.vec3i, mask: int, shift: int, log2: int) -> int:
    return (
        (((o[0] & mask) >> shift) << (2 * log2))
        + (((o[1] & mask) >> shift) << log2)
        + ((o[2] & mask) >> shift)
    )


@wp.kernel
def _link_uppers(
    counts: wp.array(dtype=wp.int32),
    upper_origin: wp.array(dtype=wp.vec3i),
    root_origin: wp.array(dtype=wp.vec3i),
    root_child: wp.array(dtype=wp.int32),
):
    u = wp.tid()
    if counts[4] == 0 and u < counts[3]:
        root_origin[u] = upper_origin[u]
        root_child[u] = u


@wp.kernel
def _link_children(
    counts: wp.array(dtype=wp.int32),
    level: int,
    origins: wp.array(dtype=wp.vec3i),
    parent_of: wp.array(dtype=wp.int32),
    mask: int,
    shift: int,
    log2: int,
    table: wp.array(dtype=wp.int32),
):
    """Child ``c`` (a lower node: level 2, a leaf: level 1) in its parent's child table."""
    c = wp.tid()
    if counts[4] == 0 and c < counts[level]:
        entries = 1 << (3 * log2)
        table[parent_of[c] * entries + _slot(origins[c], mask, shift, log2)] = c


@wp.kernel
def _copy_leaves(
    counts: wp.array(dtype=wp.int32), origins: wp.array(dtype=wp.vec3i), out: wp.array(dtype=wp.vec3i)
):
    f = wp.tid()
    if counts[4] == 0 and f < counts[1]:
        out[f] = origins[f]


@wp.kernel
def _index_voxels(
    counts: wp.array(dtype=wp.int32),
    coords: wp.array(dtype=wp.vec3i),
    perm: wp.array(dtype=wp.int32),
    voxel_flags: wp.array(dtype=wp.int32),
    voxel_ranks: wp.array(dtype=wp.int32),
    leaf_of: wp.array(dtype=wp.int32),
    leaf_index: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    if counts[4] == 0 and voxel_flags[i] != 0:
        j = perm[i]
        c = coords[j]
        slot = ((c[0] & 7) << 6) | ((c[1] & 7) << 3) | (c[2] & 7)
        leaf_index[leaf_of[j] * 512 + slot] = voxel_ranks[i] - 1


def supported(points: Any, point_mask: Any, device: Any) -> bool:
    """Whether the device build reads ``points`` (and ``point_mask``) as given: arrays on
    ``device`` of ``wp.vec3i``/``wp.vec3`` or ``(N, 3)`` int32/float32, an int32 mask."""
    if not isinstance(points, wp.array) or points.device != device:
        return False
    if point_mask is not None:
        ok = isinstance(point_mask, wp.array) and point_mask.dtype == wp.int32 and point_mask.device == device
        if not ok or point_mask.size != points.shape[0]:
            return False
    if points.ndim == 1:
        return points.dtype in (wp.vec3i, wp.vec3)
    return points.ndim == 2 and points.shape[1] == 3 and points.dtype in (wp.int32, wp.float32)


class DeviceTopology:
    """The fixed-capacity tree arrays of a rebuildable volume on ``device`` and the kernels that
    rebuild them: :meth:`fields` are the kernel-side fields to install once, :meth:`build`
    rebuilds in place, :meth:`host_grid` reads the current tree back as :class:`GridArrays`."""

    def __init__(self, spec: RebuildSpec, device: Any):
        self.spec = spec
        self.device = device
        info = spec.info
        self.tiles = info.mode == "tiles"
        if not self.tiles:
            self.grid_type = nanovdb.ON_INDEX
        else:
            self.grid_type = nanovdb.INDEX if spec.bg_value is None else spec.bg_value[0]
        cap = nanovdb.GridArrays(grid_type=self.grid_type)
        cap.leaf_origin = np.zeros((info.max_tiles, 3), np.int32)
        n_leaf_slots = info.max_tiles * 512
        if self.grid_type == nanovdb.INDEX:
            cap.leaf_value = np.arange(1, n_leaf_slots + 1, dtype=np.uint64)
        elif self.grid_type == nanovdb.ON_INDEX:
            cap.leaf_value = np.zeros(n_leaf_slots, np.uint64)
            cap.leaf_active = np.zeros(n_leaf_slots, bool)
        else:
            fill = np.asarray(spec.bg_value[1], cap.value_dtype.base)
            cap.background = fill
            sizes = {
                "root": info.max_upper_nodes,
                "upper": info.max_upper_nodes * 32768,
                "lower": info.max_lower_nodes * 4096,
                "leaf": n_leaf_slots,
            }
            for level, n in sizes.items():
                setattr(cap, f"{level}_value", np.broadcast_to(fill, (n,) + cap.value_dtype.shape).copy())
        values, _ = value_fields(cap, device)
        self._values = values
        new = wp.empty
        self.root_origin = new(info.max_upper_nodes, dtype=wp.vec3i, device=device)
        self.root_child = new(info.max_upper_nodes, dtype=wp.int32, device=device)
        self.upper_child = new(info.max_upper_nodes * 32768, dtype=wp.int32, device=device)
        self.lower_child = new(info.max_lower_nodes * 4096, dtype=wp.int32, device=device)
        self.leaf_origin = new(info.max_tiles, dtype=wp.vec3i, device=device)
        #: active voxels, leaves, lower nodes, upper nodes, status flags of the last build
        self.counts = wp.zeros(5, dtype=wp.int32, device=device)
        self.leaf_index = values["leaf_index"]
        self._clear()

    def fields(self) -> dict[str, Any]:
        """The kernel-side ``VolumeData`` fields of the fixed-capacity tree."""
        fields = dict(self._values)
        fields.update(
            grid_type=self.grid_type,
            num_roots=self.spec.info.max_upper_nodes,
            voxel_count=0,
            root_origin=self.root_origin,
            root_child=self.root_child,
            upper_child=self.upper_child,
            lower_child=self.lower_child,
            counts=self.counts,
        )
        return fields

    def _launch(self, kernel: Any, dim: int, inputs: list[Any]) -> None:
        if dim > 0:
            wp.launch(kernel, dim=dim, inputs=inputs, device=self.device, record_tape=False)

    def _clear(self) -> None:
        """Every tree array back to empty (tiles: leaf values back to the background)."""
        self._launch(_clear_roots, self.root_origin.shape[0], [self.root_origin, self.root_child])
        for table in (self.upper_child, self.lower_child):
            self._launch(_fill_i32, table.shape[0], [table, -1])
        if self.grid_type == nanovdb.ON_INDEX:
            self._launch(_fill_i32, self.leaf_index.shape[0], [self.leaf_index, -1])
        elif self.grid_type != nanovdb.INDEX:
            leaf = self._leaf_values_field()
            if leaf.shape[0]:
                leaf.fill_(self._background_field())

    def _leaf_values_field(self) -> Any:
        return self._values[f"leaf_{self._suffix()}"]

    def _background_field(self) -> Any:
        return self._values[f"background_{self._suffix()}"]

    def _suffix(self) -> str:
        if self.grid_type in WIDE:
            return "w"
        if self.grid_type in LONG:
            return "q"
        return FIELDS[self.grid_type][0]

    def build(self, points: Any, point_mask: Any, status: Any) -> None:
        """Rebuild the tree from ``points`` (see :func:`supported`): kernel launches only."""
        device, n = self.device, int(points.shape[0])
        ijk = wp.empty(n, dtype=wp.vec3i, device=device)
        valid = wp.empty(n, dtype=wp.int32, device=device)
        has_mask = 0 if point_mask is None else 1
        mask = point_mask if point_mask is not None else wp.empty(0, dtype=wp.int32, device=device)
        self._to_index(points, mask, has_mask, ijk, valid, n)
        voxel_total = wp.zeros(1, dtype=wp.int32, device=device)
        voxel_flags = voxel_ranks = None
        perm = voxel_perm = self._sort(ijk, valid, n, _LEAF, with_slot=not self.tiles)
        if not self.tiles:
            voxel_flags, voxel_ranks, voxel_total = self._flags(ijk, valid, perm, n, 0)
        leaf_of, leaf_origins, leaf_valid, leaf_total = self._nodes(ijk, valid, perm, n, _LEAF)
        perm = self._sort(leaf_origins, leaf_valid, n, _LOWER, with_slot=False)
        lower_of, lower_origins, lower_valid, lower_total = self._nodes(
            leaf_origins, leaf_valid, perm, n, _LOWER
        )
        perm = self._sort(lower_origins, lower_valid, n, _UPPER, with_slot=False)
        upper_of, upper_origins, _, upper_total = self._nodes(lower_origins, lower_valid, perm, n, _UPPER)

        info = self.spec.info
        caps = wp.vec4i(info.max_voxels, info.max_tiles, info.max_lower_nodes, info.max_upper_nodes)
        no_status = wp.empty(0, dtype=wp.uint32, device=device)
        self._launch(
            _check,
            1,
            [
                voxel_total,
                leaf_total,
                lower_total,
                upper_total,
                512 if self.tiles else 0,
                caps,
                self.counts,
                status if status is not None else no_status,
                0 if status is None else 1,
            ],
        )
        self._clear()
        counts = self.counts
        self._launch(
            _link_uppers,
            min(n, info.max_upper_nodes),
            [counts, upper_origins, self.root_origin, self.root_child],
        )
        self._launch(
            _link_children,
            min(n, info.max_lower_nodes),
            [counts, 2, lower_origins, upper_of, 4095, 7, 5, self.upper_child],
        )
        self._launch(
            _link_children,
            min(n, info.max_tiles),
            [counts, 1, leaf_origins, lower_of, 127, 3, 4, self.lower_child],
        )
        self._launch(_copy_leaves, min(n, info.max_tiles), [counts, leaf_origins, self.leaf_origin])
        if voxel_flags is not None:
            self._launch(
                _index_voxels,
                n,
                [counts, ijk, voxel_perm, voxel_flags, voxel_ranks, leaf_of, self.leaf_index],
            )

    def _to_index(self, points: Any, mask: Any, has_mask: int, ijk: Any, valid: Any, n: int) -> None:
        t, diag, inv, diagonal = wp.vec3d(), wp.vec3d(), wp.mat33d(), 0  # integer points: no map
        if points.dtype not in (wp.vec3i, wp.int32):
            mat = np.asarray(self.spec.mat, np.float64)
            diagonal = 1 if np.count_nonzero(mat - np.diag(np.diag(mat))) == 0 else 0
            t = wp.vec3d(*self.spec.translation)
            diag = wp.vec3d(*np.diag(mat))
            inv = wp.mat33d(*np.linalg.inv(mat).ravel())
        self._launch(_ijk_of_points, n, [points, mask, has_mask, t, diag, inv, diagonal, ijk, valid])

    def _sort(self, coords: Any, valid: Any, n: int, shift: int, with_slot: bool) -> Any:
        """Permutation sorting ``coords`` by node (x, y, z of ``c >> shift``), then voxel slot."""
        device = self.device
        perm = wp.empty(n, dtype=wp.int32, device=device)
        keys = wp.empty(n, dtype=wp.int32, device=device)
        self._launch(_iota, n, [perm])
        # least significant first: the stable passes leave the last (x) the major key; invalid
        # entries key above every node, so they end last
        passes = ([(3, 9)] if with_slot else []) + [(axis, _INVALID_BIT + 1) for axis in (2, 1, 0)]
        for axis, bits in passes:
            self._launch(_pass_keys, n, [coords, valid, perm, axis, shift, keys])
            keys, perm = device_sort.radix_sort_pairs(keys, perm, n, key_bits=bits)
        return perm

    def _flags(self, coords: Any, valid: Any, perm: Any, n: int, shift: int) -> tuple[Any, Any, Any]:
        """(first-of-node flags, their inclusive scan, the number of nodes) of sorted entries."""
        flags = wp.empty(n, dtype=wp.int32, device=self.device)
        ranks = wp.empty(n, dtype=wp.int32, device=self.device)
        self._launch(_first_flags, n, [coords, valid, perm, shift, flags])
        total = device_sort.scan(flags, ranks, n, inclusive=True)
        return flags, ranks, total

    def _nodes(self, coords: Any, valid: Any, perm: Any, n: int, shift: int) -> tuple[Any, Any, Any, Any]:
        """Number the distinct nodes of size ``2**shift`` of sorted entries: (node of each entry,
        node origins, which origins exist, number of nodes)."""
        device = self.device
        flags, ranks, total = self._flags(coords, valid, perm, n, shift)
        node_of = wp.empty(n, dtype=wp.int32, device=device)
        origins = wp.zeros(n, dtype=wp.vec3i, device=device)
        origin_valid = wp.zeros(n, dtype=wp.int32, device=device)
        self._launch(
            _number_nodes, n, [coords, valid, perm, flags, ranks, shift, node_of, origins, origin_valid]
        )
        return node_of, origins, origin_valid, total

    def flags(self) -> int:
        """The status flags of the last build (reads the device)."""
        return int(self.counts.numpy()[4])

    def host_grid(self, like: nanovdb.GridArrays) -> nanovdb.GridArrays:
        """The current tree as :class:`GridArrays` (read back from the device), with the map and
        name of ``like``; voxel values as kernels left them."""
        counts = self.counts.numpy()
        n_leaf = int(counts[1])
        origins = self.leaf_origin.numpy()[:n_leaf].astype(np.int64)
        if self.grid_type == nanovdb.ON_INDEX:
            grid = grid_from_leaves(origins, nanovdb.ON_INDEX, 0)
            index = self.leaf_index.numpy()[: n_leaf * 512].astype(np.int64)
            grid.leaf_active = index >= 0
            grid.leaf_value = np.where(index >= 0, index + 1, 0).astype(np.uint64)
        elif self.grid_type == nanovdb.INDEX:
            grid = grid_from_leaves(origins, nanovdb.INDEX, 0)
            grid.leaf_value = np.arange(1, n_leaf * 512 + 1, dtype=np.uint64)
        else:
            background = self.spec.bg_value[1]
            grid = grid_from_leaves(origins, self.grid_type, background)
            values = self._leaf_values_field().numpy()[: n_leaf * 512]
            if self.grid_type in WIDE:
                values = values[:, : WIDE[self.grid_type][0]]
            shape = (n_leaf * 512,) + grid.value_dtype.shape
            grid.leaf_value = np.asarray(values).astype(grid.value_dtype.base).reshape(shape)
        grid.mat, grid.vec, grid.voxel_size, grid.name = like.mat, like.vec, like.voxel_size, like.name
        return grid
