"""Ray cast a triangle mesh (a trefoil knot wound around a sphere); writes examples/output/mesh_raycast.png.

One kernel thread per pixel casts a camera ray with ``wp.mesh_query_ray`` (the struct form),
shades the hit with the face normal and a light, and casts a shadow ray (the out-parameter
form): the knot and the sphere shadow each other. The mesh (a tube around a (2, 3) torus knot
plus a sphere at its centre) is built with NumPy; its BVH is built by ``wp.Mesh`` (in kernels on
a CUDA device; the build is timed a second time, once its kernels are loaded).

    python examples/mesh_raycast.py [--width 640] [--height 480] [--out PATH]
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

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "output", "mesh_raycast.png")


def knot_tube_mesh(
    p: int = 2, q: int = 3, R: float = 1.25, a: float = 0.5, tube: float = 0.16, nu: int = 480, nv: int = 24
) -> tuple[np.ndarray, np.ndarray]:
    """A closed tube around the (p, q) torus knot (a trefoil by default), with consistent triangles.

    The tube's cross-section follows the curve's Frenet frame, which is periodic on a closed
    curve, so the tube closes without a seam.
    """
    t = 2 * np.pi * np.arange(nu) / nu
    radius = R + a * np.cos(q * t)
    curve = np.stack([radius * np.cos(p * t), radius * np.sin(p * t), a * np.sin(q * t)], -1)
    d1 = (np.roll(curve, -1, 0) - np.roll(curve, 1, 0)) / 2  # periodic central differences
    d2 = np.roll(curve, -1, 0) - 2 * curve + np.roll(curve, 1, 0)
    tangent = d1 / np.linalg.norm(d1, axis=1, keepdims=True)
    normal = d2 - (d2 * tangent).sum(1, keepdims=True) * tangent
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    binormal = np.cross(tangent, normal)
    v = 2 * np.pi * np.arange(nv) / nv
    ring = np.cos(v)[None, :, None] * normal[:, None, :] + np.sin(v)[None, :, None] * binormal[:, None, :]
    pts = (curve[:, None, :] + tube * ring).reshape(-1, 3)
    return pts.astype(np.float32), _grid_triangles(nu, nv)


def _grid_triangles(nu: int, nv: int) -> np.ndarray:
    """Two triangles per cell of an nu x nv grid that wraps around in both directions."""
    i, j = np.meshgrid(np.arange(nu), np.arange(nv), indexing="ij")
    a, b = i * nv + j, ((i + 1) % nu) * nv + j
    c, d = ((i + 1) % nu) * nv + (j + 1) % nv, i * nv + (j + 1) % nv
    return np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)])


def sphere_mesh(radius: float = 0.55, n_lat: int = 48, n_lon: int = 96) -> tuple[np.ndarray, np.ndarray]:
    """A closed latitude-longitude sphere at the origin (one vertex at each pole)."""
    theta = np.pi * np.arange(1, n_lat) / n_lat  # rings between the poles
    phi = 2 * np.pi * np.arange(n_lon) / n_lon
    th, ph = np.meshgrid(theta, phi, indexing="ij")
    ring_pts = np.stack([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)], -1).reshape(-1, 3)
    pts = np.concatenate([[[0.0, 0.0, 1.0]], ring_pts, [[0.0, 0.0, -1.0]]]) * radius
    north, south = 0, len(pts) - 1
    tris = []
    for k in range(n_lon):
        k1 = (k + 1) % n_lon
        tris.append([north, 1 + k, 1 + k1])
        tris.append([south, 1 + (n_lat - 2) * n_lon + k1, 1 + (n_lat - 2) * n_lon + k])
    for r in range(n_lat - 2):
        for k in range(n_lon):
            k1 = (k + 1) % n_lon
            a, b = 1 + r * n_lon + k, 1 + r * n_lon + k1
            c, d = 1 + (r + 1) * n_lon + k1, 1 + (r + 1) * n_lon + k
            tris += [[a, d, c], [a, c, b]]
    return pts.astype(np.float32), np.array(tris, dtype=np.int32)


def scene_mesh() -> tuple[np.ndarray, np.ndarray, int]:
    """A trefoil knot tube wound around a sphere, tilted towards the camera; also the number of
    the knot's triangles (they come first)."""
    knot_pts, knot_tris = knot_tube_mesh()
    ball_pts, ball_tris = sphere_mesh()
    pts = np.concatenate([knot_pts, ball_pts])
    tris = np.concatenate([knot_tris, ball_tris + len(knot_pts)])
    tilt = np.array([[1, 0, 0], [0, np.cos(0.9), -np.sin(0.9)], [0, np.sin(0.9), np.cos(0.9)]])
    return (pts @ tilt.T).astype(np.float32), tris.astype(np.int32), len(knot_tris)


