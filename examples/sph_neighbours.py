"""SPH-style neighbour counts with a hash grid; writes examples/output/sph_neighbours.png.

Particles fill a few blobs; ``wp.HashGrid`` buckets them and one kernel per particle counts its
neighbours within the smoothing radius (``hash_grid_query`` in a ``for`` loop) and sums a
poly6 density. A second kernel splats the particles, coloured by neighbour count, into a front
view (particles are drawn far to near).

    python examples/sph_neighbours.py [--particles 200000] [--out PATH]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import warp as wp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png import write_png  # noqa: E402

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "output", "sph_neighbours.png")


@wp.kernel
def neighbours(
    grid: wp.uint64,
    points: wp.array(dtype=wp.vec3),
    h: float,
    counts: wp.array(dtype=wp.int32),
    density: wp.array(dtype=float),
):
    tid = wp.tid()
    i = wp.hash_grid_point_id(grid, tid)  # visit particles in cell order (memory locality)
    p = points[i]
    n = int(0)
    rho = float(0.0)
    for index in wp.hash_grid_query(grid, p, h):
        r2 = wp.length_sq(p - points[index])
        if r2 <= h * h:
            n += 1
            w = h * h - r2
            rho += w * w * w
    counts[i] = n
    density[i] = rho


@wp.kernel
def splat(
    points: wp.array(dtype=wp.vec3),
    counts: wp.array(dtype=wp.int32),
    max_count: float,
    size: int,
    image: wp.array2d(dtype=wp.vec3),
):
    i = wp.tid()
    p = points[i]
    x = int((p[0] + 1.0) * 0.5 * float(size))
    y = int((1.0 - p[1]) * 0.5 * float(size))
    if x >= 0 and x < size and y >= 0 and y < size:
        t = wp.min(float(counts[i]) / max_count, 1.0)
        image[y, x] = wp.vec3(t, 0.35 + 0.5 * t * (1.0 - t), 1.0 - t)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--particles", type=int, default=200000)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    centers = rng.uniform(-0.6, 0.6, size=(6, 3))
    which = rng.integers(0, 6, args.particles)
    pts = centers[which] + rng.normal(scale=rng.uniform(0.08, 0.25, 6)[which, None], size=(args.particles, 3))
    pts = np.clip(pts, -0.99, 0.99).astype(np.float32)
    points = wp.array(pts, dtype=wp.vec3)
    h = 0.03
    grid = wp.HashGrid(128, 128, 128)
    t0 = time.perf_counter()
    grid.build(points, h)
    build = time.perf_counter() - t0
    counts, density = wp.zeros(len(pts), dtype=wp.int32), wp.zeros(len(pts), dtype=float)
    wp.launch(neighbours, dim=len(pts), inputs=[grid.id, points, h, counts, density])  # compile
    t0 = time.perf_counter()
    wp.launch(neighbours, dim=len(pts), inputs=[grid.id, points, h, counts, density])
    wp.synchronize()
    query = time.perf_counter() - t0
    image = wp.full((args.size, args.size), wp.vec3(0.05, 0.05, 0.08), dtype=wp.vec3)
    order = np.argsort(pts[:, 2])  # far particles first, near ones drawn last
    sorted_pts = wp.array(pts[order], dtype=wp.vec3)
    sorted_counts = wp.array(counts.numpy()[order], dtype=wp.int32)
    max_count = float(np.percentile(counts.numpy(), 99))
    wp.launch(splat, dim=len(pts), inputs=[sorted_pts, sorted_counts, max_count, args.size, image])
    write_png(args.out, (np.clip(image.numpy(), 0, 1) * 255).astype(np.uint8))
    c = counts.numpy()
    print(
        f"{len(pts)} particles: grid build {build * 1e3:.1f} ms, neighbour query {query * 1e3:.1f} ms; "
        f"neighbours min {c.min()} mean {c.mean():.1f} max {c.max()}; wrote {args.out}"
    )
    return args.out


if __name__ == "__main__":
    main()
