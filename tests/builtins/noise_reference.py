"""NumPy reference of the lattice gradient noise (NVIDIA Warp's construction), written from its
description: for a corner with integer coordinates c and the seed s, the hash is
``(c0 * 73856093) ^ (c1 * 19349663) ^ ... ^ (c_last * p_last + s)`` (u32 arithmetic), one
``randf`` draw per axis (PCG; ``(state >> 8) / 2**24``) minus 0.5, normalized (1-d: twice the
draw, a slope in [-1, 1)); values blend the
corners' ramps ``g . (x - corner)`` with the quintic fade, unscaled."""

from __future__ import annotations

import itertools

import numpy as np

PRIMES = (73856093, 19349663, 83492791, 67867979)
MASK = 0xFFFFFFFF


def pcg(state: np.ndarray) -> np.ndarray:
    """The next PCG state (uint64 arrays holding u32 values)."""
    s = (state * 747796405 + 2891336453) & MASK
    s = (((s >> ((s >> 28) + 4)) ^ s) * 277803737) & MASK
    return (s >> 22) ^ s


def corner_gradient(seed: int, corner: np.ndarray) -> np.ndarray:
    """Unit gradients of integer corners ``corner`` (shape (m, n), any sign)."""
    c = corner.astype(np.int64) & MASK
    n = c.shape[1]
    h = np.zeros(len(c), dtype=np.uint64)
    for i in range(n):
        term = (c[:, i].astype(np.uint64) * np.uint64(PRIMES[i])) & np.uint64(MASK)
        if i == n - 1:
            term = (term + np.uint64(seed)) & np.uint64(MASK)
        h = term if i == 0 else h ^ term
    draws = []
    for _ in range(n):
        h = pcg(h)
        draws.append((h >> np.uint64(8)).astype(np.float64) / 16777216.0 - 0.5)
    g = np.stack(draws, axis=1)
    if n == 1:  # a slope in [-1, 1), not normalized
        return 2.0 * g
    length = np.linalg.norm(g, axis=1, keepdims=True)
    return np.divide(g, length, out=np.zeros_like(g), where=length > 0)


def fade(t: np.ndarray) -> np.ndarray:
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


def noise(seed: int, x: np.ndarray, periods: tuple[int, ...] | None = None) -> np.ndarray:
    """Noise (or, with ``periods``, periodic noise) at points ``x`` of shape (m, n)."""
    x = np.asarray(x, dtype=np.float64)
    cell = np.floor(x)
    frac = x - cell
    s = fade(frac)
    total = np.zeros(len(x))
    for corner in itertools.product((0, 1), repeat=x.shape[1]):
        c = cell.astype(np.int64) + np.array(corner)
        if periods is not None:
            c = np.mod(c, np.array(periods))
        g = corner_gradient(seed, c)
        ramp = np.sum(g * (frac - np.array(corner)), axis=1)
        weight = np.prod(np.where(np.array(corner) == 1, s, 1.0 - s), axis=1)
        total += weight * ramp
    return total
