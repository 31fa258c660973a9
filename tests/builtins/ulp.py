"""Error measurement in units in the last place (ulp) for accuracy tests, and references."""

from __future__ import annotations

import mpmath
import numpy as np
import scipy.special as sps


def ulp_error(got: np.ndarray, ref: np.ndarray, dtype: type) -> np.ndarray:
    """``|got - ref|`` in ulp of ``ref`` rounded to ``dtype``; 0 where both are the same special.

    ``ref`` is normally computed in float64 (for float32/float16 results) and may lie beyond
    the range of ``dtype`` (then ``got`` must be the rounded infinity).
    """
    got = np.asarray(got)
    ref = np.asarray(ref, dtype=np.float64)
    with np.errstate(all="ignore"):
        ref_r = ref.astype(dtype)
        spacing = np.spacing(np.abs(ref_r)).astype(np.float64)
        spacing = np.where(np.isinf(ref_r), np.inf, spacing)
        err = np.abs(got.astype(np.float64) - ref) / spacing
    same = (got.astype(np.float64) == ref_r.astype(np.float64)) | (np.isnan(got) & np.isnan(ref))
    err = np.where(same, 0.0, err)
    return np.where(np.isnan(err), np.inf, err)


def assert_ulp(got: np.ndarray, ref: np.ndarray, dtype: type, max_ulp: float, inputs: tuple = ()) -> float:
    """Fail with the worst input if any error exceeds ``max_ulp``; return the max error."""
    err = ulp_error(got, ref, dtype)
    worst = int(np.argmax(err))
    where = ", ".join(repr(np.asarray(a).ravel()[worst]) for a in inputs)
    assert err[worst] <= max_ulp, (
        f"{err[worst]:.3g} ulp > {max_ulp} at input ({where}): got {got.ravel()[worst]!r}, "
        f"expected {ref.ravel()[worst]!r}"
    )
    return float(err[worst])


def assert_same_specials(got: np.ndarray, ref: np.ndarray, inputs: tuple = ()) -> None:
    """NaN, infinities and signed zeros of ``ref`` must appear exactly in ``got``."""
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    for k in range(ref.size):
        r, g = ref.ravel()[k], got.ravel()[k]
        where = ", ".join(repr(np.asarray(a).ravel()[k]) for a in inputs)
        if np.isnan(r):
            assert np.isnan(g), f"expected NaN at ({where}), got {g!r}"
        elif np.isinf(r) or r == 0:
            assert g == r and np.signbit(g) == np.signbit(r), f"expected {r!r} at ({where}), got {g!r}"


def erfc_reference(x: np.ndarray) -> np.ndarray:
    """float64 erfc accurate in the tail (SciPy's erfc loses digits beyond about x = 0.5):
    ``erfcx(x) * exp(-x^2)`` with ``x^2`` split exactly into ``hi + lo``."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        split = x * 134217729.0  # Veltkamp split: x = xh + xl with 26-bit halves
        xh = split - (split - x)
        xl = x - xh
        hi = x * x
        lo = ((xh * xh - hi) + 2 * xh * xl) + xl * xl
        tail = sps.erfcx(x) * np.exp(-hi) * (1 - lo)
        return np.where((x > 0.5) & np.isfinite(x), tail, sps.erfc(x))


#: float64 functions whose NumPy result is not correctly rounded on every platform (NumPy's own
#: or the C library's code: up to 1 ulp off here, 3 ulp for cbrt), evaluated exactly instead
EXACT_NAMES = ("exp", "exp2", "log", "log2", "log10", "cbrt")

_NUMPY_FNS = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "log10": np.log10,
              "cbrt": np.cbrt}  # fmt: skip
_MPMATH_FNS = {
    "exp": mpmath.exp,
    "exp2": lambda v: mpmath.power(2, v),
    "log": mpmath.log,
    "log2": lambda v: mpmath.log(v, 2),
    "log10": mpmath.log10,
    "cbrt": lambda v: mpmath.sign(v) * mpmath.cbrt(abs(v)),
}
#: a long double result this many of its own ulps (or more) from a float64 rounding boundary
#: rounds to the correctly rounded float64 (the C library's long double functions are within
#: a few ulp); closer ones are evaluated with mpmath
_MARGIN_ULPS = 64


def _uncertain_roundings(name: str, x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Mask of the ``x`` whose float64 ``name(x)`` the long double result cannot settle: writes
    the others' correctly rounded values into ``out``. Everything is uncertain where long double
    is no wider than float64."""
    if np.finfo(np.longdouble).nmant < 60:
        return np.ones(x.shape, dtype=bool)
    with np.errstate(all="ignore"):
        wide = _NUMPY_FNS[name](x.astype(np.longdouble))
        rounded = wide.astype(np.float64)
        # distance to the nearer of the points halfway to the float64 neighbours (exact in long
        # double, also where the spacing changes at a power of two)
        mid = rounded.astype(np.longdouble)
        below = (mid + np.nextafter(rounded, -np.inf).astype(np.longdouble)) / 2
        above = (mid + np.nextafter(rounded, np.inf).astype(np.longdouble)) / 2
        to_boundary = np.minimum(np.abs(wide - below), np.abs(wide - above))
        margin = _MARGIN_ULPS * np.spacing(np.abs(wide))
    certain = np.isfinite(rounded) & (np.abs(rounded) >= np.finfo(np.float64).tiny) & (to_boundary > margin)
    out[certain] = rounded[certain]
    return ~certain


def exact_reference(name: str, x: np.ndarray) -> np.ndarray:
    """Correctly rounded float64 ``name(x)`` for the functions in ``EXACT_NAMES``: from the long
    double result where it lies clearly on one side of a float64 rounding boundary, else mpmath
    at 120 bits rounded to nearest; special inputs (zeros, infinities, NaN, log of negatives)
    take NumPy's result, which is exact for them."""
    fn = _MPMATH_FNS[name]
    x = np.array(x, dtype=np.float64, order="C")  # out (same layout) reshapes to a view
    with np.errstate(all="ignore"):
        out = _NUMPY_FNS[name](x)
    regular = np.isfinite(x) & (x != 0) & np.isfinite(out)
    if name.startswith("log"):
        regular &= x > 0
    flat_x, flat_out = x.ravel(), out.reshape(-1)
    index = np.flatnonzero(regular.ravel())
    settled = flat_out[index]
    uncertain = _uncertain_roundings(name, flat_x[index], settled)
    flat_out[index] = settled
    with mpmath.workprec(120):
        for i in index[uncertain]:
            flat_out[i] = float(fn(mpmath.mpf(float(flat_x[i]))))
    return out
