"""Debug mode: a launch using the id of a freed (or wrong kind of) Mesh, HashGrid or Volume is
refused with a located ValueError; such a launch must not crash the process (child processes)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

CHILD = """
import gc
import sys
import numpy as np
import warp as wp

wp.config.quiet = True


@wp.kernel
def grid_counts(grid: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)):
    i = wp.tid()
    n = int(0)
    for j in wp.hash_grid_query(grid, pts[i], 0.1):
        n += 1
    out[i] = n


@wp.kernel
def closest(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, pts[i], 10.0)
    out[i] = q.u


@wp.kernel
def sample(volume: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.volume_sample_f(volume, pts[i], wp.Volume.LINEAR)


wp.config.mode = "debug"
case = sys.argv[1]
rng = np.random.default_rng(0)
pts = wp.array(rng.random((64, 3)).astype(np.float32), dtype=wp.vec3)
out_i, out_f = wp.zeros(64, dtype=int), wp.zeros(64, dtype=float)
if case == "hash_grid":
    obj = wp.HashGrid(4, 4, 4)
    obj.build(pts, 0.1)
    kernel, out = grid_counts, out_i
elif case == "mesh":
    obj = wp.Mesh(pts, wp.array(np.arange(63, dtype=np.int32)))
    kernel, out = closest, out_f
else:
    obj = wp.Volume.load_from_numpy(rng.random((8, 8, 8)).astype(np.float32), bg_value=0.0)
    kernel, out = sample, out_f
wp.launch(kernel, dim=64, inputs=[obj.id, pts, out])  # live: runs
print("live ran")
other = wp.HashGrid(2, 2, 2) if case != "hash_grid" else wp.Mesh(pts, wp.array(np.arange(63, dtype=np.int32)))
try:
    wp.launch(kernel, dim=64, inputs=[other.id, pts, out])
    print("wrong kind ran")
except ValueError as exc:
    print("wrong kind refused:", exc)
stale = obj.id
del obj
gc.collect()
try:
    wp.launch(kernel, dim=64, inputs=[stale, pts, out])
    print("freed ran")
except ValueError as exc:
    print("freed refused:", exc)
"""


@pytest.mark.parametrize(
    "case,cls,line",
    [
        ("hash_grid", "wp.HashGrid", "for j in wp.hash_grid_query(grid, pts[i], 0.1):"),
        ("mesh", "wp.Mesh", "q = wp.mesh_query_point_no_sign(mesh, pts[i], 10.0)"),
        ("volume", "wp.Volume", "out[i] = wp.volume_sample_f(volume, pts[i], wp.Volume.LINEAR)"),
    ],
)
def test_freed_or_wrong_ids_are_refused_in_debug_mode(tmp_path, case, cls, line):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(CHILD))
    env = dict(os.environ, WARP_CACHE_PATH=str(tmp_path / "cache"))
    proc = subprocess.run(
        [sys.executable, str(script), case], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "live ran" in proc.stdout
    for what in ("wrong kind", "freed"):
        assert f"{what} refused: kernel" in proc.stdout, proc.stdout
    assert f"is not the id of a live {cls}" in proc.stdout
    assert "child.py:" in proc.stdout and line in proc.stdout


CHILD_INDIRECT = """
import gc
import numpy as np
import warp as wp

wp.config.quiet = True


@wp.struct
class Scene:
    mesh: wp.uint64
    scale: float


@wp.func
def face_count(mesh: wp.uint64) -> int:
    return wp.mesh_get(mesh).indices.shape[0] // 3


@wp.kernel
def from_array(meshes: wp.array(dtype=wp.uint64), out: wp.array(dtype=int)):
    i = wp.tid()
    if meshes[i] != wp.uint64(0):
        out[i] = face_count(meshes[i])


@wp.kernel
def from_struct(scene: Scene, out: wp.array(dtype=int)):
    out[wp.tid()] = face_count(scene.mesh)


wp.config.mode = "debug"
pts = wp.array(np.random.default_rng(0).random((9, 3)).astype(np.float32), dtype=wp.vec3)
keep = wp.Mesh(pts, wp.array(np.arange(9, dtype=np.int32)))
gone = wp.Mesh(pts, wp.array(np.arange(6, dtype=np.int32)))
stale = gone.id
out = wp.zeros(3, dtype=int)
ids = wp.array(np.array([keep.id, 0, keep.id], dtype=np.uint64), dtype=wp.uint64)
wp.launch(from_array, dim=3, inputs=[ids, out])
print("array ran", out.numpy().tolist())
scene = Scene()
scene.mesh = wp.uint64(keep.id)
wp.launch(from_struct, dim=3, inputs=[scene, out])
print("struct ran", out.numpy().tolist())
del gone
gc.collect()
ids = wp.array(np.array([keep.id, 0, stale], dtype=np.uint64), dtype=wp.uint64)
try:
    wp.launch(from_array, dim=3, inputs=[ids, out])
    print("array freed ran")
except ValueError as exc:
    print("array freed refused:", exc)
scene.mesh = wp.uint64(stale)
try:
    wp.launch(from_struct, dim=3, inputs=[scene, out])
    print("struct freed ran")
except ValueError as exc:
    print("struct freed refused:", exc)
"""


def test_ids_read_from_arrays_and_struct_fields_are_checked_in_debug_mode(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(CHILD_INDIRECT))
    env = dict(os.environ, WARP_CACHE_PATH=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "array ran [3, 0, 3]" in proc.stdout  # live ids (and 0, "none") pass
    assert "struct ran [3, 3, 3]" in proc.stdout
    assert "array freed refused: kernel 'from_array', argument 'meshes[2]' = " in proc.stdout
    assert "struct freed refused: kernel 'from_struct', argument 'scene.mesh' = " in proc.stdout
    assert proc.stdout.count("is not the id of a live wp.Mesh") == 2
    assert "return wp.mesh_get(mesh).indices.shape[0] // 3" not in proc.stdout  # located at the kernel's call
    assert "out[i] = face_count(meshes[i])" in proc.stdout
