"""Turning Python annotations of kernel/function parameters into kernel types (and matching
generic ones against argument types). :mod:`warp.compiler.annotations` re-exports these names."""

from __future__ import annotations

import typing
from typing import Any

from warp.types.array_type import ArrayType
from warp.types.patterns import match_type
from warp.types.scalars import Float, Int, Scalar, canonical_type, is_scalar_type, type_repr

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


class TupleParam:
    """The annotation ``tuple[A, B, ...]`` (or ``tuple[T, ...]``, any length) of a ``@wp.func``
    parameter: the argument is a tuple of values (``f((a, b))``, ``f(t)`` for ``t = (a, b)``).

    A call binds each item separately, so the function is specialized per item types; the
    concrete argument type is the Python tuple of the item types.
    """

    _wp_generic_ = True  # specialized per call, like a parameter typed with a placeholder

    def __init__(self, items: tuple[Any, ...], variadic: bool):
        #: the item types (one, the repeated type, when ``variadic``)
        self.items = items
        #: ``tuple[T, ...]``: any number of items of type T
        self.variadic = variadic

    def item_patterns(self, count: int) -> tuple[Any, ...] | None:
        """The annotation of each of ``count`` items, or None if a tuple of that length does not fit."""
        if self.variadic:
            return self.items * count
        return self.items if count == len(self.items) else None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TupleParam) and (self.items, self.variadic) == (other.items, other.variadic)

    def __hash__(self) -> int:
        return hash((TupleParam, self.items, self.variadic))

    def __repr__(self) -> str:
        inner = ", ".join(type_repr(t) for t in self.items) + (", ..." if self.variadic else "")
        return f"tuple[{inner}]"


def param_annotation(annotation: Any, namespace: dict[str, Any]) -> Any:
    """The type of a ``@wp.func`` parameter: :func:`resolve_annotation`, or a :class:`TupleParam`."""
    if isinstance(annotation, str):
        annotation = eval(annotation, namespace)  # noqa: S307 - annotations are user code
    if typing.get_origin(annotation) is tuple:
        items = typing.get_args(annotation)
        variadic = len(items) == 2 and items[1] is Ellipsis
        if Ellipsis in items and not variadic:
            raise TypeError("tuple[...] takes item types, or one type followed by ... (tuple[T, ...])")
        types = tuple(resolve_annotation(a, namespace) for a in items[: 1 if variadic else None])
        return TupleParam(types, variadic)
    return resolve_annotation(annotation, namespace)


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


def specialize_type(pattern: Any, actual: Any) -> Any:
    """The concrete type a parameter annotated ``pattern`` takes for an argument of type ``actual``.

    Returns None when ``actual`` does not fit. A concrete ``pattern`` fits only itself; a generic
    array needs the same number of dimensions and an element type matching its dtype pattern.
    """
    if actual is None:
        return None
    if isinstance(pattern, ArrayType):
        if not isinstance(actual, ArrayType) or actual.ndim != pattern.ndim:
            return None
        if is_generic(pattern.dtype):
            return actual if match_type(pattern.dtype, actual.dtype, {}) else None
        return pattern if actual.dtype == pattern.dtype else None
    if is_generic(pattern):
        return actual if match_type(pattern, actual, {}) else None
    return pattern if canonical_type(actual) == pattern else None


def return_annotation(annotation: Any, namespace: dict[str, Any]) -> Any:
    """The return type an annotation denotes: a type, ``type(None)``, or a tuple of types.

    Tuples are written ``tuple[int, float]``, ``typing.Tuple[int, float]`` or ``(int, float)``.
    """
    if isinstance(annotation, str):
        annotation = eval(annotation, namespace)  # noqa: S307 - annotations are user code
    if annotation is None:
        return type(None)
    if typing.get_origin(annotation) is tuple:
        items = typing.get_args(annotation)
        if Ellipsis in items:
            raise TypeError("a function returns a fixed number of values; tuple[T, ...] is not supported")
        return tuple(resolve_annotation(a, namespace) for a in items)
    if isinstance(annotation, tuple):
        return tuple(resolve_annotation(a, namespace) for a in annotation)
    return resolve_annotation(annotation, namespace)
