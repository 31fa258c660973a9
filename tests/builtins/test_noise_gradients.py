"""Adjoints of wp.noise, wp.pnoise and wp.curlnoise with respect to the position, against
central differences of the forward values (Richardson-extrapolated for curl noise, whose
higher derivatives make a plain float32 difference too coarse to check against)."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

pytestmark = pytest.mark.needs_plugin("autodiff")

VEC = {1: float, 2: wp.vec2, 3: wp.vec3, 4: wp.vec4}


def _kernels(n: int):
    """Kernels writing, per point, noise, pnoise (periods 3) and w . curlnoise (curl: n >= 2)."""
    t = VEC[n]

    @wp.kernel(module="unique")
    def noise_k(seed: int, xs: wp.array(dtype=t), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = wp.noise(wp.rand_init(seed), xs[i])

    if n == 1:

        @wp.kernel(module="unique")
        def pnoise_k(seed: int, xs: wp.array(dtype=t), out: wp.array(dtype=float)):
            i = wp.tid()
            out[i] = wp.pnoise(wp.rand_init(seed), xs[i], 3)

        return noise_k, pnoise_k, None
    if n == 2:

        @wp.kernel(module="unique")
        def pnoise_k(seed: int, xs: wp.array(dtype=t), out: wp.array(dtype=float)):
            i = wp.tid()
            out[i] = wp.pnoise(wp.rand_init(seed), xs[i], 3, 3)

        @wp.kernel(module="unique")
        def curl_k(seed: int, xs: wp.array(dtype=t), out: wp.array(dtype=float)):
            i = wp.tid()
            v = wp.curlnoise(wp.rand_init(seed), xs[i], wp.uint32(3), 2.0, 0.5)
            out[i] = v[0] - 0.5 * v[1]

        return noise_k, pnoise_k, curl_k

    if n == 3:

        @wp.kernel(module="unique")
        def pnoise_k(seed: int, xs: wp.array(dtype=t), out: wp.array(dtype=float)):
            i = wp.tid()
            out[i] = wp.pnoise(wp.rand_init(seed), xs[i], 3, 3, 3)

    else:

        @wp.kernel(module="unique")
        def pnoise_k(seed: int, xs: wp.array(dtype=t), out: wp.array(dtype=float)):
            i = wp.tid()
            out[i] = wp.pnoise(wp.rand_init(seed), xs[i], 3, 3, 3, 3)

    @wp.kernel(module="unique")
    def curl_k(seed: int, xs: wp.array(dtype=t), out: wp.array(dtype=float)):
        i = wp.tid()
        v = wp.curlnoise(wp.rand_init(seed), xs[i])
        out[i] = v[0] - 0.5 * v[1] + 0.7 * v[2]

    return noise_k, pnoise_k, curl_k


def _points(pts: np.ndarray, dtype, requires_grad: bool = False) -> wp.array:
    data = pts[:, 0] if dtype is float else pts  # 1-d noise takes float positions
    return wp.array(data.astype(np.float32), dtype=dtype, requires_grad=requires_grad)


def _values(kernel, pts: np.ndarray, dtype) -> np.ndarray:
    out = wp.zeros(len(pts), dtype=float)
    wp.launch(kernel, len(pts), inputs=[42, _points(pts, dtype), out])
    return out.numpy().astype(np.float64)


def _central(kernel, pts: np.ndarray, dtype, h: float) -> np.ndarray:
    grad = np.zeros(pts.shape, dtype=np.float64)
    for j in range(pts.shape[1]):
        step = np.zeros(pts.shape[1])
        step[j] = h
        up, down = _values(kernel, pts + step, dtype), _values(kernel, pts - step, dtype)
        grad[:, j] = (up - down) / (2.0 * h)
    return grad


def _tape_gradient(kernel, pts: np.ndarray, dtype) -> np.ndarray:
    xs = _points(pts, dtype, requires_grad=True)
    out = wp.zeros(len(pts), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, len(pts), inputs=[42, xs, out])
    tape.backward(grads={out: wp.ones(len(pts), dtype=float)})
    return xs.grad.numpy().reshape(pts.shape)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_noise_and_pnoise_gradients_match_central_differences(n):
    rng = np.random.default_rng(n)
    # off the lattice (and its periodic images) so that no difference straddles a cell face
    pts = (rng.integers(-3, 3, size=(5, n)) + rng.uniform(0.1, 0.9, size=(5, n)))
    noise_k, pnoise_k, _ = _kernels(n)
    for kernel in (noise_k, pnoise_k):
        analytic = _tape_gradient(kernel, pts, VEC[n])
        assert np.abs(analytic).max() > 1e-2
        np.testing.assert_allclose(analytic, _central(kernel, pts, VEC[n], 1e-3), atol=2e-3)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_curlnoise_gradient_matches_extrapolated_differences(n):
    rng = np.random.default_rng(10 + n)
    pts = rng.uniform(0.05, 0.2, size=(4, n)) + rng.integers(-2, 2, size=(4, n))
    *_, curl_k = _kernels(n)
    analytic = _tape_gradient(curl_k, pts, VEC[n])
    # Richardson extrapolation of central differences at h and h/2 (truncation error O(h^4))
    h = 1.0 / 128.0
    reference = (4.0 * _central(curl_k, pts, VEC[n], h / 2) - _central(curl_k, pts, VEC[n], h)) / 3.0
    assert np.abs(analytic).max() > 0.5
    np.testing.assert_allclose(analytic, reference, rtol=2e-3, atol=5e-3)
