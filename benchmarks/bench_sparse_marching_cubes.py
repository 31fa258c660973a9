"""Sparse marching cubes (warp.geometry.sparse_marching_cubes) beside dense marching cubes on the same
node grid, for a torus's signed distance evaluated by a kernel: wall time and field evaluations.
Wall-clock on a shared machine: noisy.

    python benchmarks/bench_sparse_marching_cubes.py [--depth 8]

Targets (this CPU, 2 cores), at depth 8 (257^3 nodes): sparse extraction < 1 s with under a
tenth of the dense grid's evaluations (both produce the same triangles).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, median_time, result  # noqa: E402

import warp as wp  # noqa: E402


@wp.func
def torus(p: wp.vec3) -> float:
    q = wp.vec2(wp.length(wp.vec2(p[0], p[2])) - 0.5, p[1])
    return wp.length(q) - 0.2


@wp.kernel(enable_backward=False)
def torus_points(points: wp.array(dtype=wp.vec3), values: wp.array(dtype=float)):
    i = wp.tid()
    values[i] = torus(points[i])


@wp.kernel(enable_backward=False)
def torus_grid(field: wp.array3d(dtype=float), lower: wp.vec3, h: float):
    i, j, k = wp.tid()
    field[i, j, k] = torus(lower + h * wp.vec3(float(i), float(j), float(k)))


def evaluate(points: wp.array) -> wp.array:
    values = wp.empty(points.shape[0], dtype=float, device=points.device)
    wp.launch(torus_points, dim=points.shape[0], inputs=[points, values], device=points.device)
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=8, help="grid of 2**depth + 1 nodes per axis")
    args = parser.parse_args()
    wp.config.quiet = True
    print(machine_info())
    n = (1 << args.depth) + 1
    lower, upper = wp.vec3(-1.0, -1.0, -1.0), wp.vec3(1.0, 1.0, 1.0)

    def sparse():
        return wp.geometry.sparse_marching_cubes(evaluate, n, n, n, lower, upper, return_stats=True)

    def dense():
        field = wp.empty((n, n, n), dtype=float)
        wp.launch(torus_grid, dim=field.shape, inputs=[field, lower, 2.0 / (n - 1)])
        return wp.geometry.IsoSurfaceMarchingCubes.extract(field, 0.0, lower=lower, upper=upper)

    _, indices, stats = sparse()
    _, dense_indices = dense()
    assert indices.shape == dense_indices.shape
    t_sparse, _ = median_time(sparse, runs=3)
    t_dense, _ = median_time(dense, runs=3)
    print(f"{n}^3 nodes: {stats['leaf_cells']} leaf cells, {stats['field_evaluations']} evaluations "
          f"(dense: {n**3}), {indices.shape[0] // 3} triangles")
    target = 1.0 if args.depth == 8 else None
    result(f"sparse_mc_{n}", t_sparse, "s", target)
    result(f"dense_mc_{n}", t_dense, "s", None)
    result(f"sparse_mc_{n}_evaluation_fraction", stats["field_evaluations"] / n**3, "ratio",
           0.1 if args.depth == 8 else None)


if __name__ == "__main__":
    main()
