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


@wp.kernel
def _collect_capped(
    grid: wp.uint64, radius: float, queries: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)
):
    q = wp.hash_grid_query(grid, queries[0], radius)
    n = int(0)
    for index in q:
        if n < 8:
            out[n + 1] = index
        n += 1
    out[0] = n


def _single_point_candidates(point: float, query: float) -> list[int]:
    grid = wp.HashGrid(3, 5, 7)
    grid.build(wp.array([[point] * 3], dtype=wp.vec3), 1.0)
    out = wp.zeros(9, dtype=int)
    wp.launch(_collect_capped, dim=1, inputs=[grid.id, 0.0, wp.array([[query] * 3], dtype=wp.vec3), out])
    got = out.numpy()
    return list(got[1 : 1 + got[0]])


@pytest.mark.parametrize(
    ("point", "query", "expected"),
    [
        (0.0, float("nan"), [0]),  # a NaN query looks in cell 0, which holds the origin
        (float("nan"), 0.0, [0]),  # a NaN point is stored in cell 0
        (0.0, float("inf"), []),  # infinities go to the edge cells, not cell 0
        (0.0, float("-inf"), []),
    ],
)
def test_nan_coordinates_map_to_cell_zero(point, query, expected):
    assert _single_point_candidates(point, query) == expected
