"""Every registered Scalar Math / lerp / smoothstep overload, lowered and run through the harness.

Each overload is compiled with its own lowering (``lower(ctx, args, arg_types)``) into an
elementwise loop and compared with a NumPy model of NVIDIA Warp's semantics: exactly for
rounding, comparisons, integer and selection operations, in ulp for transcendental functions
(same tolerances as test_mathlib_accuracy.py; float16 within 1 ulp).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special as sps
import warp.types.scalars as wps
from llvm_harness import compile_lowering
from ulp import EXACT_NAMES, assert_same_specials, assert_ulp, erfc_reference, exact_reference
from warp.compiler.registry import BuiltinRegistry
from warp_builtins import scalar_math, utility


def _registry() -> BuiltinRegistry:
    """A registry holding only this module's builtins (other packages add vector overloads)."""
    registry = BuiltinRegistry()
    scalar_math.register(registry)
    utility.register(registry)
    return registry


REGISTRY = _registry()
#: bfloat16 overloads share the float32 lowerings (the kernel compiler rounds their results):
#: tested end to end in test_bfloat16_math.py
OVERLOADS = [
    (name, ov) for name in REGISTRY.names() for ov in REGISTRY.get(name).overloads
    if all(t is not wps.bfloat16 for _, t in ov.params)
]


def _round_half_away(x: np.ndarray) -> np.ndarray:
    t = np.trunc(x)
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(x.dtype)


def _clamp(x, lo, hi):
    return np.fmin(np.fmax(lo, x), hi)  # min(max(low, x), high); a NaN operand yields the other


def _smoothstep(a, b, x):
    dt = x.dtype.type
    with np.errstate(all="ignore"):
        s = (x - a) / (b - a)
    s = np.where(dt(0) > s, dt(0), s)
    s = np.where(s < dt(1), s, dt(1))
    return (s * s * (dt(3) - dt(2) * s)).astype(x.dtype)


def _scaled(factor: float):
    def ref(x):
        if x.dtype == np.float16:
            return (x.astype(np.float32) * np.float32(factor)).astype(np.float16)
        return x * x.dtype.type(factor)

    return ref


# name -> model computed in the argument type (compared exactly)
EXACT = {
    "abs": np.abs,
    "sign": lambda x: np.where(x < 0, -1, 1).astype(x.dtype),
    "step": lambda x: np.where(x < 0, 1, 0).astype(x.dtype),
    "nonzero": lambda x: np.where(x == 0, 0, 1).astype(x.dtype),
    "min": np.fmin,  # for floats, a NaN operand yields the other one (as NVIDIA Warp)
    "max": np.fmax,
    "clamp": _clamp,
    "bit_count": lambda x: np.bitwise_count(x.view(f"u{x.dtype.itemsize}")).astype(np.int32),
    "frac": lambda x: x - np.trunc(x),
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "rint": np.rint,
    "round": _round_half_away,
    "copysign": np.copysign,
    "sqrt": np.sqrt,
    "isfinite": np.isfinite,
    "isinf": np.isinf,
    "isnan": np.isnan,
    "degrees": _scaled(180.0 / math.pi),
    "radians": _scaled(math.pi / 180.0),
    "lerp": lambda a, b, t: a * (t.dtype.type(1) - t) + b * t,
    "smoothstep": _smoothstep,
}

# name -> (float64 reference, ulp tolerance float32, float64)
APPROX = {
    "sin": (np.sin, 2, 2),
    "cos": (np.cos, 2, 2),
    "tan": (np.tan, 3, 3),
    "asin": (np.arcsin, 2, 3),
    "acos": (np.arccos, 2, 3),
    "atan": (np.arctan, 2, 2),
    "atan2": (np.arctan2, 3, 3),
    "sinh": (np.sinh, 3, 3),
    "cosh": (np.cosh, 2, 2),
    "tanh": (np.tanh, 3, 3),
    "exp": (np.exp, 1.5, 1.5),
    "log": (np.log, 1.5, 1.5),
    "log2": (np.log2, 1.5, 1.5),
    "log10": (np.log10, 1.5, 1.5),
    "pow": (np.power, 1, 1),
    "cbrt": (np.cbrt, 1, 1.5),
    "erf": (sps.erf, 2, 4),
    "erfc": (sps.erfc, 5, 8),
    "erfinv": (sps.erfinv, 1, 8),
    "erfcinv": (sps.erfcinv, 1, 8),
}

