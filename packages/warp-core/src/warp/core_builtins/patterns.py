"""Signature patterns shared by core builtins."""

from __future__ import annotations

from typing import Any

from warp.compiler.registry import TypeVar
from warp.types.scalars import Float, Int, Scalar, is_scalar_type


class AnyScalar:
    """Matches every concrete scalar type, ``bool`` included."""

    def match(self, actual: Any, bindings: dict[str, Any]) -> bool:
        return is_scalar_type(actual)

    def __repr__(self) -> str:
        return "Scalar|bool"


ANY_SCALAR = AnyScalar()
T = TypeVar("T", Scalar)
B = TypeVar("B", ANY_SCALAR)
F = TypeVar("F", Float)
I = TypeVar("I", Int)  # noqa: E741
