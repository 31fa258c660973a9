"""The kinds of kernel types: the ``_wp_kind_`` names that the compiler's handler tables key on.

A kernel type names its family in ``_wp_kind_``. The compiler keeps the kernel-language
behaviour of the core kinds (LLVM form, constructors, indexing, field access, printing) in
tables keyed by these names (:mod:`warp.compiler.frontend.type_handlers`,
:mod:`warp.compiler.lowering.types`), so the type classes themselves stay free of compiler code.
A plugin type with a kind of its own brings its behaviour as ``_wp_*_`` hooks
(:mod:`warp.types.protocol`).
"""

from __future__ import annotations

from typing import Any

VECTOR = "vector"
MATRIX = "matrix"
QUATERNION = "quaternion"
TRANSFORM = "transform"
STRUCT = "struct"

#: Kinds of the composite types (fixed-shape aggregates of one scalar type).
COMPOSITE_KINDS = frozenset({VECTOR, MATRIX, QUATERNION, TRANSFORM})

#: Kinds whose kernel behaviour warp-core's compiler implements.
CORE_KINDS = COMPOSITE_KINDS | {STRUCT}


def kind_of(t: Any) -> str:
    """The ``_wp_kind_`` of type ``t`` ("" for types without one: scalars, arrays, plain classes)."""
    kind = getattr(t, "_wp_kind_", "")
    return kind if isinstance(kind, str) else ""


def is_core_kind(t: Any) -> bool:
    """Whether ``t`` is a concrete vector/matrix/quaternion/transform or ``@wp.struct`` type."""
    return isinstance(t, type) and bool(getattr(t, "_wp_type_", False)) and kind_of(t) in CORE_KINDS


__all__ = [
    "COMPOSITE_KINDS", "CORE_KINDS", "MATRIX", "QUATERNION", "STRUCT", "TRANSFORM", "VECTOR",
    "is_core_kind", "kind_of",
]
