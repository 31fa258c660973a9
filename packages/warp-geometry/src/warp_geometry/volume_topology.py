"""Building a NanoVDB tree (root tiles, upper, lower, leaf nodes) over a set of leaves, vectorised."""

from __future__ import annotations

from typing import Any

import numpy as np

from warp_geometry import nanovdb

_BIAS = 1 << 20


def _key(c: np.ndarray, shift: int) -> np.ndarray:
    """One int64 per row naming the node of size 2**shift containing coordinates ``c``."""
    q = (c >> shift) + _BIAS
    return (q[:, 0] << 42) | (q[:, 1] << 21) | q[:, 2]


def _slot(origins: np.ndarray, mask: int, shift: int, log2: int) -> np.ndarray:
    """Table entry, inside the parent node, of children at ``origins``."""
    o = (origins & mask) >> shift
    return (o[:, 0] << (2 * log2)) + (o[:, 1] << log2) + o[:, 2]


def grid_from_leaves(leaf_origins: np.ndarray, grid_type: int, background: Any) -> nanovdb.GridArrays:
    """A grid whose leaves start at ``leaf_origins`` (multiples of 8; duplicates removed), every
    voxel of them active and holding ``background``; inner nodes are created as needed."""
    leaves = np.unique(leaf_origins.reshape(-1, 3).astype(np.int64) >> 3, axis=0) << 3
    g = nanovdb.GridArrays(grid_type=grid_type, background=background)
    uk, u_of_leaf = np.unique(_key(leaves, 12), return_inverse=True)
    lk, l_of_leaf = np.unique(_key(leaves, 7), return_inverse=True)
    first_leaf_of_upper = np.zeros(len(uk), np.int64)
    first_leaf_of_upper[u_of_leaf[::-1]] = np.arange(len(leaves))[::-1]
    first_leaf_of_lower = np.zeros(len(lk), np.int64)
    first_leaf_of_lower[l_of_leaf[::-1]] = np.arange(len(leaves))[::-1]
    upper_origin = (leaves[first_leaf_of_upper] >> 12) << 12
    lower_origin = (leaves[first_leaf_of_lower] >> 7) << 7
    upper_of_lower = u_of_leaf[first_leaf_of_lower]

    g.root_origin = upper_origin.astype(np.int32)
    g.root_child = np.arange(len(uk), dtype=np.int32)
    g.root_active = np.zeros(len(uk), bool)
    g.upper_origin = upper_origin.astype(np.int32)
    g.upper_child = np.full(len(uk) * 32768, -1, np.int32)
    g.upper_child[upper_of_lower * 32768 + _slot(lower_origin, 4095, 7, 5)] = np.arange(
        len(lk), dtype=np.int32
    )
    g.upper_active = np.zeros(len(uk) * 32768, bool)
    g.lower_origin = lower_origin.astype(np.int32)
    g.lower_child = np.full(len(lk) * 4096, -1, np.int32)
    g.lower_child[l_of_leaf * 4096 + _slot(leaves, 127, 3, 4)] = np.arange(len(leaves), dtype=np.int32)
    g.lower_active = np.zeros(len(lk) * 4096, bool)
    g.leaf_origin = leaves.astype(np.int32)
    g.leaf_active = np.ones(len(leaves) * 512, bool)
    fill = np.asarray(background, g.value_dtype.base)
    g.root_value = np.broadcast_to(fill, (len(uk),) + g.value_dtype.shape).copy()
    g.upper_value = np.broadcast_to(fill, (len(uk) * 32768,) + g.value_dtype.shape).copy()
    g.lower_value = np.broadcast_to(fill, (len(lk) * 4096,) + g.value_dtype.shape).copy()
    g.leaf_value = np.broadcast_to(fill, (len(leaves) * 512,) + g.value_dtype.shape).copy()
    return g
