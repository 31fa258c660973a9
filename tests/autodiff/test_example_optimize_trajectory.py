"""examples/optimize_trajectory.py: its gradient matches finite differences of a NumPy
simulation, the descent hits the target, and it writes its picture."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import numpy as np
import pytest

import warp as wp

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

pytestmark = pytest.mark.needs_plugin("autodiff")


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _numpy_loss(example, v0: np.ndarray, drag: float) -> float:
    """The example's simulation and loss in float64 NumPy (an independent reference)."""
    pos, vel = np.zeros(2), np.array(v0, dtype=np.float64)
    g = np.array([0.0, -9.81])
    for _ in range(example.STEPS):
        accel = g - drag * np.linalg.norm(vel) * vel
        pos, vel = pos + vel * example.DT, vel + accel * example.DT
    d = pos - np.array(example.TARGET)
    return float(d @ d)


def test_trajectory_gradient_matches_finite_differences():
    example = _load("optimize_trajectory")
    v = np.array([4.0, 4.0])
    v0 = wp.array([wp.vec2(*v)], dtype=wp.vec2, requires_grad=True)
    tape = wp.Tape()
    _, loss = example.simulate(v0, 0.05, tape)
    tape.backward(loss=loss)
    assert loss.numpy()[0] == pytest.approx(_numpy_loss(example, v, 0.05), rel=1e-4)
    eps = 1e-4
    fd = [
        (_numpy_loss(example, v + eps * e, 0.05) - _numpy_loss(example, v - eps * e, 0.05)) / (2 * eps)
        for e in np.eye(2)
    ]
    np.testing.assert_allclose(v0.grad.numpy()[0], fd, rtol=2e-3)


def test_descent_hits_the_target_and_writes_the_picture(tmp_path):
    example = _load("optimize_trajectory")
    trajectories, losses = example.optimize(30)
    assert losses[0] > 100.0 and losses[-1] < 1e-4
    np.testing.assert_allclose(trajectories[-1][-1], example.TARGET, atol=1e-2)
    out = tmp_path / "traj.png"
    assert example.main(["--iterations", "3", "--size", "64", "--out", str(out)]) == str(out)
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (64, 64)
