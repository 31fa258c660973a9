"""warp.geometry.swept_volume_mesh / swept_volume_field / swept_volume_bounds (warp-geometry): a sphere
swept along a segment is a capsule, checked against the analytic capsule distance, in every sign mode."""

import numpy as np
import pytest

import warp as wp
import warp.geometry as geo

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

RADIUS = 0.5
VOXEL = 0.08


def sphere_mesh(radius=RADIUS, center=(0.0, 0.0, 0.0), winding=True):
    """A closed, outward-oriented triangulated sphere (dense marching cubes of its distance)."""
    n = 25
    axis = np.linspace(-1.2 * radius, 1.2 * radius, n)
    g = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), -1)
    field = wp.array((np.linalg.norm(g, axis=-1) - radius).astype(np.float32), dtype=float)
    lo, hi = (-1.2 * radius,) * 3, (1.2 * radius,) * 3
    verts, indices = geo.IsoSurfaceMarchingCubes.extract(field, 0.0, lower=lo, upper=hi)
    points = verts.numpy() + np.array(center, dtype=np.float32)
    return wp.Mesh(wp.array(points, dtype=wp.vec3), indices, support_winding_number=winding)


def translations(offsets):
    offsets = np.asarray(offsets, dtype=np.float32)
    poses = np.zeros((*offsets.shape[:-1], 7), dtype=np.float32)
    poses[..., :3] = offsets
    poses[..., 6] = 1.0
    return poses


SEGMENT = [[[x, 0.0, 0.0] for x in np.linspace(-1.0, 1.0, 21)]]


