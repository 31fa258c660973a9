"""The geometry examples run and write their pictures (small sizes)."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("name,args,size", [
    ("mesh_raycast", ["--width", "64", "--height", "48"], (64, 48)),
    ("volume_slice", ["--size", "90"], (90, 70)),
    ("sph_neighbours", ["--particles", "3000", "--size", "64"], (64, 64)),
])
def test_example_writes_its_picture(tmp_path, name, args, size):
    out = tmp_path / f"{name}.png"
    path = _load(name).main([*args, "--out", str(out)])
    assert Path(path) == out and _png_size(out) == size


def _edge_uses(tris):
    import numpy as np

    edges = np.sort(np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]]), axis=1)
    _, counts = np.unique(edges, axis=0, return_counts=True)
    return counts


def test_mesh_raycast_scene_is_a_closed_knot_around_a_sphere():
    import numpy as np

    example = _load("mesh_raycast")
    knot_pts, knot_tris = example.knot_tube_mesh()
    ball_pts, ball_tris = example.sphere_mesh(radius=0.55)
    # both surfaces are closed: every edge belongs to exactly two triangles
    assert set(_edge_uses(knot_tris)) == {2} and set(_edge_uses(ball_tris)) == {2}
    # the knot winds around the sphere without touching it, and encloses it: the sphere's centre is
    # inside the knot's bounding box on every axis
    assert np.linalg.norm(knot_pts, axis=1).min() > 0.55
    assert (knot_pts.min(0) < 0).all() and (knot_pts.max(0) > 0).all()
    # a trefoil: the knot's curve winds twice around the z axis (p = 2)
    angle = np.unwrap(np.arctan2(knot_pts[::24, 1], knot_pts[::24, 0]))
    assert round((angle[-1] - angle[0]) / (2 * np.pi)) == 2
    pts, tris, knot_faces = example.scene_mesh()
    assert knot_faces == len(knot_tris) and len(tris) == len(knot_tris) + len(ball_tris)
