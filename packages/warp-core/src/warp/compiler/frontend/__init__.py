"""Frontend: Python AST of a kernel or function -> typed IR (:mod:`warp.compiler.ir`)."""

from __future__ import annotations

from warp.compiler.frontend.translator import build_function

__all__ = ["build_function"]
