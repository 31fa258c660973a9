"""warp-builtins: the standard library of kernel functions for warp.

Registered with warp through the ``warp`` entry point ``builtins = "warp_builtins.plugin"``.
Contents:

- :mod:`warp_builtins.scalar_math`: the "Scalar Math" builtins (sin, exp, clamp, ...);
- :mod:`warp_builtins.utility`: scalar ``lerp`` and ``smoothstep``;
- :mod:`warp_builtins.mathlib`: a vectorizable math library written in LLVM IR, used by the
  lowerings on the CPU (CUDA lowerings call libdevice, see :mod:`warp_builtins.libdevice`).
"""

__version__ = "0.1.0"
