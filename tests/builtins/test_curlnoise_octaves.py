"""wp.curlnoise's octaves: octave o of the field has amplitude gain^o (lacunarity sets only its
frequency), measured as RMS ratios over many points."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.kernel
def _curl(xs: wp.array(dtype=wp.vec3), octaves: int, lac: float, gain: float, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = wp.curlnoise(wp.rand_init(7), xs[i], wp.uint32(octaves), lac, gain)


def _field(xs, octaves, lac, gain):
    out = wp.zeros(len(xs), dtype=wp.vec3)
    wp.launch(_curl, len(xs), inputs=[xs, octaves, lac, gain, out])
    return out.numpy().astype(np.float64)


@pytest.mark.parametrize("lac, gain", [(2.0, 0.5), (3.0, 0.5), (2.0, 0.25)])
def test_second_octave_amplitude_is_gain(lac, gain):
    pts = np.random.default_rng(3).uniform(-20.0, 20.0, size=(4000, 3)).astype(np.float32)
    xs = wp.array(pts, dtype=wp.vec3)
    first = _field(xs, 1, lac, gain)
    second = _field(xs, 2, lac, gain) - first
    ratio = np.sqrt((second**2).mean() / (first**2).mean())
    assert ratio == pytest.approx(gain, rel=0.15)
