"""The IR of a ``@wp.func`` for given argument types: used by the reverse-mode transform (rules with
a reference implementation) and by derivative rules that differentiate a helper function."""

from __future__ import annotations

from typing import Any

from warp.extending import accepts, ir


def specialize(func: Any, arg_types: list[Any]) -> ir.Function:
    """The IR of ``@wp.func`` ``func`` specialized for ``arg_types`` (first matching overload)."""
    probes = [ir.Value(t) for t in arg_types]
    for overload in func.overloads:
        if len(overload.param_types) == len(probes) and all(
            accepts(p, a) is not None for p, a in zip(overload.param_types, probes)
        ):
            return func.specialization(overload, tuple(arg_types))
    raise TypeError(f"no definition of '{func.name}' accepts these argument types")
