"""The factories of composite types: ``vector(3, float32)`` is ``wp.vec3``, ``matrix((3, 3),
float32)`` is ``wp.mat33``, ``quaternion()``, ``transformation()``; with placeholders (``Any``,
``Scalar``, ``Float``, ``Int``) they make generic annotations instead.

The value types themselves are in :mod:`warp.types.composite_values` (their classes' cache and
names in :mod:`warp.types.composite_classes`), the generic annotations and the signature patterns
(``VectorOf``, ``MatrixOf``, ``QuatOf``, ``TransformOf``) in :mod:`warp.types.composite_generic`.
"""

from __future__ import annotations

from typing import Any

from warp.types.composite_generic import generic_composite, is_placeholder
from warp.types.composite_values import matrix_type, quaternion_type, transform_type, vector_type
from warp.types.scalars import float32


def vector(length: int, dtype: Any) -> type:
    """The vector type of ``length`` components of scalar type ``dtype`` (``vector(3, float32)`` is vec3).

    With ``length=Any`` or a placeholder dtype (``Any``, ``Scalar``, ``Float``, ``Int``) the result
    is a generic annotation matching every such vector (see :func:`generic_composite`).
    """
    if length is Any or is_placeholder(dtype):
        return generic_composite("vector", (length,), dtype)
    return vector_type(length, dtype)


def matrix(shape: tuple[int, int], dtype: Any) -> type:
    """The matrix type of ``shape`` (rows, cols) with scalar type ``dtype`` (placeholders: generic)."""
    if Any in tuple(shape) or is_placeholder(dtype):
        return generic_composite("matrix", tuple(shape), dtype)
    return matrix_type(shape, dtype)


def quaternion(dtype: Any = float32) -> type:
    """The quaternion type with components of ``dtype`` (a float type; a placeholder: generic)."""
    if is_placeholder(dtype):
        return generic_composite("quaternion", (4,), dtype)
    return quaternion_type(dtype)


def transformation(dtype: Any = float32) -> type:
    """The rigid transform type (p, q) with components of ``dtype`` (a float type; a placeholder: generic)."""
    if is_placeholder(dtype):
        return generic_composite("transform", (7,), dtype)
    return transform_type(dtype)
