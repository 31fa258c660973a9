"""Child process of test_hash_grid_extremes: hash grid queries over extreme coordinates.

Prints one line per case, ``name ok`` or ``name MISMATCH ...``; a crash shows as the exit code.
"""

from __future__ import annotations

import sys

import numpy as np

import warp as wp


@wp.kernel
def found_pairs(
    grid: wp.uint64,
    points: wp.array(dtype=wp.vec3),
    queries: wp.array(dtype=wp.vec3),
    radius: float,
    pairs: wp.array2d(dtype=wp.int32),
):
    i = wp.tid()
    q = queries[i]
    for index in wp.hash_grid_query(grid, q, radius):
        pairs[i, index] += 1  # every candidate (the distance is checked in float64 by the parent)


def brute(points: np.ndarray, queries: np.ndarray, radius: float) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.sqrt((((queries[:, None, :] - points[None, :, :]).astype(np.float64)) ** 2).sum(axis=2))
        return (d <= np.float32(radius)).astype(np.int32)


def run(name: str, pts: np.ndarray, queries: np.ndarray, cell: float, radius: float, dims=(8, 8, 8)) -> None:
    pts = np.asarray(pts, dtype=np.float32)
    queries = np.asarray(queries, dtype=np.float32)
    grid = wp.HashGrid(*dims)
    points = wp.array(pts, dtype=wp.vec3)
    grid.build(points, cell)
    pairs = wp.zeros((len(queries), len(pts)), dtype=wp.int32)
    wp.launch(
        found_pairs,
        dim=len(queries),
        inputs=[grid.id, points, wp.array(queries, dtype=wp.vec3), radius, pairs],
    )
    got, ref = pairs.numpy(), brute(pts, queries, radius)
    # every point within the radius is a candidate, and no candidate comes twice
    if np.all(got[ref == 1] == 1) and np.all(got <= 1):
        print(name, "ok", int(ref.sum()), flush=True)
    else:
        bad = np.argwhere((got > 1) | ((ref == 1) & (got != 1)))
        print(name, "MISMATCH", bad[:5].tolist(), int(ref.sum()), int(got.sum()), flush=True)


def main() -> None:
    rng = np.random.default_rng(3)
    base = rng.random((60, 3)).astype(np.float32)
    inf, nan = np.inf, np.nan
    extremes = [
        [inf, 0, 0],
        [-inf, 0.5, 0.5],
        [0.5, inf, -inf],
        [1e30, 0, 0],
        [-1e30, 1e30, 0],
        [nan, 0.2, 0.2],
    ]
    pts = np.concatenate([base, np.array(extremes, np.float32)])
    run("inf_nan_1e30_points", pts, pts, 0.1, 0.15)
    run("build_radius_1e-30", base, base, 1e-30, 0.2)
    run("build_radius_1e-30_extremes", pts, pts, 1e-30, 0.2)
    run("build_radius_1e30", pts, pts, 1e30, 0.2)
    far = np.array([[3e9, 0, 0], [3e9 + 512, 0, 0], [-3e9, 1, 1], [0, 0, 0], [2e9, -2e9, 4e9]], np.float32)
    run("x_3e9_radius_1", far, far, 1.0, 1.0)
    run("x_3e9_radius_1000", far, far, 1.0, 1000.0)
    run("x_3e9_small_cells", far, far, 1e-3, 1.0)
    run("query_radius_1e30", pts, base[:10], 0.1, 1e30)
    run("query_radius_1e30_far", far, far, 1.0, 1e30)
    run("query_radius_3e38", base, base[:5], 0.05, 3e38)
    run("query_radius_inf", pts, base[:5], 0.1, inf)
    run("query_at_inf", pts, np.array(extremes[:4], np.float32), 0.1, 0.5)
    run("query_at_nan", pts, np.array([[nan, nan, nan], [nan, 0, 0]], np.float32), 0.1, 0.5)
    run("query_radius_negative", pts, base[:5], 0.1, -1.0)
    run("query_radius_nan", pts, base[:5], 0.1, nan)
    run("one_bucket_grid", pts, pts, 0.1, 0.15, dims=(1, 1, 1))
    run("large_grid", pts, pts, 0.01, 0.15, dims=(128, 64, 32))
    run("huge_coordinates_small_cells", base * np.float32(1e25), base * np.float32(1e25), 1e20, 3e24)


if __name__ == "__main__":
    sys.exit(main())
