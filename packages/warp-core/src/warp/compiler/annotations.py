"""Turning Python annotations of kernel/function parameters into compiler types."""

from __future__ import annotations

import typing
from typing import Any

from warp.types.array_type import ArrayType
from warp.types.scalars import Float, Int, Scalar, canonical_type, is_scalar_type

#: Placeholders that make a function generic (specialized per call).
GENERIC_PLACEHOLDERS = (typing.Any, Scalar, Float, Int)


def resolve_annotation(annotation: Any, namespace: dict[str, Any]) -> Any:
    """The compiler type an annotation denotes; strings are evaluated in ``namespace``."""
    if isinstance(annotation, str):
        annotation = eval(annotation, namespace)  # noqa: S307 - annotations are user code
    annotation = canonical_type(annotation)
    array_type = getattr(annotation, "array_type", None)
    if isinstance(array_type, ArrayType):
        return array_type
    return annotation


def is_generic(t: Any) -> bool:
    """True if ``t`` is (or contains) a generic placeholder."""
    if t in GENERIC_PLACEHOLDERS or t is None:
        return True
    if isinstance(t, ArrayType):
        return is_generic(t.dtype)
    return bool(getattr(t, "_wp_generic_", False))


def is_value_type(t: Any) -> bool:
    """True for types a kernel parameter or variable may have."""
    return (
        is_scalar_type(t)
        or isinstance(t, ArrayType)
        or getattr(t, "_wp_type_", False) is True
    )
