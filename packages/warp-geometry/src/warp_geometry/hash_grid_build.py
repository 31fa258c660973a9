"""Building a ``wp.HashGrid`` on its device: a counting sort of the point indices by bucket, in
kernels (no round trip through the host, so a build on a CUDA device stays there and can be
captured in a CUDA graph).

1. every point's bucket, and its rank among the points of that bucket (``atomic_add`` on the
   bucket's count returns it);
2. an exclusive scan of the counts gives each bucket's first slot (the device scan of
   :mod:`warp_builtins.device_sort`: short loops per thread, levels of chunk sums, no long
   serial loop over the buckets), and the count its end;
3. every point index goes to slot ``start[bucket] + rank``.

The order of the points inside a bucket follows the atomics (it may differ between runs and
devices); queries do not depend on it.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp_builtins import device_sort
from warp_geometry.hash_grid_cells import bucket


@wp.kernel
def _bucket_points(
    points: wp.array(dtype=Any),
    inv_cell_width: float,
    dim_x: int,
    dim_y: int,
    dim_z: int,
    buckets: wp.array(dtype=wp.int32),
    ranks: wp.array(dtype=wp.int32),
    counts: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    b = bucket(wp.vec3(points[i]), inv_cell_width, dim_x, dim_y, dim_z)
    buckets[i] = b
    ranks[i] = wp.atomic_add(counts, b, 1)


@wp.kernel(enable_backward=False)
def _bucket_ends(
    starts: wp.array(dtype=wp.int32), counts: wp.array(dtype=wp.int32), ends: wp.array(dtype=wp.int32)
):
    b = wp.tid()
    ends[b] = starts[b] + counts[b]


@wp.kernel
def _scatter(
    buckets: wp.array(dtype=wp.int32),
    ranks: wp.array(dtype=wp.int32),
    starts: wp.array(dtype=wp.int32),
    point_ids: wp.array(dtype=wp.int32),
    groups: wp.array(dtype=wp.int32),
    point_groups: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    slot = starts[buckets[i]] + ranks[i]
    point_ids[slot] = i
    if groups.shape[0] > 0:
        point_groups[slot] = groups[i]


class BuildScratch:
    """Work arrays of one grid's builds, kept between builds (grown as needed)."""

    def __init__(self, num_cells: int, device: Any):
        self.device = device
        self.counts = wp.zeros(num_cells, dtype=wp.int32, device=device)
        self.scan = device_sort.ScanScratch(num_cells, wp.int32, device)
        self.buckets = wp.zeros(0, dtype=wp.int32, device=device)
        self.ranks = wp.zeros(0, dtype=wp.int32, device=device)

    def fit(self, num_points: int) -> None:
        """Room for ``num_points`` points."""
        if self.buckets.shape[0] < num_points:
            self.buckets = wp.zeros(num_points, dtype=wp.int32, device=self.device)
            self.ranks = wp.zeros(num_points, dtype=wp.int32, device=self.device)


def sort_by_bucket(
    points: Any,
    inv_cell_width: float,
    dims: tuple[int, int, int],
    scratch: BuildScratch,
    point_ids: Any,
    starts: Any,
    ends: Any,
    groups: Any,
    point_groups: Any,
) -> None:
    """Fill ``point_ids[:n]`` with the indices of ``points`` (1-d, of 3-vectors of any float type)
    sorted by bucket and ``starts``/``ends`` with each bucket's range of them; with ``groups``
    (int32, one per point, or empty) ``point_groups[:n]`` receives the group of each sorted point.
    All arrays are on ``scratch.device``."""
    n = int(points.shape[0])
    device = scratch.device
    scratch.fit(n)
    scratch.counts.zero_()
    if n:
        wp.launch(
            _bucket_points,
            dim=n,
            inputs=[points, inv_cell_width, *dims, scratch.buckets, scratch.ranks, scratch.counts],
            device=device,
        )
    num_cells = scratch.counts.shape[0]
    device_sort.exclusive_scan(scratch.counts, starts, num_cells, scratch.scan)
    wp.launch(_bucket_ends, dim=num_cells, inputs=[starts, scratch.counts, ends], device=device)
    if n:
        scatter = [scratch.buckets, scratch.ranks, starts, point_ids, groups, point_groups]
        wp.launch(_scatter, dim=n, inputs=scatter, device=device)
