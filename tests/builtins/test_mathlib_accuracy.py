"""Accuracy of the IR math library against NumPy/SciPy, in ulp, plus special values.

References are evaluated in float64 (for float32 and float16 results) so the measured error is
the library's own. Tolerances (max ulp over the sampled inputs), float32 / float64:

    sin cos 1/2   tan 1/3   exp exp2 log log2 log10 1.5/1.5   atan asin acos 1/3   atan2 1/3

(float64 tan, asin and acos are also checked against mpmath: under 1 ulp of the exact result.)
    sinh cosh tanh 3/3   pow 1/1   cbrt 1/1.5   erf 2/4   erfc 5/8
    erfinv erfcinv 1/8

float64 tolerances include the error of the reference where SciPy's is not correctly rounded
(erf family); exp, exp2, log, log2, log10 and cbrt are checked in float64 against mpmath (NumPy's
results were up to 3 ulp off on an AMD EPYC host with NumPy 2.4). float16 results must be within
1 ulp of the float32-exact value.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps
import warp.types.scalars as wps
from llvm_harness import JitModule, add_elementwise
from llvmlite import ir
from ulp import EXACT_NAMES, assert_same_specials, assert_ulp, erfc_reference, exact_reference
from warp_builtins.mathlib import call_math, math_function_names

WARP_TYPES = {np.float16: wps.float16, np.float32: wps.float32, np.float64: wps.float64}

# name -> (reference, sample ranges as (lo, hi, "lin"|"log"), tol float32, tol float64)
CASES = {
    "sin": (np.sin, [(-10, 10, "lin"), (-1e5, 1e5, "lin"), (1e-30, 1e300, "log")], 1, 2),
    "cos": (np.cos, [(-10, 10, "lin"), (-1e5, 1e5, "lin"), (1e-30, 1e300, "log")], 1, 2),
    "tan": (np.tan, [(-10, 10, "lin"), (-1e5, 1e5, "lin"), (1e-30, 1e300, "log")], 1, 3),
    "exp": (np.exp, [(-110, 90, "lin"), (-750, 712, "lin"), (1e-30, 1, "log")], 1.5, 1.5),
    "exp2": (np.exp2, [(-155, 130, "lin"), (-1080, 1030, "lin"), (1e-30, 1, "log")], 1.5, 1.5),
    "log": (np.log, [(0, 3, "lin"), (1e-300, 1e300, "log"), (1e-45, 1e38, "log")], 1.5, 1.5),
    "log2": (np.log2, [(0, 3, "lin"), (1e-300, 1e300, "log"), (1e-45, 1e38, "log")], 1.5, 1.5),
    "log10": (np.log10, [(0, 3, "lin"), (1e-300, 1e300, "log"), (1e-45, 1e38, "log")], 1.5, 1.5),
    "atan": (np.arctan, [(-3, 3, "lin"), (1e-30, 1e30, "log")], 1, 2),
    "asin": (np.arcsin, [(-1, 1, "lin"), (1e-30, 1, "log")], 1, 3),
    "acos": (np.arccos, [(-1, 1, "lin"), (1e-30, 1, "log")], 1, 3),
    "sinh": (np.sinh, [(-5, 5, "lin"), (-90, 90, "lin"), (-712, 712, "lin"), (1e-30, 1, "log")], 3, 3),
    "cosh": (np.cosh, [(-5, 5, "lin"), (-90, 90, "lin"), (-712, 712, "lin"), (1e-30, 1, "log")], 2, 2),
    "tanh": (np.tanh, [(-5, 5, "lin"), (-20, 20, "lin"), (1e-30, 1, "log")], 3, 3),
    "cbrt": (np.cbrt, [(-10, 10, "lin"), (1e-300, 1e300, "log"), (1e-45, 1e38, "log")], 1, 1.5),
    "erf": (sps.erf, [(-1.5, 1.5, "lin"), (-6, 6, "lin"), (1e-30, 1, "log")], 2, 4),
    "erfc": (sps.erfc, [(-2, 2, "lin"), (-3, 10, "lin"), (1e-30, 1, "log")], 5, 8),
    "erfinv": (sps.erfinv, [(-1, 1, "lin"), (1e-30, 1, "log")], 1, 8),
    "erfcinv": (sps.erfcinv, [(0, 2, "lin"), (1e-300, 1, "log")], 1, 8),
}

SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0]


def sample(dtype: type, ranges: list, n: int = 20000, seed: int = 0) -> np.ndarray:
    """Inputs from each range (log ranges: log-uniform magnitude, random sign), in ``dtype``."""
    rng = np.random.default_rng(seed)
    info = np.finfo(dtype)
    parts = []
    for lo, hi, kind in ranges:
        if kind == "lin":
            v = rng.uniform(lo, hi, n)
        else:
            lo = max(lo, float(info.smallest_subnormal))
            hi = min(hi, float(info.max))
            if lo >= hi:
                continue
            v = np.exp(rng.uniform(np.log(lo), np.log(hi), n)) * rng.choice([-1.0, 1.0], n)
        parts.append(v)
    with np.errstate(over="ignore"):
        return np.concatenate(parts).astype(dtype)


def compile_math(name: str, dtype: type, arity: int = 1):
    """Elementwise NumPy function running ``__wp_<name>`` compiled at O3."""
    wt = WARP_TYPES[dtype]
    module = ir.Module(f"math_{name}")
    add_elementwise(module, "f", [wt] * arity, wt, lambda b, vals: call_math(b, name, *vals))
    return JitModule(module).elementwise("f", [wt] * arity, wt)


def reference(fn, *xs: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return fn(*[np.asarray(x, dtype=np.float64) for x in xs])


def _valid_domain(name: str, x: np.ndarray) -> np.ndarray:
    """Mask of sampled inputs inside the function's domain (others are checked as specials)."""
    if name in ("log", "log2", "log10"):
        return x > 0
    if name in ("asin", "acos", "erfinv"):
        return np.abs(x) <= 1
    if name == "erfcinv":
        return (x >= 0) & (x <= 2)
    return np.ones(x.shape, bool)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_accuracy(name: str, dtype: type) -> None:
    ref_fn, ranges, tol32, tol64 = CASES[name]
    f = compile_math(name, dtype)
    x = sample(dtype, ranges)
    x = np.abs(x) if name in ("log", "log2", "log10") else x
    x = x[_valid_domain(name, x)]
    if name == "erfcinv":
        x = x[x > 0]
    got = f(x)
    ref = reference(ref_fn, x)
    if dtype == np.float64 and name == "erfc":
        ref = erfc_reference(x)
    if dtype == np.float64 and name in EXACT_NAMES:
        ref = exact_reference(name, x)  # NumPy's float64 result may be 1-3 ulp off on some hosts
    assert_ulp(got, ref, dtype, tol32 if dtype == np.float32 else tol64, (x,))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_special_values(name: str, dtype: type) -> None:
    info = np.finfo(dtype)
    x = np.array(SPECIALS + [float(info.smallest_subnormal), float(info.tiny), 3.0, -3.0, 1e-3], dtype=dtype)
    if name not in ("sin", "cos", "tan"):
        x = np.concatenate([x, np.array([info.max, -info.max], dtype=dtype)])
    got = compile_math(name, dtype)(x)
    ref = reference(CASES[name][0], x)
    if name in ("erfinv", "erfcinv"):  # SciPy's zero signs (erfinv(-0) = +0, erfcinv(1) = -0) differ
        ref = np.where(ref == 0, np.copysign(0.0, got), ref)
    if name == "erfcinv":  # SciPy gives inf for the smallest subnormal; see test_erfcinv_far_tail
        keep = x != info.smallest_subnormal
        x, got, ref = x[keep], got[keep], ref[keep]
    assert_same_specials(got, ref, (x,))
    finite = np.isfinite(ref) & (ref != 0)
    assert_ulp(got[finite], ref[finite], dtype, 8, (x[finite],))


