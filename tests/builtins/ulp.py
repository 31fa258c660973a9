"""Error measurement in units in the last place (ulp) for accuracy tests, and references."""

from __future__ import annotations

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


def exact_reference(name: str, x: np.ndarray) -> np.ndarray:
    """Correctly rounded float64 ``name(x)`` (mpmath at 120 bits, rounded to nearest), for the
    functions in ``EXACT_NAMES``; special inputs (zeros, infinities, NaN, log of negatives)
    take NumPy's result, which is exact for them."""
    import mpmath

    fns = {
        "exp": mpmath.exp,
        "exp2": lambda v: mpmath.power(2, v),
        "log": mpmath.log,
        "log2": lambda v: mpmath.log(v, 2),
        "log10": mpmath.log10,
        "cbrt": lambda v: mpmath.sign(v) * mpmath.cbrt(abs(v)),
    }
    numpy_fns = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "log10": np.log10,
                 "cbrt": np.cbrt}  # fmt: skip
    fn = fns[name]
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        out = numpy_fns[name](x)
    regular = np.isfinite(x) & (x != 0) & np.isfinite(out)
    if name.startswith("log"):
        regular &= x > 0
    with mpmath.workprec(120):
        for i in np.flatnonzero(regular.ravel()):
            out.flat[i] = float(fn(mpmath.mpf(float(x.flat[i]))))
    return out
