"""warp-builtins: the standard library of kernel functions for warp.

Registered with warp through the ``warp`` entry point ``builtins = "warp_builtins.plugin"``.
Contents:

- :mod:`warp_builtins.scalar_math`: the "Scalar Math" builtins (sin, exp, clamp, ...);
- :mod:`warp_builtins.utility`: scalar ``lerp`` and ``smoothstep``;
- :mod:`warp_builtins.mathlib`: a vectorizable math library written in LLVM IR, used by the
  lowerings on the CPU (CUDA lowerings call libdevice, see :mod:`warp_builtins.libdevice`).
"""

# warp first: importing it registers every plugin, this one included, so a module of this
# package imported before warp is not found half-initialized by that registration
import warp  # noqa: F401

__version__ = "0.1.0"
