"""Independent NumPy references for geometry tests: meshes, brute-force queries."""

from __future__ import annotations

import numpy as np


# -- meshes --------------------------------------------------------------------------------
def uv_sphere(radius: float = 1.0, rings: int = 16, segments: int = 24, center=(0.0, 0.0, 0.0)):
    """Closed sphere mesh with outward counter-clockwise triangles: (points (V,3), tris (F,3))."""
    pts = [[0.0, 0.0, radius]]
    for i in range(1, rings):
        theta = np.pi * i / rings
        for j in range(segments):
            phi = 2 * np.pi * j / segments
            pts.append(
                [
                    radius * np.sin(theta) * np.cos(phi),
                    radius * np.sin(theta) * np.sin(phi),
                    radius * np.cos(theta),
                ]
            )
    pts.append([0.0, 0.0, -radius])
    pts = np.array(pts) + np.asarray(center)
    south = len(pts) - 1
    tris = []

    def ring(i, j):
        return 1 + (i - 1) * segments + (j % segments)

    for j in range(segments):
        tris.append([0, ring(1, j), ring(1, j + 1)])
    for i in range(1, rings - 1):
        for j in range(segments):
            a, b, c, d = ring(i, j), ring(i + 1, j), ring(i + 1, j + 1), ring(i, j + 1)
            tris.append([a, b, c])
            tris.append([a, c, d])
    for j in range(segments):
        tris.append([south, ring(rings - 1, j + 1), ring(rings - 1, j)])
    return pts.astype(np.float32), np.array(tris, dtype=np.int32)


def torus(R: float = 1.0, r: float = 0.35, nu: int = 32, nv: int = 16):
    """Closed torus around the z axis with outward counter-clockwise triangles."""
    u = 2 * np.pi * np.arange(nu) / nu
    v = 2 * np.pi * np.arange(nv) / nv
    uu, vv = np.meshgrid(u, v, indexing="ij")
    pts = np.stack(
        [(R + r * np.cos(vv)) * np.cos(uu), (R + r * np.cos(vv)) * np.sin(uu), r * np.sin(vv)], axis=-1
    )
    pts = pts.reshape(-1, 3)
    tris = []
    for i in range(nu):
        for j in range(nv):
            a = i * nv + j
            b = ((i + 1) % nu) * nv + j
            c = ((i + 1) % nu) * nv + (j + 1) % nv
            d = i * nv + (j + 1) % nv
            tris.append([a, b, c])
            tris.append([a, c, d])
    return pts.astype(np.float32), np.array(tris, dtype=np.int32)


def torus_inside(p: np.ndarray, R: float = 1.0, r: float = 0.35) -> np.ndarray:
    q = np.sqrt(p[:, 0] ** 2 + p[:, 1] ** 2) - R
    return q * q + p[:, 2] ** 2 < r * r


def torus_distance(p: np.ndarray, R: float = 1.0, r: float = 0.35) -> np.ndarray:
    """Signed distance to the exact torus (< 0 inside)."""
    q = np.sqrt(p[:, 0] ** 2 + p[:, 1] ** 2) - R
    return np.sqrt(q * q + p[:, 2] ** 2) - r


def torus_points(n: int, seed: int = 0, R: float = 1.0, r: float = 0.35) -> np.ndarray:
    """Random points within 2r of the torus' core circle (about a quarter of them inside)."""
    rng = np.random.default_rng(seed)
    u, v = 2 * np.pi * rng.random(n), 2 * np.pi * rng.random(n)
    rho = 2 * r * rng.random(n)
    ring = R + rho * np.cos(v)
    return np.stack([ring * np.cos(u), ring * np.sin(u), rho * np.sin(v)], axis=1).astype(np.float32)


def random_soup(n: int, seed: int = 0, size: float = 0.1):
    """``n`` random triangles in the unit cube (not closed)."""
    rng = np.random.default_rng(seed)
    centers = rng.random((n, 1, 3))
    pts = (centers + size * (rng.random((n, 3, 3)) - 0.5)).reshape(-1, 3)
    return pts.astype(np.float32), np.arange(3 * n, dtype=np.int32).reshape(-1, 3)


# -- brute-force queries -------------------------------------------------------------------
def _segment_dist2(p, a, b):
    ab = b - a
    t = np.clip(
        np.einsum("...k,...k", p - a, ab) / np.maximum(np.einsum("...k,...k", ab, ab), 1e-30), 0.0, 1.0
    )
    q = a + t[..., None] * ab
    return np.einsum("...k,...k", p - q, p - q)


