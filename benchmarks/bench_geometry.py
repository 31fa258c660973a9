"""Geometry benchmarks: BVH build + 1M ray casts and 1M closest-point queries on a 100k-triangle
mesh, hash-grid build + neighbour query of 1M points; each beside NumPy brute force.

Brute force runs on a subset and is extrapolated linearly to the full problem (its cost is
exactly linear in the number of queries). Figures are wall-clock on a shared machine (noisy),
with the process CPU time of the same launch beside them (all threads; less sensitive to other
processes taking the cores, though not to their cache and hyper-thread contention).

    python benchmarks/bench_geometry.py [--rays 1000000] [--points 1000000]

Targets (this CPU, 2 cores): BVH build of 100k triangles < 1 s; 1M ray casts < 5 s; 1M point
queries < 20 s (query points spread through the mesh's bounding box, many far from the surface);
hash-grid build of 1M points < 1 s and neighbour query of 1M points < 10 s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, result  # noqa: E402

import warp as wp  # noqa: E402


def torus(nu: int, nv: int) -> tuple[np.ndarray, np.ndarray]:
    u, v = np.meshgrid(2 * np.pi * np.arange(nu) / nu, 2 * np.pi * np.arange(nv) / nv, indexing="ij")
    pts = np.stack(
        [(1 + 0.35 * np.cos(v)) * np.cos(u), (1 + 0.35 * np.cos(v)) * np.sin(u), 0.35 * np.sin(v)], -1
    )
    i, j = np.meshgrid(np.arange(nu), np.arange(nv), indexing="ij")
    a, b = i * nv + j, ((i + 1) % nu) * nv + j
    c, d = ((i + 1) % nu) * nv + (j + 1) % nv, i * nv + (j + 1) % nv
    tris = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)])
    return pts.reshape(-1, 3).astype(np.float32), tris.astype(np.int32)


@wp.kernel
def cast(mesh: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), t: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_ray(mesh, o[i], d[i], 1.0e6)
    t[i] = q.t


@wp.kernel
def closest(mesh: wp.uint64, p: wp.array(dtype=wp.vec3), face: wp.array(dtype=wp.int32)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, p[i], 1.0e6)
    face[i] = q.face


@wp.kernel
def count(grid: wp.uint64, p: wp.array(dtype=wp.vec3), h: float, n: wp.array(dtype=wp.int32)):
    i = wp.tid()
    c = int(0)
    for j in wp.hash_grid_query(grid, p[i], h):
        if wp.length_sq(p[i] - p[j]) <= h * h:
            c += 1
    n[i] = c


@wp.kernel
def count_coherent(grid: wp.uint64, p: wp.array(dtype=wp.vec3), h: float, n: wp.array(dtype=wp.int32)):
    """``count`` with threads taken in the grid's cell order (wp.hash_grid_point_id), as NVIDIA Warp
    recommends: neighbouring threads then read neighbouring points."""
    i = wp.hash_grid_point_id(grid, wp.tid())
    c = int(0)
    for j in wp.hash_grid_query(grid, p[i], h):
        if wp.length_sq(p[i] - p[j]) <= h * h:
            c += 1
    n[i] = c


def brute_rays(o, d, tri):
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    e1, e2 = b - a, c - a
    out = []
    for k in range(len(o)):
        pv = np.cross(d[k], e2)
        det = np.einsum("ij,ij->i", e1, pv)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / det
            tv = o[k] - a
            u = np.einsum("ij,ij->i", tv, pv) * inv
            qv = np.cross(tv, e1)
            v = (qv @ d[k]) * inv
            t = np.einsum("ij,ij->i", e2, qv) * inv
        ok = (u >= 0) & (v >= 0) & (u + v <= 1) & (t >= 0)
        out.append(t[ok].min() if ok.any() else np.inf)
    return np.array(out)


def brute_closest(p, tri):
    """Squared distance to the nearest vertex or face plane projection (a lower-cost stand-in for
    exact point-triangle distance, so the extrapolated NumPy figure is if anything optimistic)."""
    verts = tri.reshape(-1, 3)
    return np.array([np.einsum("ij,ij->i", verts - q, verts - q).argmin() // 3 for q in p])


CPU_TIMES: dict[str, float] = {}


def timed(fn, label: str | None = None):
    """Wall time of ``fn()``; its process CPU time (all threads) is kept in CPU_TIMES[label]."""
    c0, t0 = time.process_time(), time.perf_counter()
    fn()
    wp.synchronize()
    if label is not None:
        CPU_TIMES[label] = time.process_time() - c0
    return time.perf_counter() - t0


def cpu(label: str) -> str:
    return f"CPU {CPU_TIMES[label]:.3f} s"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rays", type=int, default=1_000_000)
    parser.add_argument("--points", type=int, default=1_000_000)
    args = parser.parse_args()
    print(machine_info())
    wp.config.quiet = True
    pts, tris = torus(500, 100)  # 100k triangles
    rng = np.random.default_rng(0)
    P, I = wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32)
    t_build = timed(lambda: wp.Mesh(P, I), "build")
    t_lbvh = timed(lambda: wp.Mesh(P, I, bvh_constructor="lbvh"), "lbvh")
    mesh = wp.Mesh(P, I)
    print(f"BVH build, {len(tris)} triangles: {t_build:.3f} s (median splits), {t_lbvh:.3f} s (lbvh)")
    result("bvh_build_100k_tris", t_build, "s", 1.0)
    result("bvh_build_100k_tris_lbvh", t_lbvh, "s", 1.0)

    n = args.rays
    o = (rng.normal(size=(n, 3)) * 0.1 + np.array([0.0, 0.0, 3.0])).astype(np.float32)
    target = rng.uniform(-1.4, 1.4, size=(n, 3)) * np.array([1, 1, 0.3])
    d = (target - o).astype(np.float32)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    wo, wd, t = wp.array(o, dtype=wp.vec3), wp.array(d, dtype=wp.vec3), wp.zeros(n, dtype=float)
    wp.launch(cast, dim=64, inputs=[mesh.id, wo, wd, t])  # compile
    t_rays = timed(lambda: wp.launch(cast, dim=n, inputs=[mesh.id, wo, wd, t]), "rays")
    sub = 40
    t_np = timed(lambda: brute_rays(o[:sub], d[:sub], pts[tris])) * n / sub
    hits = np.isfinite(t.numpy()) & (t.numpy() > 0)
    print(
        f"{n} ray casts: {t_rays:.3f} s, {cpu('rays')} "
        f"({n / t_rays / 1e6:.2f} Mrays/s, {hits.mean():.0%} hit); "
        f"NumPy brute force ~{t_np:.0f} s (extrapolated from {sub} rays)"
    )
    result("mesh_ray_casts_1M", t_rays, "s", 5.0)
    result("mesh_ray_casts_1M_numpy", t_np, "s", None)

    n = args.points
    p = rng.uniform(-1.5, 1.5, size=(n, 3)).astype(np.float32)
    wp_p, face = wp.array(p, dtype=wp.vec3), wp.zeros(n, dtype=wp.int32)
    wp.launch(closest, dim=64, inputs=[mesh.id, wp_p, face])
    t_q = timed(lambda: wp.launch(closest, dim=n, inputs=[mesh.id, wp_p, face]), "closest")
    sub = 40
    t_np = timed(lambda: brute_closest(p[:sub], pts[tris])) * n / sub
    print(
        f"{n} closest-point queries: {t_q:.3f} s, {cpu('closest')}; "
        f"NumPy brute force (nearest vertex only) ~{t_np:.0f} s "
        f"(extrapolated from {sub})"
    )
    result("mesh_point_queries_1M", t_q, "s", 20.0)
    result("mesh_point_queries_1M_numpy", t_np, "s", None)

    h = 0.02
    cloud = rng.uniform(0.0, 1.0, size=(n, 3)).astype(np.float32)
    wp_c, counts = wp.array(cloud, dtype=wp.vec3), wp.zeros(n, dtype=wp.int32)
    grid = wp.HashGrid(128, 128, 128)
    grid.build(wp_c, h)
    t_grid = timed(lambda: grid.build(wp_c, h))
    wp.launch(count, dim=64, inputs=[grid.id, wp_c, h, counts])
    t_hq = timed(lambda: wp.launch(count, dim=n, inputs=[grid.id, wp_c, h, counts]), "grid")
    ref_counts = counts.numpy().copy()
    wp.launch(count_coherent, dim=64, inputs=[grid.id, wp_c, h, counts])
    t_hc = timed(lambda: wp.launch(count_coherent, dim=n, inputs=[grid.id, wp_c, h, counts]), "grid_coherent")
    assert np.array_equal(counts.numpy(), ref_counts)
    sub = 100
    t_np = timed(lambda: [(np.einsum("ij,ij->i", cloud - q, cloud - q) <= h * h).sum() for q in cloud[:sub]])
    t_np *= n / sub
    print(
        f"hash grid, {n} points: build {t_grid:.3f} s, neighbour query {t_hq:.3f} s, {cpu('grid')} "
        f"(mean {counts.numpy().mean():.1f} neighbours; threads in cell order {t_hc:.3f} s, "
        f"{cpu('grid_coherent')}); "
        f"NumPy brute force ~{t_np:.0f} s (extrapolated from {sub})"
    )
    result("hash_grid_build_1M", t_grid, "s", 1.0)
    result("hash_grid_query_1M", t_hq, "s", 10.0)
    result("hash_grid_query_1M_cell_order", t_hc, "s", None)
    result("hash_grid_query_1M_numpy", t_np, "s", None)


if __name__ == "__main__":
    main()