def test_trig_float64_large_arguments() -> None:
    """float64 reduction is accurate over the whole range (see also test_trig_large_arguments)."""
    x = sample(np.float64, [(1e12, 3.5e15, "log"), (3.5e15, 1.7e308, "log")])
    for name in ("sin", "cos"):
        assert_ulp(compile_math(name, np.float64)(x), reference(CASES[name][0], x), np.float64, 2, (x,))


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_huge_arguments_stay_bounded(name: str) -> None:
    """Huge finite arguments give finite results with |sin|, |cos| <= 1."""
    for dtype in (np.float32, np.float64):
        info = np.finfo(dtype)
        x = np.array([1e16, -1e20, 3e30, float(info.max), -float(info.max)], dtype=dtype)
        got = compile_math(name, dtype)(x)
        assert np.all(np.isfinite(got))
        if name != "tan":
            assert np.all(np.abs(got) <= 1)


@pytest.mark.parametrize("name", ["atan2", "pow"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_binary_accuracy(name: str, dtype: type) -> None:
    rng = np.random.default_rng(3)
    n = 40000
    if name == "atan2":
        y = rng.uniform(-10, 10, n) * 10.0 ** rng.integers(-6, 6, n)
        x = rng.uniform(-10, 10, n) * 10.0 ** rng.integers(-6, 6, n)
        ref_fn, tol = np.arctan2, (1 if dtype == np.float32 else 3)
    else:
        x = np.concatenate([rng.uniform(0, 4, n), np.exp(rng.uniform(-80, 80, n))])
        y = np.concatenate([rng.uniform(-60, 60, n), rng.uniform(-1.5, 1.5, n)])
        ref_fn, tol = np.power, 1
    a, b = (y, x) if name == "atan2" else (x, y)
    a, b = a.astype(dtype), b.astype(dtype)
    got = compile_math(name, dtype, 2)(a, b)
    assert_ulp(got, reference(ref_fn, a, b), dtype, tol, (a, b))


@pytest.mark.parametrize("name", ["atan2", "pow"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_binary_special_values(name: str, dtype: type) -> None:
    """Every pair of special values follows C99 (NumPy's float64 results)."""
    vals = np.array(
        [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5, np.inf, -np.inf, np.nan], dtype=dtype
    )
    a, b = (g.ravel() for g in np.meshgrid(vals, vals))
    got = compile_math(name, dtype, 2)(a, b)
    ref = reference(np.arctan2 if name == "atan2" else np.power, a, b)
    assert_same_specials(got, ref, (a, b))
    finite = np.isfinite(ref) & (ref != 0)
    assert_ulp(got[finite], ref[finite], dtype, 2, (a[finite], b[finite]))


@pytest.mark.parametrize("name", sorted(CASES) + ["atan2", "pow"])
def test_float16(name: str) -> None:
    """float16 versions compute in float32 and round: within 1 ulp of the exact value."""
    arity = 2 if name in ("atan2", "pow") else 1
    rng = np.random.default_rng(5)
    if arity == 2:
        args = [rng.uniform(0.1, 4, 5000).astype(np.float16), rng.uniform(-4, 4, 5000).astype(np.float16)]
        ref_fn = np.arctan2 if name == "atan2" else np.power
    else:
        ref_fn, ranges, _, _ = CASES[name]
        x = sample(np.float16, ranges[:1], 5000)
        x = np.abs(x) if name in ("log", "log2", "log10") else x
        args = [x[_valid_domain(name, x)]]
    got = compile_math(name, np.float16, arity)(*args)
    assert got.dtype == np.float16
    assert_ulp(got, reference(ref_fn, *args), np.float16, 1, tuple(args))


def test_erfcinv_far_tail() -> None:
    """erfc(erfcinv(z)) == z down to the smallest subnormal double.

    The round trip amplifies the error of x = erfcinv(z) by 2 x^2 (about 1500 at z = 1e-300),
    hence the relative tolerance of 1e-12.
    """
    z = np.concatenate([10.0 ** -np.linspace(1, 307, 200), [5e-324, 1e-320, 2.2e-308]])
    x = compile_math("erfcinv", np.float64)(z)
    back = compile_math("erfc", np.float64)(x)
    normal = z > 2.3e-308
    np.testing.assert_allclose(back[normal], z[normal], rtol=1e-12)
    np.testing.assert_allclose(back[~normal], z[~normal], rtol=2e-2)  # subnormal z: few digits
    assert 27.2 < x[-3] < 27.3


def test_exp2_accuracy() -> None:
    """exp2 is not a builtin but is part of the library (used by pow)."""
    for dtype in (np.float32, np.float64):
        x = sample(dtype, [(-150, 128, "lin"), (-1074, 1023, "lin")])
        assert_ulp(compile_math("exp2", dtype)(x), reference(np.exp2, x), dtype, 1.5, (x,))


def test_library_lists_required_functions() -> None:
    required = {"sin", "cos", "tan", "exp", "exp2", "log", "log2", "log10", "pow", "atan", "atan2", "asin",
                "acos", "sinh", "cosh", "tanh", "erf", "erfc", "erfinv", "erfcinv", "cbrt"}  # fmt: skip
    assert required <= set(math_function_names())


@pytest.mark.parametrize("name", ["tan", "asin", "acos"])
def test_float64_tan_asin_acos_within_one_ulp_of_the_exact_result(name: str) -> None:
    """Against mpmath (not NumPy, whose own float64 results are up to ~0.8 ulp off)."""
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(20)
    n = 700
    if name == "tan":
        wide = np.exp(rng.uniform(np.log(1e-30), np.log(1e300), n)) * rng.choice([-1.0, 1.0], n)
        parts = [rng.uniform(-10, 10, n), rng.uniform(-1.6, 1.6, n), rng.uniform(-1e5, 1e5, n), wide]
    else:
        near_one = 1.0 - np.exp(rng.uniform(np.log(1e-16), np.log(0.5), n))
        tiny = np.exp(rng.uniform(-69, 0, n))
        parts = [rng.uniform(-1, 1, n), rng.uniform(0.4, 0.6, n), -rng.uniform(0.4, 0.6, n), near_one, tiny]
    x = np.concatenate(parts)
    got = compile_math(name, np.float64)(x)
    fn = getattr(mpmath, name)
    errs = []
    with mpmath.workprec(200):
        for g, v in zip(got, x):
            exact = fn(mpmath.mpf(float(v)))
            errs.append(float(abs(mpmath.mpf(float(g)) - exact) / mpmath.mpf(np.spacing(abs(float(exact))))))
    errs_arr = np.array(errs)
    worst = int(np.argmax(errs_arr))
    assert errs_arr[worst] < 1.0, f"{name}: {errs_arr[worst]:.3f} ulp at {x[worst]!r}"


@pytest.mark.parametrize("name", ["asin", "acos"])
def test_float64_asin_acos_specials(name: str) -> None:
    x = np.array([1.0, -1.0, 0.0, -0.0, 0.5, -0.5, np.nextafter(1.0, 2.0), -1.0000000000000002])
    x = np.concatenate([x, [np.nan, np.inf, -np.inf, 5e-324, -5e-324]])
    got = compile_math(name, np.float64)(x)
    ref = reference(np.arcsin if name == "asin" else np.arccos, x)
    assert_same_specials(got, ref, (x,))
    np.testing.assert_array_equal(got[:4], ref[:4])  # exact at +-1 and +-0
