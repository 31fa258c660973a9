"""Ray cast a triangle mesh (a torus knotted around a sphere) and write examples/output/mesh_raycast.png.

One kernel thread per pixel casts a camera ray with ``wp.mesh_query_ray`` (the struct form),
shades the hit with the face normal and a light, and casts a shadow ray (the out-parameter
form). The mesh is built with NumPy; its BVH is built by ``wp.Mesh``.

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


def torus_mesh(R: float = 1.0, r: float = 0.35, nu: int = 160, nv: int = 48) -> tuple[np.ndarray, np.ndarray]:
    """A closed torus around the z axis, tilted, with outward counter-clockwise triangles."""
    u, v = np.meshgrid(2 * np.pi * np.arange(nu) / nu, 2 * np.pi * np.arange(nv) / nv, indexing="ij")
    pts = np.stack(
        [(R + r * np.cos(v)) * np.cos(u), (R + r * np.cos(v)) * np.sin(u), r * np.sin(v)], -1
    ).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(nu), np.arange(nv), indexing="ij")
    a, b = i * nv + j, ((i + 1) % nu) * nv + j
    c, d = ((i + 1) % nu) * nv + (j + 1) % nv, i * nv + (j + 1) % nv
    tris = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)])
    tilt = np.array([[1, 0, 0], [0, np.cos(1.0), -np.sin(1.0)], [0, np.sin(1.0), np.cos(1.0)]])
    return (pts @ tilt.T).astype(np.float32), tris.astype(np.int32)


@wp.kernel
def render(
    mesh: wp.uint64, width: int, height: int, eye: wp.vec3, light: wp.vec3, pixels: wp.array2d(dtype=wp.vec3)
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
        base = n * 0.35 + wp.vec3(0.55, 0.5, 0.45)
        color = base * (0.15 + 0.85 * diffuse)
    pixels[y, x] = color


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    pts, tris = torus_mesh()
    t0 = time.perf_counter()
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32))
    build = time.perf_counter() - t0
    pixels = wp.zeros((args.height, args.width), dtype=wp.vec3)
    inputs = [mesh.id, args.width, args.height, wp.vec3(0.0, 0.0, 4.0), wp.vec3(3.0, 4.0, 5.0), pixels]
    wp.launch(render, dim=(args.height, args.width), inputs=inputs)  # compile
    t0 = time.perf_counter()
    wp.launch(render, dim=(args.height, args.width), inputs=inputs)
    wp.synchronize()
    cast = time.perf_counter() - t0
    img = (np.clip(pixels.numpy(), 0.0, 1.0) ** (1 / 2.2) * 255).astype(np.uint8)
    write_png(args.out, img)
    print(
        f"{len(tris)} triangles, BVH build {build * 1e3:.1f} ms, {2 * args.width * args.height} rays in "
        f"{cast * 1e3:.1f} ms; wrote {args.out}"
    )
    return args.out


if __name__ == "__main__":
    main()
