"""examples/torch_interop.py: warp fills the torch tensor's gradient (checked against finite
differences of a NumPy energy), Adam spreads the points, and the example writes its picture."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import numpy as np
import pytest

import warp as wp

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.needs_plugin("interop", "autodiff")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _numpy_energy(p: np.ndarray, strength: float) -> float:
    d = p[:, None, :] - p[None, :, :]
    r2 = (d**2).sum(-1) + 1.0e-3
    np.fill_diagonal(r2, np.inf)
    outside = np.maximum(np.linalg.norm(p, axis=1) - 1.0, 0.0)
    return float((strength / r2).sum() + 1.0e3 * (outside**2).sum())


def test_warp_writes_the_energy_gradient_into_the_tensor_grad():
    example = _load("torch_interop")
    rng = np.random.default_rng(3)
    start = rng.normal(size=(12, 2)) * 0.7  # some points outside the disc: the wall term counts
    points = torch.tensor(start, dtype=torch.float32, requires_grad=True)
    p = wp.from_torch(points, dtype=wp.vec2)
    total = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(example.energy, dim=12, inputs=[p, 0.01], outputs=[total])
    tape.backward(loss=total)
    assert total.numpy()[0] == pytest.approx(_numpy_energy(start, 0.01), rel=1e-4)
    eps = 1e-6
    fd = np.zeros_like(start)
    for idx in np.ndindex(*start.shape):
        e = np.zeros_like(start)
        e[idx] = eps
        fd[idx] = (_numpy_energy(start + e, 0.01) - _numpy_energy(start - e, 0.01)) / (2 * eps)
    np.testing.assert_allclose(points.grad.numpy(), fd, rtol=2e-3, atol=1e-3)


def test_adam_spreads_the_points_and_the_picture_is_written(tmp_path):
    example = _load("torch_interop")
    start, end, energies = example.spread(40, 40)
    assert energies[-1] < 0.5 * energies[0]
    assert np.linalg.norm(end, axis=1).max() < 1.05  # kept in the disc
    assert np.std(end) > 2 * np.std(start)  # spread out
    out = tmp_path / "torch.png"
    args = ["--points", "20", "--iterations", "2", "--size", "64", "--out", str(out)]
    assert example.main(args) == str(out)
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (64, 64)