FLOAT_SPECIALS = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1.0, -1.0, 0.49999997, -0.49999997,
                  np.inf, -np.inf, np.nan, 1e-40, -1e-40]  # fmt: skip

#: input ranges for functions with a restricted domain
DOMAINS = {
    "log": (0, 100),
    "log2": (0, 100),
    "log10": (0, 100),
    "asin": (-1, 1),
    "acos": (-1, 1),
    "erfinv": (-1, 1),
    "erfcinv": (0, 2),
    "exp": (-80, 80),
    "sinh": (-80, 80),
    "cosh": (-80, 80),
}


def _float_inputs(name: str, dtype: type, rng: np.random.Generator, n: int = 4000) -> np.ndarray:
    lo, hi = DOMAINS.get(name, (-20, 20))
    if dtype == np.float16:
        lo, hi = max(lo, -8), min(hi, 8)
    with np.errstate(over="ignore"):
        vals = np.concatenate([rng.uniform(lo, hi, n), np.array(FLOAT_SPECIALS)])
        return vals.astype(dtype)


def _int_inputs(dtype: type, rng: np.random.Generator, n: int = 2000) -> np.ndarray:
    info = np.iinfo(dtype)
    edges = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dtype)
    if info.min < 0:
        edges = np.concatenate([edges, np.array([-1, -2], dtype=dtype)])
    return np.concatenate([rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True), edges])


def _inputs(name: str, arg_types: list, rng: np.random.Generator) -> list[np.ndarray]:
    arrays = []
    for k, t in enumerate(arg_types):
        dtype = t._np_dtype_.type
        if t._kind_ == "float":
            a = _float_inputs(name, dtype, rng)
            if name == "pow" and k == 0:
                a = np.abs(a)
        else:
            a = _int_inputs(dtype, rng)
        arrays.append(rng.permutation(a) if k else a)
    return arrays


def _id(item) -> str:
    name, ov = item
    return f"{name}[{','.join(t.__name__ for _, t in ov.params)}]"


@pytest.mark.parametrize("item", OVERLOADS, ids=[_id(o) for o in OVERLOADS])
def test_overload(item) -> None:
    name, ov = item
    arg_types = [t for _, t in ov.params]
    result_type = ov.result_type(arg_types, ov.bind(arg_types))
    rng = np.random.default_rng(abs(hash(_id(item))) % 2**32)
    args = _inputs(name, arg_types, rng)
    fn = compile_lowering(ov.lower, arg_types, result_type)
    got = fn(*args)
    assert got.dtype == wps.dtype_to_numpy(result_type)
    if name in EXACT:
        with np.errstate(all="ignore"):
            expected = np.asarray(EXACT[name](*args))
        if got.dtype.kind == "f":
            assert_same_specials(got, expected, tuple(args))
            np.testing.assert_array_equal(got, expected)
        else:
            np.testing.assert_array_equal(got, expected.astype(got.dtype))
        return
    ref_fn, tol32, tol64 = APPROX[name]
    with np.errstate(all="ignore"):
        ref = ref_fn(*[a.astype(np.float64) for a in args])
    if name == "erfc" and got.dtype == np.float64:
        ref = erfc_reference(args[0])
    if name in EXACT_NAMES and got.dtype == np.float64:
        ref = exact_reference(name, args[0])  # NumPy's float64 result may be 1-3 ulp off on some hosts
    dtype = got.dtype.type
    tol = {np.float16: 1, np.float32: tol32, np.float64: tol64}[dtype]
    if name == "erfinv" or name == "erfcinv":
        ref = np.where(ref == 0, np.copysign(0.0, got), ref)  # SciPy's zero signs differ
    assert_ulp(got, ref, dtype, tol, tuple(args))


def test_every_overload_has_a_test_model() -> None:
    assert {name for name, _ in OVERLOADS} == set(EXACT) | set(APPROX)