def segment_distance(p, a=(-1.0, 0.0, 0.0), b=(1.0, 0.0, 0.0)):
    a, b = np.asarray(a), np.asarray(b)
    h = np.clip((p - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
    return np.linalg.norm(p - a - h[:, None] * (b - a), axis=1)


@pytest.mark.parametrize(
    "mode",
    [geo.SweptVolumeSignMode.WINDING_NUMBER, geo.SweptVolumeSignMode.NORMAL, geo.SweptVolumeSignMode.PARITY],
)
def test_swept_sphere_is_a_capsule(mode):
    mesh = sphere_mesh(winding=mode == geo.SweptVolumeSignMode.WINDING_NUMBER)
    verts, indices = geo.swept_volume_mesh([mesh], translations(SEGMENT), voxel_size=VOXEL, sign_mode=mode)
    v = verts.numpy()
    assert len(v) > 100 and len(indices.numpy()) % 3 == 0
    # every vertex lies on the capsule: at distance RADIUS from the segment (the polygonal sphere
    # and the grid each add up to about one voxel)
    assert np.abs(segment_distance(v) - RADIUS).max() < VOXEL
    np.testing.assert_allclose(v.min(axis=0), [-1.0 - RADIUS, -RADIUS, -RADIUS], atol=VOXEL)
    np.testing.assert_allclose(v.max(axis=0), [1.0 + RADIUS, RADIUS, RADIUS], atol=VOXEL)
    # closed: every edge is shared by exactly two triangles
    f = indices.numpy().reshape(-1, 3)
    edges = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
    _, counts = np.unique(edges, axis=0, return_counts=True)
    assert np.all(counts == 2)


def test_field_is_the_capsule_distance_near_the_surface():
    field, lower, upper = geo.swept_volume_field([sphere_mesh()], translations(SEGMENT), voxel_size=VOXEL)
    f = field.numpy()
    lower, upper = np.array(lower), np.array(upper)
    spacing = (upper - lower) / (np.array(f.shape) - 1)
    np.testing.assert_allclose(spacing, VOXEL, rtol=1e-5)
    idx = np.stack(np.meshgrid(*[np.arange(n) for n in f.shape], indexing="ij"), -1).reshape(-1, 3)
    reference = segment_distance(lower + idx * spacing) - RADIUS
    near = np.abs(reference) < 0.3
    np.testing.assert_allclose(f.reshape(-1)[near], reference[near], atol=0.02)
    # the grid holds the capsule with room to spare
    assert np.all(lower < [-1.5, -0.5, -0.5]) and np.all(upper > [1.5, 0.5, 0.5])


def test_unsigned_field_and_offset_shells():
    mesh = sphere_mesh(winding=False)
    mode = geo.SweptVolumeSignMode.NO_SIGN
    origin = translations([[[0.0, 0.0, 0.0]]])
    field, _, _ = geo.swept_volume_field([mesh], origin, voxel_size=VOXEL, sign_mode=mode)
    assert float(field.numpy().min()) >= 0.0
    verts, _ = geo.swept_volume_mesh(
        [mesh], translations([[[0.0, 0.0, 0.0]]]), voxel_size=VOXEL, threshold=0.15, sign_mode=mode
    )
    r = np.linalg.norm(verts.numpy(), axis=1)
    outer, inner = np.abs(r - (RADIUS + 0.15)) < VOXEL, np.abs(r - (RADIUS - 0.15)) < VOXEL
    assert outer.any() and inner.any() and np.all(outer | inner)


def test_rotated_poses_and_two_meshes():
    # a sphere centred at +x rotated a quarter turn about z sweeps an arc to +y; a second, static
    # sphere at (-2, 0, 0) adds its own component
    arc = np.zeros((1, 7, 7), dtype=np.float32)
    for s, angle in enumerate(np.linspace(0.0, np.pi / 2, 7)):
        arc[0, s, 5], arc[0, s, 6] = np.sin(angle / 2), np.cos(angle / 2)
    static = translations([[[-2.0, 0.0, 0.0]] * 7])
    moving = sphere_mesh(radius=0.3, center=(1.0, 0.0, 0.0))
    fixed = sphere_mesh(radius=0.3)
    verts, _ = geo.swept_volume_mesh([moving, fixed], np.concatenate([arc, static]), voxel_size=0.05)
    v = verts.numpy()
    # brute force: distance to the nearest stamped sphere centre is 0.3 for every vertex
    angles = np.linspace(0.0, np.pi / 2, 7)
    centres = np.concatenate([np.stack([np.cos(angles), np.sin(angles), 0 * angles], 1), [[-2.0, 0.0, 0.0]]])
    nearest = np.linalg.norm(v[:, None, :] - centres[None], axis=2).min(axis=1)
    assert np.abs(nearest - 0.3).max() < 0.06
    lower, upper = geo.swept_volume_bounds([moving, fixed], np.concatenate([arc, static]), padding=0.1)
    np.testing.assert_allclose(np.array(lower), [-2.4, -0.4, -0.4], atol=0.02)
    np.testing.assert_allclose(np.array(upper), [1.4, 1.4, 0.4], atol=0.02)


def test_explicit_domain_and_resolution():
    mesh = sphere_mesh()
    field, lower, upper = geo.swept_volume_field(
        [mesh], translations([[[0.0, 0.0, 0.0]]]), resolution=(9, 10, 11), lower=(-1.0,) * 3, upper=(1.0,) * 3
    )
    assert field.shape == (9, 10, 11)
    assert tuple(lower) == (-1.0, -1.0, -1.0) and tuple(upper) == (1.0, 1.0, 1.0)
    assert field.numpy()[4, 0, 5] == pytest.approx(1.0 - RADIUS, abs=0.02)  # the node (0, -1, 0)


def test_argument_errors():
    mesh = sphere_mesh()
    one = translations([[[0.0, 0.0, 0.0]]])
    with pytest.raises(ValueError, match="needs at least one mesh"):
        geo.swept_volume_field([], one, voxel_size=0.1)
    with pytest.raises(TypeError, match=r"meshes\[0\] is a str, not a wp.Mesh"):
        geo.swept_volume_mesh(["mesh"], one, voxel_size=0.1)
    with pytest.raises(ValueError, match="transforms hold poses of 2 meshes, 1 meshes were given"):
        geo.swept_volume_mesh([mesh], np.concatenate([one, one]), voxel_size=0.1)
    with pytest.raises(ValueError, match=r"must have shape \(num_meshes, num_samples, 7\)"):
        geo.swept_volume_bounds([mesh], np.zeros((1, 2, 6)))
    with pytest.raises(ValueError, match="transforms hold no pose samples"):
        geo.swept_volume_field([mesh], np.zeros((1, 0, 7), np.float32), voxel_size=0.1)
    with pytest.raises(ValueError, match="give voxel_size or resolution"):
        geo.swept_volume_field([mesh], one)
    with pytest.raises(ValueError, match="give exactly one of voxel_size and resolution"):
        geo.swept_volume_field([mesh], one, voxel_size=0.1, resolution=(8, 8, 8))
    with pytest.raises(ValueError, match="voxel_size must be positive"):
        geo.swept_volume_field([mesh], one, voxel_size=-0.1)
    with pytest.raises(ValueError, match="cannot be snapped to whole cells"):
        geo.swept_volume_field([mesh], one, voxel_size=0.1, lower=(-1, -1, -1), upper=(1, 1, 1))
    with pytest.raises(ValueError, match="give both lower and upper"):
        geo.swept_volume_field([mesh], one, resolution=(8, 8, 8), lower=(-1, -1, -1))
    with pytest.raises(ValueError, match="resolution must be 3 node counts of at least 2"):
        geo.swept_volume_field([mesh], one, resolution=(8, 1, 8))
    with pytest.raises(ValueError, match=r"support_winding_number=True \(meshes\[0\] is not\)"):
        geo.swept_volume_field([sphere_mesh(winding=False)], one, voxel_size=0.1)
    with pytest.raises(ValueError, match="NO_SIGN gives an unsigned field with no zero level"):
        geo.swept_volume_mesh([mesh], one, voxel_size=0.1, sign_mode=geo.SweptVolumeSignMode.NO_SIGN)


def test_meshes_must_be_on_the_requested_device(device):
    if device.is_cpu:
        pytest.skip("needs a second device (a CUDA device or the stand-in)")
    with wp.ScopedDevice("cpu"):
        mesh = sphere_mesh()
    with pytest.raises(ValueError, match=f"the meshes are on cpu, not on the requested device {device}"):
        geo.swept_volume_mesh([mesh], translations([[[0.0, 0.0, 0.0]]]), voxel_size=0.1, device=device)
