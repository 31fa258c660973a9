"""Fits the minimax polynomials of ``warp_builtins.mathlib`` (development tool, needs mpmath).

Usage: ``python fit_mathlib.py [NAME ...]`` prints, for each named fit, the coefficients in
ascending order rounded to the target precision, and the weighted (relative) error in ulp of
the target type after rounding. Without names it lists the fits.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass

import mpmath as mp
from remez import remez, weighted_error

mp.mp.dps = 60


@dataclass
class Fit:
    g: Callable[[mp.mpf], mp.mpf]
    w: Callable[[mp.mpf], mp.mpf]
    a: float
    b: float
    degree: int
    bits: int  # 24 for float32, 53 for float64


def _odd_tail(f: Callable[[mp.mpf], mp.mpf]) -> tuple[Callable, Callable]:
    """``f(x) = x + x^3 * P(x^2)``: P as a function of z = x^2, weighted for relative error of f."""

    def g(z: mp.mpf) -> mp.mpf:
        x = mp.sqrt(z)
        return (f(x) - x) / (x * z)

    def w(z: mp.mpf) -> mp.mpf:
        x = mp.sqrt(z)
        return x * z / f(x)

    return g, w


def _odd(f: Callable[[mp.mpf], mp.mpf]) -> tuple[Callable, Callable]:
    """``f(x) = x * P(x^2)``, weighted for relative error of f."""

    def g(z: mp.mpf) -> mp.mpf:
        x = mp.sqrt(z)
        return f(x) / x

    def w(z: mp.mpf) -> mp.mpf:
        x = mp.sqrt(z)
        return x / f(x)

    return g, w


def _cos_tail() -> tuple[Callable, Callable]:
    """``cos(r) = 1 - z/2 + z^2 * C(z)``."""
    return (lambda z: (mp.cos(mp.sqrt(z)) - 1 + z / 2) / (z * z), lambda z: z * z / mp.cos(mp.sqrt(z)))


def _exp_tail() -> tuple[Callable, Callable]:
    """``exp(r) = 1 + r + r^2 * E(r)``."""
    return (lambda r: (mp.exp(r) - 1 - r) / (r * r), lambda r: r * r / mp.exp(r))


def _log1p_tail() -> tuple[Callable, Callable]:
    """``log1p(f) = f - f^2/2 + f^3 * L(f)``."""
    return (
        lambda f: (mp.log1p(f) - f + f * f / 2) / (f**3),
        lambda f: f**3 / mp.log1p(f),
    )


def _atanh_tail() -> tuple[Callable, Callable]:
    """``2 atanh(s) = 2 s + s * z * R(z)`` with ``z = s^2`` (fdlibm's log kernel), relative weight."""

    def g(z: mp.mpf) -> mp.mpf:
        s = mp.sqrt(z)
        return (2 * mp.atanh(s) - 2 * s) / (s * z)

    def w(z: mp.mpf) -> mp.mpf:
        s = mp.sqrt(z)
        return s * z / (2 * mp.atanh(s))

    return g, w


def _atanh_tail5() -> tuple[Callable, Callable]:
    """``2 atanh(s) = 2 s + 2/3 s^3 + s^5 * R(z)`` with ``z = s^2`` (double-double log for pow)."""

    def g(z: mp.mpf) -> mp.mpf:
        s = mp.sqrt(z)
        return (2 * mp.atanh(s) - 2 * s - 2 * s**3 / 3) / s**5

    def w(z: mp.mpf) -> mp.mpf:
        s = mp.sqrt(z)
        return s**5 / (2 * mp.atanh(s))

    return g, w


def _erfc_scaled_inv() -> tuple[Callable, Callable]:
    """``erfc(a) = exp(-a^2) / a * H(v)`` with ``v = 1 / a^2``."""

    def g(v: mp.mpf) -> mp.mpf:
        a = 1 / mp.sqrt(v)
        return mp.erfc(a) * a * mp.exp(a * a)

    return g, lambda v: 1 / g(v)


def _erfc_scaled(shift: float) -> tuple[Callable, Callable]:
    """``erfc(a) = exp(-a^2) * G(t)`` with ``t = a - shift`` on a finite interval."""

    def g(t: mp.mpf) -> mp.mpf:
        a = t + shift
        return mp.erfc(a) * mp.exp(a * a)

    return g, lambda t: 1 / g(t)


PIO4 = float(mp.pi / 4)
PIO2 = float(mp.pi / 2)
LN2H = float(mp.log(2) / 2)
SQ = float(mp.sqrt(2))
SQH = float(mp.sqrt(0.5))
TAN_PI8 = float(mp.tan(mp.pi / 8))
TAN_7_16 = 0.4375


def _fits() -> dict[str, Fit]:
    fits: dict[str, Fit] = {}
    # ---- float32
    fits["sin32"] = Fit(*_odd_tail(mp.sin), 1e-12, (PIO4 * 1.001) ** 2, 3, 24)
    fits["cos32"] = Fit(*_cos_tail(), 1e-12, (PIO4 * 1.001) ** 2, 3, 24)
    fits["exp32"] = Fit(*_exp_tail(), -LN2H * 1.01, LN2H * 1.01, 4, 24)
    fits["log32"] = Fit(*_log1p_tail(), SQH - 1, SQ - 1, 7, 24)
    fits["atan32"] = Fit(*_odd_tail(mp.atan), 1e-12, TAN_PI8**2 * 1.01, 4, 24)
    fits["asin32"] = Fit(*_odd_tail(mp.asin), 1e-12, 0.25, 5, 24)
    fits["sinh32"] = Fit(*_odd_tail(mp.sinh), 1e-12, 1.0, 4, 24)
    fits["erf32"] = Fit(*_odd(mp.erf), 1e-12, 1.0, 6, 24)
    fits["erfc32a"] = Fit(*_erfc_scaled(1.25), -0.75, 0.75, 9, 24)  # a in [0.5, 2], variable a - 1.25
    fits["erfc32b"] = Fit(*_erfc_scaled_inv(), 1 / 10.1**2, 0.25, 9, 24)  # a in [2, 10.1]
    # ---- float64
    # sin on [-pi/2, pi/2] evaluated in double for float32 results (mathlib/trig_lanes.py)
    fits["sinpi2_32"] = Fit(*_odd_tail(mp.sin), 1e-12, (PIO2 * 1.0001) ** 2, 4, 53)
    fits["sin64"] = Fit(*_odd_tail(mp.sin), 1e-6, (PIO4 * 1.001) ** 2, 6, 53)
    fits["cos64"] = Fit(*_cos_tail(), 1e-6, (PIO4 * 1.001) ** 2, 6, 53)
    fits["exp64"] = Fit(*_exp_tail(), -LN2H * 1.01, LN2H * 1.01, 10, 53)
    fits["log64"] = Fit(*_atanh_tail(), 1e-6, ((SQ - 1) / (SQ + 1)) ** 2 * 1.01, 6, 53)
    fits["log64dd"] = Fit(*_atanh_tail5(), 1e-6, ((SQ - 1) / (SQ + 1)) ** 2 * 1.01, 6, 53)
    fits["atan64"] = Fit(*_odd_tail(mp.atan), 1e-6, TAN_7_16**2 * 1.01, 10, 53)
    fits["sinh64"] = Fit(*_odd_tail(mp.sinh), 1e-6, 1.0, 7, 53)
    fits["erf64"] = Fit(*_odd(mp.erf), 1e-6, 1.0, 11, 53)
    fits["erfc64a"] = Fit(*_erfc_scaled(1.0), -0.5, 0.5, 17, 53)  # a in [0.5, 1.5], variable a - 1
    fits["erfc64b"] = Fit(*_erfc_scaled(2.25), -0.75, 0.75, 17, 53)  # a in [1.5, 3], variable a - 2.25
    fits["erfc64c"] = Fit(*_erfc_scaled_inv(), 1 / 27.5**2, 1 / 9, 17, 53)  # a in [3, 27.5]
    return fits


def _round(x: mp.mpf, bits: int) -> float:
    v = float(x)
    return struct.unpack("f", struct.pack("f", v))[0] if bits == 24 else v


def run(name: str, fit: Fit) -> None:
    coeffs, err = remez(fit.g, fit.w, fit.a, fit.b, fit.degree)
    rounded = [_round(c, fit.bits) for c in coeffs]
    err_r = weighted_error(rounded, fit.g, fit.w, fit.a, fit.b)
    ulp = mp.mpf(2) ** -fit.bits
    print(
        f"# {name}: degree {fit.degree}, minimax {mp.nstr(err / ulp, 3)} ulp, rounded "
        f"{mp.nstr(err_r / ulp, 3)} ulp"
    )
    print("(" + ", ".join(repr(c) for c in rounded) + ",)")
    lo = _round(coeffs[0] - mp.mpf(rounded[0]), fit.bits)
    err_hl = weighted_error([mp.mpf(rounded[0]) + mp.mpf(lo)] + rounded[1:], fit.g, fit.w, fit.a, fit.b)
    print(f"#   with leading lo part {lo!r}: {mp.nstr(err_hl / ulp, 3)} ulp")


def main(argv: list[str]) -> None:
    fits = _fits()
    if not argv:
        print("fits:", " ".join(fits))
        return
    for name in argv:
        run(name, fits[name])


if __name__ == "__main__":
    main(sys.argv[1:])
