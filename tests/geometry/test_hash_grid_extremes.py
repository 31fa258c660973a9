"""wp.HashGrid with infinite, NaN and huge coordinates or radii: no crash, no missed neighbour.

The queries run in a child process (hash_grid_extremes_child.py) so that a crash fails the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import warp as wp

CHILD = Path(__file__).with_name("hash_grid_extremes_child.py")


def test_extreme_points_and_radii_match_brute_force():
    proc = subprocess.run(
        [sys.executable, str(CHILD)], capture_output=True, text=True, timeout=600, env=dict(os.environ)
    )
    assert proc.returncode == 0, f"child died with {proc.returncode}:\n{proc.stdout}\n{proc.stderr[-2000:]}"
    lines = [ln for ln in proc.stdout.splitlines() if ln.split()[1:2] in (["ok"], ["MISMATCH"])]
    assert len(lines) == 18, proc.stdout
    bad = [ln for ln in lines if "MISMATCH" in ln]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("radius", [1e-46, 1e39, float("inf"), float("nan"), 0.0, -1.0])
def test_build_radius_needs_a_finite_float32_inverse(radius):
    grid = wp.HashGrid(4, 4, 4)
    points = wp.zeros(3, dtype=wp.vec3)
    with pytest.raises(ValueError, match="radius must be a positive finite number"):
        grid.build(points, radius)
