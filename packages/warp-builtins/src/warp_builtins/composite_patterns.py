"""Signature patterns for the composite-type builtins.

Besides :func:`warp.types.composite_generic.VectorOf` / ``MatrixOf`` (fixed or any shape), the shape-
changing products need *dimension variables*: ``Shaped("matrix", ("R", "K"))`` and
``Shaped("vector", ("K",))`` in one signature accept a matrix and a vector only when the
matrix has as many columns as the vector has components. Dimension bindings live in the same
bindings dict as type variables, under ``#name`` keys.
"""

from __future__ import annotations

from typing import Any, Sequence

from warp.extending import (
    ANY_SCALAR,
    CompositePattern,
    Float,
    Int,
    is_composite,
    match_type,
    Scalar,
    type_repr,
    TypeVar,
)

#: scalar type variables: S any numeric scalar, F float, I integer, B any scalar incl. bool
S = TypeVar("S", Scalar)
F = TypeVar("F", Float)
I = TypeVar("I", Int)  # noqa: E741
B = TypeVar("B", ANY_SCALAR)

KINDS = ("vector", "matrix", "quaternion", "transform")


class Shaped:
    """A composite of ``kind`` whose dimensions bind to named dimension variables (or ints)."""

    def __init__(self, kind: str, dims: Sequence[str | int | None], dtype: Any = S):
        self.kind = kind
        self.dims = tuple(dims)
        self.dtype = dtype

    def match(self, actual: Any, bindings: dict[str, Any]) -> bool:
        if not is_composite(actual) or actual._wp_kind_ != self.kind or len(actual._shape_) != len(self.dims):
            return False
        new: dict[str, int] = {}
        for dim, got in zip(self.dims, actual._shape_):
            if dim is None:
                continue
            if isinstance(dim, int):
                if dim != got:
                    return False
                continue
            key = "#" + dim
            want = bindings.get(key, new.get(key))
            if want is not None and want != got:
                return False
            new[key] = got
        if not match_type(self.dtype, actual._wp_scalar_type_, bindings):
            return False
        bindings.update(new)
        return True

    def __repr__(self) -> str:
        dims = ", ".join(str(d) for d in self.dims)
        if self.kind == "vector":
            return f"vector(length={dims}, dtype={type_repr(self.dtype)})"
        if self.kind == "matrix":
            return f"matrix(shape=({dims}), dtype={type_repr(self.dtype)})"
        return f"{self.kind}(dtype={type_repr(self.dtype)})"


def of_kind(kind: str, dtype: Any = S) -> CompositePattern:
    """Any composite of ``kind`` (any shape) with component type matching ``dtype``."""
    return CompositePattern(kind, None, dtype)


_KIND_NAMES = {"vector": "Vec", "matrix": "Mat", "quaternion": "Quat", "transform": "Transform"}


def same(kind: str, name: str | None = None, dtype: Any = S) -> TypeVar:
    """A type variable for a whole composite type of ``kind`` (both operands of a + b).

    Its name says what it matches in generated signatures: ``Vec`` (numeric components),
    ``FloatVec`` (float components), ``AnyVec`` (bool too); likewise ``Mat``, ``Quat``, ...
    """
    if name is None:
        prefix = "Float" if dtype is F else "Any" if dtype is B else ""
        name = prefix + _KIND_NAMES[kind]
    return TypeVar(name, of_kind(kind, dtype))


def vec(length: int | None = None, dtype: Any = S) -> Any:
    return CompositePattern("vector", None if length is None else (length,), dtype)


def mat(rows: int | None = None, cols: int | None = None, dtype: Any = S) -> Any:
    return CompositePattern("matrix", (rows, cols), dtype)


def square(name: str = "SquareMat", dtype: Any = S) -> TypeVar:
    """A type variable matching square matrices."""
    return TypeVar(name, _Square(dtype))


class _Square:
    def __init__(self, dtype: Any):
        self.dtype = dtype

    def match(self, actual: Any, bindings: dict[str, Any]) -> bool:
        return (
            is_composite(actual)
            and actual._wp_kind_ == "matrix"
            and actual._shape_[0] == actual._shape_[1]
            and match_type(self.dtype, actual._wp_scalar_type_, bindings)
        )

    def __repr__(self) -> str:
        return f"matrix(shape=(N, N), dtype={type_repr(self.dtype)})"
