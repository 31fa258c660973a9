"""Scalar Math builtins on wp.bfloat16: computed in float32 and rounded once, as NVIDIA Warp does.

Each bfloat16 result must equal the float32 builtin's result on the same (bfloat16-valued)
inputs rounded to the nearest bfloat16 -- checked bit for bit with a rounding reference written
from the bit layout -- and be within one bfloat16 spacing of NumPy's float64 value.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps
import warp as wp
from warp.types.bfloat16_bits import bits_of

wp.config.quiet = True

UNARY = [
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "exp",
    "log",
    "log2",
    "log10",
    "sqrt",
    "cbrt",
    "erf",
    "erfc",
    "floor",
    "ceil",
    "trunc",
    "round",
    "rint",
    "abs",
    "frac",
    "degrees",
    "radians",
    "sign",
    "step",
    "nonzero",
]
BINARY = ["atan2", "pow", "copysign", "min", "max"]

NUMPY = {
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "exp": np.exp,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "sqrt": np.sqrt,
    "cbrt": np.cbrt,
    "erf": sps.erf,
    "erfc": sps.erfc,
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "rint": np.rint,
    "abs": np.abs,
    "round": lambda d: np.where(np.abs(d - np.trunc(d)) >= 0.5, np.trunc(d) + np.sign(d), np.trunc(d)),
    "frac": lambda d: d - np.trunc(d),
    "degrees": np.degrees,
    "radians": np.radians,
    "sign": lambda d: np.where(d < 0, -1.0, 1.0),
    "step": lambda d: np.where(d < 0, 1.0, 0.0),
    "nonzero": lambda d: np.where(d == 0, 0.0, 1.0),
    "atan2": np.arctan2,
    "pow": np.power,
    "copysign": np.copysign,
    "min": np.minimum,
    "max": np.maximum,
}


def round_bits(x: np.ndarray) -> np.ndarray:
    """bfloat16 patterns nearest to float32 values (discarded half above 0x8000, or a tie with an
    odd kept half, rounds up; NaN stays NaN)."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    upper, lower = bits >> 16, bits & 0xFFFF
    out = upper + ((lower > 0x8000) | ((lower == 0x8000) & (upper % 2 == 1))).astype(np.uint64)
    out = np.where((bits & 0x7FFFFFFF) > 0x7F800000, upper | 0x40, out)
    return out.astype(np.uint16)


def widen(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def _unary_kernel(name: str, dtype):
    fn = getattr(wp, name)

    def body(x: wp.array(dtype=dtype), out: wp.array(dtype=dtype)):
        i = wp.tid()
        out[i] = fn(x[i])

    return wp.kernel(body, module=f"bf16_math_{name}_{dtype.__name__}")


def _binary_kernel(name: str, dtype):
    fn = getattr(wp, name)

    def body(x: wp.array(dtype=dtype), y: wp.array(dtype=dtype), out: wp.array(dtype=dtype)):
        i = wp.tid()
        out[i] = fn(x[i], y[i])

    return wp.kernel(body, module=f"bf16_math_{name}_{dtype.__name__}")


def _inputs(seed: int, n: int = 600) -> np.ndarray:
    rng = np.random.default_rng(seed)
    raw = np.concatenate(
        [rng.uniform(-4, 4, n), rng.uniform(-1, 1, n // 2), [0.0, -0.0, 0.5, -0.5, 2.5, 1.0]]
    )
    return widen(round_bits(raw.astype(np.float32)))  # bfloat16-representable float32 values


def _check(name: str, got_bits: np.ndarray, f32_result: np.ndarray, reference: np.ndarray) -> None:
    assert np.array_equal(got_bits, round_bits(f32_result)), f"{name}: not float32-then-rounded"
    got = widen(got_bits).astype(np.float64)
    ok = np.isfinite(reference)
    spacing = np.maximum(np.abs(reference[ok]), 2.0**-126) * 2.0**-7  # one bfloat16 spacing or less
    assert np.all(np.abs(got[ok] - reference[ok]) <= spacing + 1e-6), f"{name}: far from float64"
    assert np.array_equal(np.isnan(got), np.isnan(reference) & ~np.isinf(reference)), f"{name}: NaNs differ"


@pytest.mark.parametrize("name", UNARY)
def test_unary_builtin(name: str) -> None:
    x = _inputs(UNARY.index(name))
    if name in ("log", "log2", "log10", "sqrt"):
        x = np.abs(x)
    n = x.size
    out_b = wp.zeros(n, dtype=wp.bfloat16)
    out_f = wp.zeros(n, dtype=wp.float32)
    wp.launch(_unary_kernel(name, wp.bfloat16), dim=n, inputs=[wp.array(x, dtype=wp.bfloat16), out_b])
    wp.launch(_unary_kernel(name, wp.float32), dim=n, inputs=[wp.array(x, dtype=wp.float32), out_f])
    with np.errstate(all="ignore"):
        reference = NUMPY[name](x.astype(np.float64))
    _check(name, bits_of(out_b.numpy()), out_f.numpy(), reference)
    # Python scope: same value as the kernel
    for k in (0, 7, n - 1):
        py = getattr(wp, name)(wp.bfloat16(float(x[k])))
        kernel_bits = bits_of(out_b.numpy())[k : k + 1]
        assert np.float32(float(py)).view(np.uint32) == widen(kernel_bits).view(np.uint32)[0]


@pytest.mark.parametrize("name", BINARY)
def test_binary_builtin(name: str) -> None:
    x = _inputs(1)
    y = _inputs(2)[: x.size]
    if name == "pow":
        x = np.abs(x)
    n = x.size
    out_b = wp.zeros(n, dtype=wp.bfloat16)
    out_f = wp.zeros(n, dtype=wp.float32)
    wp.launch(
        _binary_kernel(name, wp.bfloat16),
        dim=n,
        inputs=[wp.array(x, dtype=wp.bfloat16), wp.array(y, dtype=wp.bfloat16), out_b],
    )
    wp.launch(
        _binary_kernel(name, wp.float32),
        dim=n,
        inputs=[wp.array(x, dtype=wp.float32), wp.array(y, dtype=wp.float32), out_f],
    )
    with np.errstate(all="ignore"):
        reference = NUMPY[name](x.astype(np.float64), y.astype(np.float64))
    _check(name, bits_of(out_b.numpy()), out_f.numpy(), reference)


@wp.kernel
def classify(x: wp.array(dtype=wp.bfloat16), out: wp.array2d(dtype=wp.int32), c: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    out[i, 0] = wp.where(wp.isnan(x[i]), 1, 0)
    out[i, 1] = wp.where(wp.isinf(x[i]), 1, 0)
    out[i, 2] = wp.where(wp.isfinite(x[i]), 1, 0)
    c[i] = wp.clamp(x[i], wp.bfloat16(-1.0), wp.bfloat16(1.0))


def test_classification_and_clamp() -> None:
    x = np.array([0.0, 1.0, -3.5, np.inf, -np.inf, np.nan, 1e-40, 3e38], dtype=np.float32)
    out = wp.zeros((x.size, 3), dtype=wp.int32)
    c = wp.zeros(x.size, dtype=wp.bfloat16)
    wp.launch(classify, dim=x.size, inputs=[wp.array(x, dtype=wp.bfloat16), out, c])
    xb = widen(round_bits(x))
    assert np.array_equal(
        out.numpy(), np.stack([np.isnan(xb), np.isinf(xb), np.isfinite(xb)], 1).astype(np.int32)
    )
    assert c.list()[:5] == [0.0, 1.0, -1.0, 1.0, -1.0]
