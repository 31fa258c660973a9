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
