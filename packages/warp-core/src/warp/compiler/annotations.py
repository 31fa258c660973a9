"""Kernel types from Python annotations: the names of :mod:`warp.types.annotations`, kept at
their old path (plugins import them from here)."""

from __future__ import annotations

from warp.types.annotations import (
    GENERIC_PLACEHOLDERS,
    TupleParam,
    is_generic,
    is_value_type,
    param_annotation,
    resolve_annotation,
    return_annotation,
    specialize_type,
)

__all__ = [
    "GENERIC_PLACEHOLDERS", "TupleParam", "is_generic", "is_value_type", "param_annotation",
    "resolve_annotation", "return_annotation", "specialize_type",
]
