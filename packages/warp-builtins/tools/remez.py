"""Minimax polynomial fitting (linear Remez exchange) in arbitrary precision with mpmath.

Development tool only: the coefficients it prints are pasted into ``warp_builtins/mathlib``.
It needs ``mpmath`` (not a runtime dependency of warp-builtins)::

    pip install mpmath
    python packages/warp-builtins/tools/fit_mathlib.py sin32

:func:`remez` minimizes ``max |w(t) * (g(t) - p(t))|`` over ``[a, b]`` for a polynomial ``p``
of degree ``n``; callers choose ``g`` and ``w`` so that this is the relative error of the final
function (for ``sin(r) = r + r^3 * S(r^2)``: ``g(z) = (sin(sqrt z) - sqrt z) / z^1.5`` and
``w(z) = z^1.5 / sin(sqrt z)``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import mpmath as mp


def _chebyshev_grid(a: mp.mpf, b: mp.mpf, count: int) -> list[mp.mpf]:
    """``count`` Chebyshev nodes of the first kind in ``[a, b]``, ascending (dense near the ends)."""
    mid, half = (a + b) / 2, (b - a) / 2
    return [mid - half * mp.cos(mp.pi * (k + mp.mpf(0.5)) / count) for k in range(count)]


def _alternating_extrema(ts: Sequence[mp.mpf], es: Sequence[mp.mpf]) -> list[int]:
    """Indices of the largest |e| within each run of equal sign, in order (so signs alternate)."""
    out: list[int] = []
    start = 0
    for i in range(1, len(es) + 1):
        if i == len(es) or (es[i] >= 0) != (es[start] >= 0):
            best = max(range(start, i), key=lambda j: abs(es[j]))
            out.append(best)
            start = i
    return out


def _polyval(coeffs: Sequence[mp.mpf], t: mp.mpf) -> mp.mpf:
    acc = mp.mpf(0)
    for c in reversed(coeffs):
        acc = acc * t + c
    return acc


def remez(
    g: Callable[[mp.mpf], mp.mpf],
    w: Callable[[mp.mpf], mp.mpf],
    a: float,
    b: float,
    n: int,
    *,
    first_power: int = 0,
    grid: int = 3000,
    iterations: int = 40,
    verbose: bool = False,
) -> tuple[list[mp.mpf], mp.mpf]:
    """Minimax coefficients ``c[0..n]`` (ascending powers) and the weighted max error.

    With ``first_power = k`` the polynomial is ``c[k] t^k + ... + c[n] t^n`` (the returned list
    holds only those ``n - k + 1`` coefficients): lower terms are already part of ``g``.
    """
    a, b = mp.mpf(a), mp.mpf(b)
    ts = _chebyshev_grid(a, b, grid)
    gs = [g(t) for t in ts]
    ws = [w(t) for t in ts]
    # initial reference: n + 2 Chebyshev extrema
    m = n - first_power  # polynomial has m + 1 free coefficients
    ref = sorted((a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * k / (m + 1)) for k in range(m + 2))
    coeffs: list[mp.mpf] = []
    max_err = mp.mpf(0)
    for it in range(iterations):
        rows, rhs = [], []
        for j, t in enumerate(ref):
            rows.append([t**i for i in range(first_power, n + 1)] + [(-1) ** j / w(t)])
            rhs.append(g(t))
        sol = mp.lu_solve(mp.matrix(rows), mp.matrix(rhs))
        coeffs = [sol[i] for i in range(m + 1)]
        level = abs(sol[m + 1])
        es = [ws[i] * (gs[i] - t**first_power * _polyval(coeffs, t)) for i, t in enumerate(ts)]
        ext = _alternating_extrema(ts, es)
        max_err = max(abs(e) for e in es)
        if len(ext) < m + 2:
            if verbose:
                print(f"  iteration {it}: only {len(ext)} extrema; stopping")
            break
        # the window of n + 2 consecutive extrema with the largest smallest error
        best = max(range(len(ext) - m - 1), key=lambda s: min(abs(es[k]) for k in ext[s : s + m + 2]))
        ref = [ts[k] for k in ext[best : best + m + 2]]
        if verbose:
            print(f"  iteration {it}: level {mp.nstr(level, 5)} max {mp.nstr(max_err, 5)}")
        if level > 0 and max_err / level - 1 < mp.mpf("1e-4"):
            break
    return coeffs, max_err


def weighted_error(
    coeffs: Sequence[float],
    g: Callable[[mp.mpf], mp.mpf],
    w: Callable[[mp.mpf], mp.mpf],
    a: float,
    b: float,
    grid: int = 3000,
) -> mp.mpf:
    """Max weighted error of (rounded) coefficients over ``[a, b]``."""
    cs = [c if isinstance(c, mp.mpf) else mp.mpf(c) for c in coeffs]
    return max(abs(w(t) * (g(t) - _polyval(cs, t))) for t in _chebyshev_grid(mp.mpf(a), mp.mpf(b), grid))