@wp.kernel
def render(
    mesh: wp.uint64,
    knot_faces: int,
    width: int,
    height: int,
    eye: wp.vec3,
    light: wp.vec3,
    pixels: wp.array2d(dtype=wp.vec3),
):
    y, x = wp.tid()
    sx = (2.0 * (float(x) + 0.5) / float(width) - 1.0) * float(width) / float(height)
    sy = 1.0 - 2.0 * (float(y) + 0.5) / float(height)
    d = wp.normalize(wp.vec3(sx * 0.6, sy * 0.6, -1.0))
    q = wp.mesh_query_ray(mesh, eye, d, 1.0e6)
    color = wp.vec3(0.08, 0.09, 0.12) + wp.vec3(0.10, 0.12, 0.18) * (1.0 - sy) * 0.5
    if q.result:
        p = eye + q.t * d
        n = q.normal
        if q.sign < 0.0:
            n = -n
        to_light = wp.normalize(light - p)
        diffuse = wp.max(wp.dot(n, to_light), 0.0)
        # shadow ray with the out-parameter form
        t = float(0.0)
        u = float(0.0)
        v = float(0.0)
        s = float(0.0)
        sn = wp.vec3()
        f = int(0)
        if wp.mesh_query_ray(mesh, p + n * 1.0e-3, to_light, wp.length(light - p), t, u, v, s, sn, f):
            diffuse = diffuse * 0.2
        base = wp.vec3(0.85, 0.45, 0.2)  # the knot
        if q.face >= knot_faces:
            base = wp.vec3(0.35, 0.55, 0.85)  # the sphere
        color = base * (0.15 + 0.85 * diffuse)
    pixels[y, x] = color


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    pts, tris, knot_faces = scene_mesh()
    points, indices = wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32)
    t0 = time.perf_counter()
    mesh = wp.Mesh(points, indices)  # the first build also compiles or loads the builder's kernels
    wp.synchronize()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    mesh = wp.Mesh(points, indices)
    wp.synchronize()
    build = time.perf_counter() - t0
    pixels = wp.zeros((args.height, args.width), dtype=wp.vec3)
    eye, light = wp.vec3(0.0, 0.0, 4.5), wp.vec3(3.0, 4.0, 5.0)
    inputs = [mesh.id, knot_faces, args.width, args.height, eye, light, pixels]
    wp.launch(render, dim=(args.height, args.width), inputs=inputs)  # compile
    t0 = time.perf_counter()
    wp.launch(render, dim=(args.height, args.width), inputs=inputs)
    wp.synchronize()
    cast = time.perf_counter() - t0
    img = (np.clip(pixels.numpy(), 0.0, 1.0) ** (1 / 2.2) * 255).astype(np.uint8)
    write_png(args.out, img)
    print(
        f"{len(tris)} triangles, BVH build {build * 1e3:.1f} ms (first build, kernels loaded: "
        f"{first * 1e3:.1f} ms), {2 * args.width * args.height} rays in "
        f"{cast * 1e3:.1f} ms; wrote {args.out}"
    )
    return args.out


if __name__ == "__main__":
    main()
