"""Fast-winding-number node data (see :mod:`warp_geometry.winding`) computed in kernels on a
CUDA mesh's device, level by level from the deepest (the tree's :class:`LevelOrder`), so a
mesh with ``support_winding_number=True`` builds and refits without a host round trip.

Per node, in float64: the triangles' total area ``A``, ``sum a_t c_t``, ``sum c_t``, their
count, ``N = sum a_t n_t`` and ``P = sum a_t n_t c_t^T``; a leaf sums its triangles, an inner
node its two children. Then ``center = sum a_t c_t / A`` (the mean centroid for zero area),
``moment = P - N center^T``. The radius (the farthest triangle vertex from the center, as in
the NumPy version) comes last: every triangle walks up from its leaf to the root and
``atomic_max``-es its corners' distance to each node's center (order-independent, so exact).
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp_geometry.bvh_refit import LevelOrder
from warp_geometry.winding import WindingData


@wp.func
def _corner(points: wp.array(dtype=wp.vec3), indices: wp.array(dtype=wp.int32), t: int, k: int) -> wp.vec3d:
    p = points[indices[3 * t + k]]
    return wp.vec3d(wp.float64(p[0]), wp.float64(p[1]), wp.float64(p[2]))


@wp.kernel
def _parents(
    skip: wp.array(dtype=wp.int32), count: wp.array(dtype=wp.int32), parent: wp.array(dtype=wp.int32)
):
    n = wp.tid()
    if n == 0:
        parent[0] = -1
    if count[n] == 0 and n + 1 < skip.shape[0]:
        parent[n + 1] = n
        parent[skip[n + 1]] = n


@wp.kernel
def _slot_leaves(
    first: wp.array(dtype=wp.int32), count: wp.array(dtype=wp.int32), leaf_of: wp.array(dtype=wp.int32)
):
    n = wp.tid()
    f = first[n]
    for s in range(f, f + count[n]):
        leaf_of[s] = n


@wp.kernel
def _radii(
    items: wp.array(dtype=wp.int32),
    leaf_of: wp.array(dtype=wp.int32),
    parent: wp.array(dtype=wp.int32),
    points: wp.array(dtype=wp.vec3),
    indices: wp.array(dtype=wp.int32),
    center_d: wp.array(dtype=wp.vec3d),
    radius: wp.array(dtype=wp.float32),
):
    s = wp.tid()
    t = items[s]
    a = _corner(points, indices, t, 0)
    b = _corner(points, indices, t, 1)
    c = _corner(points, indices, t, 2)
    node = leaf_of[s]
    while node >= 0:
        m = center_d[node]
        r = wp.max(wp.max(wp.length(a - m), wp.length(b - m)), wp.length(c - m))
        wp.atomic_max(radius, node, wp.float32(r))
        node = parent[node]


@wp.kernel
def _winding_level(
    order: wp.array(dtype=wp.int32),
    offset: int,
    skip: wp.array(dtype=wp.int32),
    first: wp.array(dtype=wp.int32),
    count: wp.array(dtype=wp.int32),
    items: wp.array(dtype=wp.int32),
    points: wp.array(dtype=wp.vec3),
    indices: wp.array(dtype=wp.int32),
    area: wp.array(dtype=wp.float64),
    area_centroid: wp.array(dtype=wp.vec3d),
    centroid_sum: wp.array(dtype=wp.vec3d),
    tri_count: wp.array(dtype=wp.int32),
    normal_sum: wp.array(dtype=wp.vec3d),
    first_moment: wp.array(dtype=wp.mat33d),
    center_d: wp.array(dtype=wp.vec3d),
    center: wp.array(dtype=wp.vec3),
    normal: wp.array(dtype=wp.vec3),
    moment: wp.array(dtype=wp.mat33),
):
    n = order[offset + wp.tid()]
    c = count[n]
    zero = wp.float64(0.0)
    A = zero
    sac = wp.vec3d(zero, zero, zero)
    sc = wp.vec3d(zero, zero, zero)
    sn = wp.vec3d(zero, zero, zero)
    sp = wp.mat33d(zero, zero, zero, zero, zero, zero, zero, zero, zero)
    k = int(0)
    left = n + 1
    right = int(0)
    if c > 0:
        f = first[n]
        for s in range(f, f + c):
            t = items[s]
            a = _corner(points, indices, t, 0)
            b = _corner(points, indices, t, 1)
            d = _corner(points, indices, t, 2)
            an = wp.float64(0.5) * wp.cross(b - a, d - a)
            ar = wp.length(an)
            cen = (a + b + d) / wp.float64(3.0)
            A += ar
            sac += ar * cen
            sc += cen
            sn += an
            sp += wp.outer(an, cen)
        k = c
    else:
        right = skip[left]
        A = area[left] + area[right]
        sac = area_centroid[left] + area_centroid[right]
        sc = centroid_sum[left] + centroid_sum[right]
        sn = normal_sum[left] + normal_sum[right]
        sp = first_moment[left] + first_moment[right]
        k = tri_count[left] + tri_count[right]
    mean = sc / wp.float64(k)
    if A > zero:
        mean = sac / A
    area[n] = A
    area_centroid[n] = sac
    centroid_sum[n] = sc
    tri_count[n] = k
    normal_sum[n] = sn
    first_moment[n] = sp
    center_d[n] = mean
    m = sp - wp.outer(sn, mean)
    center[n] = wp.vec3(wp.float32(mean[0]), wp.float32(mean[1]), wp.float32(mean[2]))
    normal[n] = wp.vec3(wp.float32(sn[0]), wp.float32(sn[1]), wp.float32(sn[2]))
    moment[n] = wp.mat33(
        wp.float32(m[0, 0]),
        wp.float32(m[0, 1]),
        wp.float32(m[0, 2]),
        wp.float32(m[1, 0]),
        wp.float32(m[1, 1]),
        wp.float32(m[1, 2]),
        wp.float32(m[2, 0]),
        wp.float32(m[2, 1]),
        wp.float32(m[2, 2]),
    )


class DeviceWinding:
    """The node data of one mesh's tree on its device, with the float64 partial sums the
    levels share; :meth:`compute` fills it (again after a refit)."""

    def __init__(self, num_nodes: int, device: Any):
        def arr(dtype: Any) -> Any:
            return wp.empty(num_nodes, dtype=dtype, device=device)

        def zeros(dtype: Any) -> Any:  # an empty mesh's single node keeps zero data
            return wp.zeros(num_nodes, dtype=dtype, device=device)

        self.device = device
        self.num_nodes = num_nodes
        # area, sum a_t c_t, sum c_t, triangle count, N, P, center (float64)
        self.sums = [arr(wp.float64), arr(wp.vec3d), arr(wp.vec3d), arr(wp.int32), arr(wp.vec3d)]
        self.sums += [arr(wp.mat33d), arr(wp.vec3d)]
        self.data = WindingData(
            center=zeros(wp.vec3), normal=zeros(wp.vec3), moment=zeros(wp.mat33), radius=zeros(wp.float32)
        )
        self._parent: Any = None
        self._leaf_of: Any = None

    def compute(self, levels: LevelOrder, tree: dict[str, Any], points: Any, indices: Any) -> WindingData:
        """Fill the node data of ``tree`` (its arrays) over the mesh's ``points``/``indices``."""
        d = self.data
        device = self.device
        num_items = int(tree["items"].shape[0])
        if num_items == 0:
            return d
        topology = [tree["skip"], tree["first"], tree["count"], tree["items"]]
        for start, size in levels.spans:
            inputs = [levels.order, start, *topology, points, indices, *self.sums]
            inputs += [d.center, d.normal, d.moment]
            wp.launch(_winding_level, dim=size, inputs=inputs, device=device)
        if self._parent is None:  # the topology does not change: parents and leaves once
            self._parent = wp.empty(self.num_nodes, dtype=wp.int32, device=device)
            self._leaf_of = wp.empty(num_items, dtype=wp.int32, device=device)
            wp.launch(
                _parents,
                dim=self.num_nodes,
                inputs=[tree["skip"], tree["count"], self._parent],
                device=device,
            )
            leaves = [tree["first"], tree["count"], self._leaf_of]
            wp.launch(_slot_leaves, dim=self.num_nodes, inputs=leaves, device=device)
        d.radius.zero_()
        radii = [tree["items"], self._leaf_of, self._parent, points, indices, self.sums[-1], d.radius]
        wp.launch(_radii, dim=num_items, inputs=radii, device=device)
        return d
