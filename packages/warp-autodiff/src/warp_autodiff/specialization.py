"""The IR of a ``@wp.func`` for given argument types: used by the reverse-mode transform (rules with
a reference implementation) and by derivative rules that differentiate a helper function."""

from __future__ import annotations

from typing import Any

from warp.extending import function_ir, ir


def specialize(func: Any, arg_types: list[Any]) -> ir.Function:
    """The IR of ``@wp.func`` ``func`` specialized for ``arg_types`` (first matching overload)."""
    return function_ir(func, arg_types)
