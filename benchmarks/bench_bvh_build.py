"""BVH build and refit: the kernel LBVH builder and kernel refit against the NumPy builders.

On the CPU: 100k and 1M random boxes, one item per leaf and 8 per leaf: build with the kernel
LBVH builder (``constructor="lbvh"``), with NumPy's median split (``"median"``/``"sah"``, the
CPU's default) and NumPy's Morton-order split, and the refit in kernels (every refit) against
the NumPy refit it replaced. Where a CUDA device is present the same on ``cuda:0`` (build in
kernels there, no host round trip) and the ``wp.Mesh`` of examples/mesh_raycast.py's size.
Figures are medians of a few runs after a warm-up (kernels compiled and loaded before timing).

    python benchmarks/bench_bvh_build.py [--sizes 100000 1000000] [--runs 3]

Targets: 1M boxes built in kernels on the CPU < 1 s and refitted < 0.2 s; on a GPU, a 32k
triangle mesh built in < 10 ms.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, median_time, result  # noqa: E402

import warp as wp  # noqa: E402
from warp_geometry import bvh_build  # noqa: E402


def boxes(n: int) -> tuple[np.ndarray, np.ndarray]:
    c = np.random.default_rng(0).random((n, 3)).astype(np.float32)
    h = np.float32(0.5 / round(n ** (1 / 3)))
    return c - h, c + h


def sync(device: str) -> None:
    wp.synchronize_device(device)


def bench_device(device: str, lo: np.ndarray, hi: np.ndarray, leaf: int, runs: int, tag: str) -> None:
    L = wp.array(lo, dtype=wp.vec3, device=device)
    H = wp.array(hi, dtype=wp.vec3, device=device)
    holder: list = []

    def build() -> None:
        holder[:] = [wp.Bvh(L, H, constructor="lbvh", leaf_size=leaf)]
        sync(device)

    b_med, _ = median_time(build, runs)
    r_med, _ = median_time(lambda: (holder[0].refit(), sync(device)), runs)
    print(f"  {device:7s} kernel LBVH build {b_med * 1e3:9.2f} ms   kernel refit {r_med * 1e3:8.2f} ms")
    result(f"bvh_build_kernel_{tag}_{device.replace(':', '')}", b_med * 1e3, "ms", None)
    result(f"bvh_refit_kernel_{tag}_{device.replace(':', '')}", r_med * 1e3, "ms", None)


def bench_numpy(lo: np.ndarray, hi: np.ndarray, leaf: int, runs: int, tag: str) -> None:
    trees: list = []
    for method in ("median", "lbvh"):
        t, _ = median_time(lambda m=method: trees.append(bvh_build.build(lo, hi, leaf, m)), runs, warmup=0)
        print(f"  numpy   {method:6s} build      {t * 1e3:9.2f} ms")
        result(f"bvh_build_numpy_{method}_{tag}", t * 1e3, "ms", None)
    t, _ = median_time(lambda: bvh_build.refit(trees[0], lo, hi), runs, warmup=0)
    print(f"  numpy   refit             {t * 1e3:9.2f} ms")
    result(f"bvh_refit_numpy_{tag}", t * 1e3, "ms", None)


def bench_mesh(device: str, runs: int) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
    from mesh_raycast import scene_mesh

    pts, tris, _ = scene_mesh()
    P = wp.array(pts, dtype=wp.vec3, device=device)
    I = wp.array(tris.reshape(-1).astype(np.int32), dtype=wp.int32, device=device)
    holder: list = []

    def build() -> None:
        holder[:] = [wp.Mesh(P, I)]
        sync(device)

    b, _ = median_time(build, runs)
    r, _ = median_time(lambda: (holder[0].refit(), sync(device)), runs)
    print(f"  {device:7s} wp.Mesh of {len(tris)} triangles: build {b * 1e3:.2f} ms, refit {r * 1e3:.2f} ms")
    result(f"mesh_build_{device.replace(':', '')}", b * 1e3, "ms", 10.0 if device != "cpu" else None)
    result(f"mesh_refit_{device.replace(':', '')}", r * 1e3, "ms", None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    wp.init()
    print(machine_info())
    devices = ["cpu"] + [f"cuda:{i}" for i in range(min(wp.get_cuda_device_count(), 1))]
    for n in args.sizes:
        lo, hi = boxes(n)
        for leaf in (1, 8):
            tag = f"{n // 1000}k_leaf{leaf}"
            print(f"{n} boxes, leaf size {leaf}:")
            for device in devices:
                bench_device(device, lo, hi, leaf, args.runs, tag)
            bench_numpy(lo, hi, leaf, args.runs, tag)
    for device in devices:
        bench_mesh(device, args.runs)


if __name__ == "__main__":
    main()
