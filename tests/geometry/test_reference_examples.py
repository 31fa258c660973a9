"""The Meshes, Volumes and Hash Grids examples of the runtime reference, run as written and
compared with brute force."""

from __future__ import annotations

import numpy as np

import warp as wp
from geomref import ray_hits, uv_sphere


# -- Meshes: ray cast, kernel copied from the reference ----------------------------------------
@wp.kernel
def raycast(
    mesh: wp.uint64,
    ray_origin: wp.array(dtype=wp.vec3),
    ray_dir: wp.array(dtype=wp.vec3),
    ray_hit: wp.array(dtype=wp.vec3),
):

    tid = wp.tid()

    t = float(0.0)  # hit distance along ray
    u = float(0.0)  # hit face barycentric u
    v = float(0.0)  # hit face barycentric v
    sign = float(0.0)  # hit face sign
    n = wp.vec3()  # hit face normal
    f = int(0)  # hit face index

    color = wp.vec3()

    # ray cast against the mesh
    if wp.mesh_query_ray(mesh, ray_origin[tid], ray_dir[tid], 1.0e6, t, u, v, sign, n, f):
        # if we got a hit then set color to the face normal
        color = n * 0.5 + wp.vec3(0.5, 0.5, 0.5)

    ray_hit[tid] = color


def test_mesh_raycast_example():
    pts, tris = uv_sphere(0.8, 14, 20, center=(0.1, -0.05, 0.0))
    points = wp.array(pts, dtype=wp.vec3)
    indices = wp.array(tris.reshape(-1), dtype=wp.int32)
    mesh = wp.Mesh(points, indices)
    # a 24x24 camera grid looking down -z
    xs = np.linspace(-1, 1, 24, dtype=np.float32)
    gx, gy = np.meshgrid(xs, xs)
    origins = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, 3.0, np.float32)], axis=1).astype(np.float32)
    dirs = np.tile(np.array([0.0, 0.0, -1.0], np.float32), (len(origins), 1))
    hit = wp.zeros(len(origins), dtype=wp.vec3)
    wp.launch(
        raycast,
        dim=len(origins),
        inputs=[mesh.id, wp.array(origins, dtype=wp.vec3), wp.array(dirs, dtype=wp.vec3), hit],
    )
    face, _ = ray_hits(origins, dirs, pts[tris])
    tri = pts[tris].astype(np.float64)
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    expected = np.where((face >= 0)[:, None], n[face] * 0.5 + 0.5, 0.0)
    np.testing.assert_allclose(hit.numpy(), expected, atol=1e-5)
    assert (face >= 0).sum() > 100 and (face < 0).sum() > 50


# -- Hash Grids: neighbour sum, kernel copied from the reference --------------------------------
@wp.kernel
def sum(grid : wp.uint64,  # noqa: A001 - the reference's name
      points: wp.array(dtype=wp.vec3),
      output: wp.array(dtype=wp.vec3),
      radius: float):

    tid = wp.tid()

    # query point
    p = points[tid]

    # create grid query around point
    query = wp.hash_grid_query(grid, p, radius)
    index = int(0)

    sum = wp.vec3()

    while(wp.hash_grid_query_next(query, index)):

        neighbor = points[index]

        # compute distance to neighbor point
        dist = wp.length(p-neighbor)
        if (dist <= radius):
            sum += neighbor

    output[tid] = sum


def test_hash_grid_sum_example():
    rng = np.random.default_rng(0)
    pts = (rng.random((2000, 3)) * 4.0).astype(np.float32)
    p = wp.array(pts, dtype=wp.vec3)
    r = 0.25
    grid = wp.HashGrid(dim_x=128, dim_y=128, dim_z=128)
    grid.build(points=p, radius=r)
    output = wp.zeros(len(pts), dtype=wp.vec3)
    wp.launch(sum, dim=len(pts), inputs=[grid.id, p, output, r])
    d = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2)
    expected = (d <= r).astype(np.float64) @ pts.astype(np.float64)
    np.testing.assert_allclose(output.numpy(), expected, rtol=1e-5, atol=1e-4)
    assert ((d <= r).sum(axis=1) > 1).sum() > 500  # most points have neighbours besides themselves


# -- Volumes: sample_grid, kernel copied from the reference -------------------------------------
@wp.kernel
def sample_grid(volume: wp.uint64,
                points: wp.array(dtype=wp.vec3),
                samples: wp.array(dtype=float)):

    tid = wp.tid()

    # load sample point in world-space
    p = points[tid]

    # transform position to the volume's local-space
    q = wp.volume_world_to_index(volume, p)

    # sample volume with trilinear interpolation
    f = wp.volume_sample_f(volume, q, wp.Volume.LINEAR)

    # write result
    samples[tid] = f


def test_volume_sample_grid_example(tmp_path):
    from scipy import ndimage

    # a small signed-distance grid written to disk as mygrid.nvdb, then opened as in the reference
    n = 24
    ijk = np.stack(np.meshgrid(*[np.arange(n)] * 3, indexing="ij"), axis=-1).astype(np.float32)
    voxel, origin = 0.1, np.array([-1.2, -1.2, -1.2], np.float32)
    sdf = (np.linalg.norm(ijk * voxel + origin, axis=-1) - 0.8).astype(np.float32)
    wp.Volume.load_from_numpy(sdf, min_world=tuple(origin), voxel_size=voxel, bg_value=1.0).save_to_nvdb(
        str(tmp_path / "mygrid.nvdb"))

    # open NanoVDB file on disk
    file = open(tmp_path / "mygrid.nvdb", "rb")

    # create Volume object
    volume = wp.Volume.load_from_nvdb(file, device="cpu")
    file.close()

    pts = (np.random.default_rng(0).random((500, 3)) * 2.0 - 1.0).astype(np.float32)
    samples = wp.zeros(500, dtype=float)
    wp.launch(sample_grid, dim=500, inputs=[volume.id, wp.array(pts, dtype=wp.vec3), samples])
    q = (pts - origin) / voxel
    expected = ndimage.map_coordinates(sdf.astype(np.float64), q.T, order=1, mode="nearest")
    np.testing.assert_allclose(samples.numpy(), expected, atol=1e-5)
    # and it is a distance field: close to |p| - 0.8 away from the grid's corners
    np.testing.assert_allclose(samples.numpy(), np.linalg.norm(pts, axis=1) - 0.8, atol=0.02)
