"""Scalar Math builtins called from real kernels (end to end on the CPU)."""

from __future__ import annotations

import numpy as np
import scipy.special as sps
import warp as wp


@wp.kernel
def _float_kernel(x: wp.array(dtype=wp.float32), out: wp.array2d(dtype=wp.float32)):
    i = wp.tid()
    v = x[i]
    out[i, 0] = wp.sin(v) + wp.cos(v)
    out[i, 1] = wp.exp(wp.clamp(v, -10.0, 10.0)) * wp.sign(v)
    out[i, 2] = wp.log(wp.abs(v) + 1.0) + wp.atan2(v, 2.0)
    out[i, 3] = wp.pow(wp.abs(v), 0.75) + wp.erf(v)
    out[i, 4] = wp.round(v) + wp.rint(v) + wp.frac(v)
    out[i, 5] = wp.lerp(v, 2.0 * v, 0.25) + wp.smoothstep(-1.0, 1.0, v)
    out[i, 6] = wp.max(v, 0.5) - wp.min(v, -0.5) + wp.step(v) + wp.nonzero(v)


@wp.kernel
def _double_kernel(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    out[i] = wp.tanh(v) + wp.cbrt(v) + wp.erfinv(wp.float64(0.5) * wp.tanh(v))


@wp.kernel
def _int_kernel(x: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    v = x[i]
    out[i] = wp.abs(v) + wp.sign(v) + wp.clamp(v, -5, 5) + wp.bit_count(v)


def test_float32_kernel() -> None:
    x = np.random.default_rng(0).uniform(-6, 6, 1000).astype(np.float32)
    xs = np.concatenate([x, np.array([0.0, -0.0, 0.5, -0.5, 2.5], np.float32)])
    out = wp.zeros((xs.size, 7), dtype=wp.float32, device="cpu")
    wp.launch(
        _float_kernel, dim=xs.size, inputs=[wp.array(xs, dtype=wp.float32, device="cpu"), out], device="cpu"
    )
    got = out.numpy()
    d = xs.astype(np.float64)
    t = np.trunc(d)
    rounded = np.where(np.abs(d - t) >= 0.5, t + np.sign(d), t)
    s = np.clip((d + 1) / 2, 0, 1)
    expected = np.stack(
        [
            np.sin(d) + np.cos(d),
            np.exp(np.clip(d, -10, 10)) * np.where(d < 0, -1, 1),
            np.log(np.abs(d) + 1) + np.arctan2(d, 2),
            np.abs(d) ** 0.75 + sps.erf(d),
            rounded + np.rint(d) + (d - t),
            d * 0.75 + 2 * d * 0.25 + s * s * (3 - 2 * s),
            np.maximum(d, 0.5) - np.minimum(d, -0.5) + (d < 0) + (d != 0),
        ],
        axis=1,
    )
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=2e-6)


def test_float64_kernel() -> None:
    x = np.random.default_rng(1).uniform(-5, 5, 1000)
    out = wp.zeros(x.size, dtype=wp.float64, device="cpu")
    wp.launch(
        _double_kernel, dim=x.size, inputs=[wp.array(x, dtype=wp.float64, device="cpu"), out], device="cpu"
    )
    expected = np.tanh(x) + np.cbrt(x) + sps.erfinv(0.5 * np.tanh(x))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-14, atol=1e-14)


def test_int32_kernel() -> None:
    info = np.iinfo(np.int32)
    x = np.concatenate([np.random.default_rng(2).integers(-100, 100, 500), [0, 1, -1, info.min, info.max]])
    x = x.astype(np.int32)
    out = wp.zeros(x.size, dtype=wp.int32, device="cpu")
    wp.launch(_int_kernel, dim=x.size, inputs=[wp.array(x, dtype=wp.int32, device="cpu"), out], device="cpu")
    with np.errstate(over="ignore"):
        expected = (
            np.abs(x)
            + np.where(x < 0, -1, 1).astype(np.int32)
            + np.clip(x, -5, 5).astype(np.int32)
            + np.bitwise_count(x.view(np.uint32)).astype(np.int32)
        )
    np.testing.assert_array_equal(out.numpy(), expected)
