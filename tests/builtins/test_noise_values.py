"""wp.noise, wp.pnoise and 2-D wp.curlnoise give the values of NVIDIA Warp's lattice construction
(noise_reference.py, NumPy), on every device: a seeded program reproduces Warp's numbers."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from noise_reference import noise as reference_noise


@wp.kernel
def noise_1_to_4(
    seed: int,
    x: wp.array(dtype=wp.vec4),
    out: wp.array2d(dtype=float),
):
    i = wp.tid()
    state = wp.rand_init(seed)
    p = x[i]
    out[i, 0] = wp.noise(state, p[0])
    out[i, 1] = wp.noise(state, wp.vec2(p[0], p[1]))
    out[i, 2] = wp.noise(state, wp.vec3(p[0], p[1], p[2]))
    out[i, 3] = wp.noise(state, p)
    out[i, 4] = wp.pnoise(state, p[0], 5)
    out[i, 5] = wp.pnoise(state, wp.vec2(p[0], p[1]), 16, 3)
    out[i, 6] = wp.pnoise(state, wp.vec3(p[0], p[1], p[2]), 4, 7, 2)
    out[i, 7] = wp.pnoise(state, p, 3, 5, 2, 4)


@wp.kernel
def curl_2d(seed: int, x: wp.array(dtype=wp.vec2), octaves: int, out: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    state = wp.rand_init(seed)
    out[i] = wp.curlnoise(state, x[i], wp.uint32(octaves), 2.0, 0.5)


def _state(seed: int) -> int:
    """``wp.rand_init(seed)``, read back from a kernel."""
    out = wp.zeros(1, dtype=wp.uint32, device="cpu")
    wp.launch(_rand_init, dim=1, inputs=[seed, out], device="cpu")
    return int(out.numpy()[0])


@wp.kernel
def _rand_init(seed: int, out: wp.array(dtype=wp.uint32)):
    out[0] = wp.rand_init(seed)


def test_noise_and_pnoise_match_the_lattice_construction(device):
    x = np.random.default_rng(3).uniform(-40, 40, size=(3000, 4)).astype(np.float32)
    out = wp.zeros((len(x), 8), dtype=float, device=device)
    wp.launch(
        noise_1_to_4, dim=len(x), inputs=[42, wp.array(x, dtype=wp.vec4, device=device), out], device=device
    )
    got = out.numpy()
    state = _state(42)
    periods = [(5,), (16, 3), (4, 7, 2), (3, 5, 2, 4)]
    for n in range(1, 5):
        pts = x[:, :n].astype(np.float64)
        np.testing.assert_allclose(
            got[:, n - 1], reference_noise(state, pts), atol=3e-6, err_msg=f"noise {n}-d"
        )
        np.testing.assert_allclose(
            got[:, 3 + n], reference_noise(state, pts, periods[n - 1]), atol=3e-6, err_msg=f"pnoise {n}-d"
        )


@pytest.mark.parametrize("octaves", [1, 3])
def test_curlnoise_2d_is_warps_rotated_gradient(device, octaves):
    """Warp's 2-d curl noise: sum over octaves of gain^o * (-dN/dy, dN/dx) at lacunarity^o * x, every
    octave with the same noise; checked against central differences of the reference noise."""
    x = np.random.default_rng(4).uniform(-6, 6, size=(400, 2)).astype(np.float32)
    out = wp.zeros(len(x), dtype=wp.vec2, device=device)
    wp.launch(
        curl_2d,
        dim=len(x),
        inputs=[7, wp.array(x, dtype=wp.vec2, device=device), octaves, out],
        device=device,
    )
    state = _state(7)
    h = 1e-4
    expected = np.zeros((len(x), 2))
    amp, freq = 1.0, 1.0
    for _ in range(octaves):
        p = x.astype(np.float64) * freq
        dx = (reference_noise(state, p + [h, 0]) - reference_noise(state, p - [h, 0])) / (2 * h)
        dy = (reference_noise(state, p + [0, h]) - reference_noise(state, p - [0, h])) / (2 * h)
        expected += amp * np.stack([-dy, dx], axis=1)
        amp, freq = amp * 0.5, freq * 2.0
    np.testing.assert_allclose(out.numpy(), expected, atol=2e-4)
