"""Fast winding numbers: per-BVH-node dipole expansions (Barill et al. 2018), built with NumPy.

The winding number of a closed, outward-oriented mesh at ``q`` is
``w(q) = 1/(4 pi) * integral over the surface of (y - q).n / |y - q|^3 dA``: 1 inside, 0 outside.
A node far from ``q`` (farther than ``accuracy`` times its radius) is replaced by a second
order expansion of that integral about the area-weighted centroid ``c`` of its triangles:

``w ~ F(x).N + J(x) : M`` with ``x = c - q``, ``F(x) = x / (4 pi |x|^3)``, ``J = dF/dx``,
``N = sum_t a_t n_t`` and ``M_ij = sum_t a_t n_t,i (c_t - c)_j`` (``a_t`` area, ``n_t`` unit
normal, ``c_t`` centroid of triangle ``t``). Near nodes are opened; leaves sum exact solid
angles (Van Oosterom and Strackee). Every node covers a contiguous range of the BVH's item
order, so ``N``, ``c`` and ``M`` are differences of prefix sums.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import warp as wp
from warp_geometry.bvh_build import BvhTree, _range_reduce


@dataclass
class WindingData:
    """Per-node expansion data on the device (preorder node order)."""

    center: Any
    normal: Any
    moment: Any
    radius: Any

    def fields(self) -> dict[str, Any]:
        return {
            "wn_center": self.center,
            "wn_normal": self.normal,
            "wn_moment": self.moment,
            "wn_radius": self.radius,
        }


def node_data(tree: BvhTree, points: np.ndarray, tris: np.ndarray, device: Any) -> WindingData:
    """Compute the expansion of every node of ``tree`` (built over ``tris``)."""
    n = tree.num_nodes
    center = np.zeros((n, 3), np.float64)
    normal = np.zeros((n, 3), np.float64)
    moment = np.zeros((n, 3, 3), np.float64)
    radius = np.zeros(n, np.float64)
    if len(tris):
        corners = points[tris[tree.items]].astype(np.float64)  # (F, 3, 3), BVH item order
        a, b, c = corners[:, 0], corners[:, 1], corners[:, 2]
        area_normal = 0.5 * np.cross(b - a, c - a)  # a_t n_t
        area = np.linalg.norm(area_normal, axis=1)
        centroid = (a + b + c) / 3.0
        first_moment = np.einsum("ti,tj->tij", area_normal, centroid)  # a_t n_t c_t^T

        def prefix(x: np.ndarray) -> np.ndarray:
            out = np.zeros((x.shape[0] + 1,) + x.shape[1:])
            np.cumsum(x, axis=0, out=out[1:])
            return out

        p_area, p_ac, p_n, p_m = (
            prefix(area),
            prefix(area[:, None] * centroid),
            prefix(area_normal),
            prefix(first_moment),
        )
        for p, s, e in tree.levels:
            total = p_area[e] - p_area[s]
            mean = (p_ac[e] - p_ac[s]) / np.maximum(total, 1e-300)[:, None]
            # degenerate nodes (zero area): use the mean of the triangle centroids
            empty = total <= 0.0
            if empty.any():
                cs = prefix(centroid)
                mean[empty] = ((cs[e] - cs[s]) / (e - s)[:, None])[empty]
            center[p] = mean
            normal[p] = p_n[e] - p_n[s]
            moment[p] = (p_m[e] - p_m[s]) - np.einsum("ki,kj->kij", normal[p], mean)
            # radius: farthest triangle vertex from the node's center
            item_center = np.repeat(mean, e - s, axis=0)
            idx = _positions(s, e)
            far = np.linalg.norm(corners[idx] - item_center[:, None, :], axis=2).max(axis=1)
            radius[p] = _range_reduce(far, np.cumsum(e - s) - (e - s), np.cumsum(e - s), np.maximum)
    return WindingData(
        center=wp.array(center.astype(np.float32), dtype=wp.vec3, device=device),
        normal=wp.array(normal.astype(np.float32), dtype=wp.vec3, device=device),
        moment=wp.array(moment.astype(np.float32), dtype=wp.mat33, device=device),
        radius=wp.array(radius.astype(np.float32), dtype=wp.float32, device=device),
    )


def _positions(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, e)`` for the given ranges (vectorised)."""
    counts = ends - starts
    offsets = np.cumsum(counts) - counts
    return np.repeat(starts - offsets, counts) + np.arange(int(counts.sum()))
