"""Benchmarks of the mesh queries beyond closest point and first hit, on a 100k-triangle torus:
any-hit vs first-hit rays, crossing counts, the parity sign vs the ray-vote and winding-number
signs, furthest points and sphere queries; each beside NumPy brute force (extrapolated linearly
from a subset, as in bench_geometry.py). Wall-clock on a shared machine: noisy.

    python benchmarks/bench_mesh_queries.py [--queries 200000]

Targets (this CPU, 2 cores), for 200k queries: any-hit rays faster than first-hit rays;
crossing counts < 5 s; three-ray sign (mesh_query_point) < 5 s; parity sign with 3 rays < 15 s;
furthest point < 5 s; sphere queries < 5 s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, result  # noqa: E402
from bench_geometry import torus  # noqa: E402

import warp as wp  # noqa: E402


@wp.kernel
def first_hit(
    mesh: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)
):
    i = wp.tid()
    out[i] = int(wp.mesh_query_ray(mesh, o[i], d[i], 1.0e6).result)


@wp.kernel
def any_hit(
    mesh: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)
):
    i = wp.tid()
    out[i] = int(wp.mesh_query_ray_anyhit(mesh, o[i], d[i], 1.0e6))


@wp.kernel
def crossings(
    mesh: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)
):
    i = wp.tid()
    out[i] = wp.mesh_query_ray_count_intersections(mesh, o[i], d[i])


@wp.kernel
def signs(mesh: wp.uint64, p: wp.array(dtype=wp.vec3), method: int, out: wp.array(dtype=float)):
    i = wp.tid()
    if method == 0:
        out[i] = wp.mesh_query_point(mesh, p[i], 1.0e6).sign
    elif method == 1:
        out[i] = wp.mesh_query_point_sign_winding_number(mesh, p[i], 1.0e6).sign
    else:
        out[i] = wp.mesh_query_point_sign_parity(mesh, p[i], 1.0e6, 3, 0.1).sign


@wp.kernel
def furthest(mesh: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp.mesh_query_furthest_point_no_sign(mesh, p[i], 0.0).face


@wp.kernel
def sphere(mesh: wp.uint64, p: wp.array(dtype=wp.vec3), r: float, out: wp.array(dtype=int)):
    i = wp.tid()
    n = int(0)
    for _f in wp.mesh_query_sphere(mesh, p[i], r):
        n += 1
    out[i] = n


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    wp.synchronize()
    return time.perf_counter() - t0


def run(kernel, n: int, inputs: list) -> float:
    wp.launch(kernel, dim=64, inputs=inputs)  # compile
    return timed(lambda: wp.launch(kernel, dim=n, inputs=inputs))


def brute_counts(o: np.ndarray, d: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """Crossings per ray (Moller-Trumbore against every triangle)."""
    a, e1, e2 = tri[:, 0], tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    out = []
    for k in range(len(o)):
        pv = np.cross(d[k], e2)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / np.einsum("ij,ij->i", e1, pv)
            tv = o[k] - a
            u = np.einsum("ij,ij->i", tv, pv) * inv
            qv = np.cross(tv, e1)
            v = (qv @ d[k]) * inv
            t = np.einsum("ij,ij->i", e2, qv) * inv
        out.append(((u >= 0) & (v >= 0) & (u + v <= 1) & (t >= 0)).sum())
    return np.array(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=200_000)
    n = parser.parse_args().queries
    print(machine_info())
    wp.config.quiet = True
    pts, tris = torus(500, 100)  # 100k triangles
    mesh = wp.Mesh(
        wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32), support_winding_number=True
    )
    rng = np.random.default_rng(0)
    p = (rng.uniform(-1.5, 1.5, size=(n, 3)) * np.array([1, 1, 0.4])).astype(np.float32)
    d = rng.normal(size=(n, 3)).astype(np.float32)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    wp_p, wp_d, ints, floats = (
        wp.array(p, dtype=wp.vec3),
        wp.array(d, dtype=wp.vec3),
        wp.zeros(n, dtype=int),
        wp.zeros(n, dtype=float),
    )
    sub = 20
    t_np = timed(lambda: brute_counts(p[:sub], d[:sub], pts[tris])) * n / sub

    t_first = run(first_hit, n, [mesh.id, wp_p, wp_d, ints])
    t_any = run(any_hit, n, [mesh.id, wp_p, wp_d, ints])
    hit = ints.numpy().mean()
    t_count = run(crossings, n, [mesh.id, wp_p, wp_d, ints])
    print(
        f"{n} rays ({hit:.0%} hit): first hit {t_first:.3f} s, any hit {t_any:.3f} s, crossing count "
        f"{t_count:.3f} s; NumPy brute force (count) ~{t_np:.0f} s (extrapolated from {sub})"
    )
    result("mesh_rays_first_hit_200k", t_first, "s", None)
    result("mesh_rays_anyhit_200k", t_any, "s", t_first)
    result("mesh_rays_count_200k", t_count, "s", 5.0)
    result("mesh_rays_count_200k_numpy", t_np, "s", None)

    t_rays = run(signs, n, [mesh.id, wp_p, 0, floats])
    t_wn = run(signs, n, [mesh.id, wp_p, 1, floats])
    t_par = run(signs, n, [mesh.id, wp_p, 2, floats])
    inside = (floats.numpy() < 0).mean()
    print(
        f"{n} signed point queries ({inside:.0%} inside): three-ray vote {t_rays:.3f} s, winding number "
        f"{t_wn:.3f} s, parity of 3 rays {t_par:.3f} s (NumPy: 3 crossing counts a point, ~{3 * t_np:.0f} s)"
    )
    result("mesh_sign_rays_200k", t_rays, "s", 5.0)
    result("mesh_sign_winding_200k", t_wn, "s", None)
    result("mesh_sign_parity3_200k", t_par, "s", 15.0)

    t_far = run(furthest, n, [mesh.id, wp_p, ints])
    corners = pts[tris].reshape(-1, 3)
    t_np_far = (
        timed(lambda: [np.einsum("ij,ij->i", corners - q, corners - q).argmax() for q in p[:sub]]) * n / sub
    )
    print(f"{n} furthest-point queries: {t_far:.3f} s; NumPy brute force ~{t_np_far:.0f} s (extrapolated)")
    result("mesh_furthest_200k", t_far, "s", 5.0)
    result("mesh_furthest_200k_numpy", t_np_far, "s", None)

    r = 0.05
    t_sph = run(sphere, n, [mesh.id, wp_p, r, ints])
    print(f"{n} sphere queries (r={r}, mean {ints.numpy().mean():.1f} faces): {t_sph:.3f} s")
    result("mesh_sphere_200k", t_sph, "s", 5.0)


if __name__ == "__main__":
    main()
