"""Builtins that ship with warp-core: operators, casts, array access, atomics, thread index."""
