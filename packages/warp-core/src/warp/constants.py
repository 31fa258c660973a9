"""Mathematical constants of NVIDIA Warp's API (``wp.pi``, ``wp.e``, ...), usable in kernels.

They are Python floats: in a kernel they are ``float32`` literals that adopt the type of a typed
partner (``wp.float64(r) * wp.pi`` is a ``float64`` product), as any float literal.
"""

from __future__ import annotations

import math

E = e = math.e
LOG2E = log2e = math.log2(math.e)
LOG10E = log10e = math.log10(math.e)
LN2 = ln2 = math.log(2.0)
LN10 = ln10 = math.log(10.0)
PHI = phi = (1.0 + math.sqrt(5.0)) / 2.0
PI = pi = math.pi
HALF_PI = half_pi = math.pi / 2.0
TAU = tau = 2.0 * math.pi
INF = inf = math.inf
NAN = nan = math.nan

__all__ = [
    "E",
    "e",
    "LOG2E",
    "log2e",
    "LOG10E",
    "log10e",
    "LN2",
    "ln2",
    "LN10",
    "ln10",
    "PHI",
    "phi",
    "PI",
    "pi",
    "HALF_PI",
    "half_pi",
    "TAU",
    "tau",
    "INF",
    "inf",
    "NAN",
    "nan",
]
