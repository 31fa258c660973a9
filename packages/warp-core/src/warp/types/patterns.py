"""Signature patterns of builtins and their matching: :class:`TypeVar`, :class:`ArrayOf` and
:func:`match_type` (see :mod:`warp.compiler.registry` for how overloads use them).

They belong to the type system (they only compare types), so the composite patterns
(:class:`warp.types.composite_generic.CompositePattern`) and generic annotations match through them
without reaching into the compiler.
"""

from __future__ import annotations

import typing
from typing import Any

from warp.types.scalars import Float, Int, Scalar, canonical_type, is_float, is_int, is_scalar_type, type_repr


class TypeVar:
    """A named type variable in a builtin signature, bound on first match."""

    def __init__(self, name: str, bound: Any = typing.Any):
        self.name = name
        self.bound = bound

    def __repr__(self) -> str:
        return self.name


class ArrayOf:
    """Pattern matching ``wp.array`` types by dtype pattern and (optionally) dimension count."""

    def __init__(self, dtype: Any = typing.Any, ndim: int | None = None):
        self.dtype = dtype
        self.ndim = ndim

    def match(self, actual: Any, bindings: dict[str, Any]) -> bool:
        if not getattr(actual, "is_array_type", False):
            return False
        if self.ndim is not None and actual.ndim != self.ndim:
            return False
        return match_type(self.dtype, actual.dtype, bindings)

    def __repr__(self) -> str:
        return f"array(dtype={type_repr(self.dtype)}, ndim={self.ndim or 'any'})"


def match_type(pattern: Any, actual: Any, bindings: dict[str, Any]) -> bool:
    """True if ``actual`` matches ``pattern``; type variables are recorded in ``bindings``."""
    if pattern is typing.Any:
        return True
    if isinstance(pattern, TypeVar):
        if pattern.name in bindings:
            return bindings[pattern.name] == actual
        if not match_type(pattern.bound, actual, bindings):
            return False
        bindings[pattern.name] = actual
        return True
    if pattern is Scalar:
        return is_scalar_type(actual) and actual._kind_ != "bool"
    if pattern is Float:
        return is_float(actual)
    if pattern is Int:
        return is_int(actual)
    matcher = getattr(pattern, "match", None)
    if matcher is not None and not isinstance(pattern, type):
        return matcher(actual, bindings)
    generic_match = getattr(pattern, "__match_type__", None)
    if generic_match is not None:
        return generic_match(actual, bindings)
    return canonical_type(pattern) == actual


__all__ = ["ArrayOf", "TypeVar", "match_type"]