def point_triangle_dist2(p: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """Squared distances, shape (P, F), from points (P,3) to triangles (F,3,3) (projection + edges)."""
    p = p[:, None, :].astype(np.float64)
    a, b, c = (tri[None, :, k, :].astype(np.float64) for k in range(3))
    n = np.cross(b - a, c - a)
    nn = np.einsum("...k,...k", n, n)
    s = np.einsum("...k,...k", p - a, n) / np.maximum(nn, 1e-30)
    proj = p - s[..., None] * n
    # inside test: barycentric signs of the projection
    inside = np.ones(s.shape, bool)
    for u, v in ((a, b), (b, c), (c, a)):
        inside &= np.einsum("...k,...k", np.cross(v - u, proj - u), n) >= 0
    plane = s * s * nn
    edges = np.minimum(np.minimum(_segment_dist2(p, a, b), _segment_dist2(p, b, c)), _segment_dist2(p, c, a))
    return np.where(inside & (nn > 0), plane, edges)


def closest_faces(
    points: np.ndarray, tris_xyz: np.ndarray, chunk: int = 256
) -> tuple[np.ndarray, np.ndarray]:
    """(face index, squared distance) of the closest triangle to each point."""
    faces, dists = [], []
    for i in range(0, len(points), chunk):
        d = point_triangle_dist2(points[i : i + chunk], tris_xyz)
        faces.append(d.argmin(axis=1))
        dists.append(d.min(axis=1))
    return np.concatenate(faces), np.concatenate(dists)


def ray_hits(
    origins: np.ndarray, dirs: np.ndarray, tris_xyz: np.ndarray, max_t: float = np.inf, chunk: int = 256
):
    """(face, t) of the first hit of each ray (face -1 for a miss), double sided; float64."""
    a, b, c = (tris_xyz[None, :, k, :].astype(np.float64) for k in range(3))
    faces, ts = [], []
    for i in range(0, len(origins), chunk):
        o = origins[i : i + chunk, None, :].astype(np.float64)
        d = dirs[i : i + chunk, None, :].astype(np.float64)
        n = np.cross(b - a, c - a)
        denom = np.einsum("...k,...k", d, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.einsum("...k,...k", a - o, n) / denom
            x = o + t[..., None] * d
            inside = np.ones(t.shape, bool)
            for u, v in ((a, b), (b, c), (c, a)):
                inside &= np.einsum("...k,...k", np.cross(v - u, x - u), n) >= 0
        ok = inside & (t >= 0) & (t <= max_t) & (denom != 0)
        tt = np.where(ok, t, np.inf)
        f = tt.argmin(axis=1)
        best = tt[np.arange(len(f)), f]
        faces.append(np.where(np.isfinite(best), f, -1))
        ts.append(best)
    return np.concatenate(faces), np.concatenate(ts)


def solid_angle_winding(points: np.ndarray, tris_xyz: np.ndarray) -> np.ndarray:
    """Exact generalized winding numbers (sum of signed solid angles / 4 pi)."""
    out = []
    for i in range(0, len(points), 256):
        p = points[i : i + 256, None, :].astype(np.float64)
        x, y, z = (tris_xyz[None, :, k, :].astype(np.float64) - p for k in range(3))
        lx, ly, lz = (np.linalg.norm(v, axis=-1) for v in (x, y, z))
        num = np.einsum("...k,...k", x, np.cross(y, z))
        den = (
            lx * ly * lz
            + np.einsum("...k,...k", x, y) * lz
            + np.einsum("...k,...k", x, z) * ly
            + np.einsum("...k,...k", y, z) * lx
        )
        out.append((2 * np.arctan2(num, den)).sum(axis=1) / (4 * np.pi))
    return np.concatenate(out)


def ray_hit_counts(
    origins: np.ndarray, dirs: np.ndarray, tris_xyz: np.ndarray, max_t: float = np.inf, chunk: int = 256
) -> tuple[np.ndarray, np.ndarray]:
    """(number of faces hit with 0 <= t <= max_t, closest distance of the ray's line to an edge of a
    face it hits or nearly hits, relative) per ray; double sided; float64. The second array flags rays
    that graze an edge, where float32 and float64 may disagree."""
    a, b, c = (tris_xyz[None, :, k, :].astype(np.float64) for k in range(3))
    n = np.cross(b - a, c - a)
    counts, margins = [], []
    for i in range(0, len(origins), chunk):
        o = origins[i : i + chunk, None, :].astype(np.float64)
        d = dirs[i : i + chunk, None, :].astype(np.float64)
        denom = np.einsum("...k,...k", d, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.einsum("...k,...k", a - o, n) / denom
            x = o + t[..., None] * d
            nn = np.einsum("...k,...k", n, n)
            # barycentric weights of the plane hit
            w = [np.einsum("...k,...k", np.cross(v - u, x - u), n) / nn for u, v in ((b, c), (c, a), (a, b))]
        inside = (w[0] >= 0) & (w[1] >= 0) & (w[2] >= 0)
        ok = inside & (t >= 0) & (t <= max_t) & (denom != 0)
        counts.append(ok.sum(axis=1))
        w = np.stack(w)
        close = (w.min(axis=0) > -1e-4) & (denom != 0) & (t > -1e-3)
        near = np.where(close, np.abs(w).min(axis=0), np.inf)
        tgap = np.where(inside & (denom != 0), np.abs(t - max_t) if np.isfinite(max_t) else np.inf, np.inf)
        margins.append(np.minimum(near.min(axis=1), tgap.min(axis=1)))
    return np.concatenate(counts), np.concatenate(margins)
