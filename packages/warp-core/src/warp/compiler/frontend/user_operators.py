"""Operators overloaded by user functions: ``a + b`` (and ``x += v``) calls the ``@wp.func``
named after the operator's builtin (``add``, ``sub``, ``mul``, ...) that is visible where the
kernel or function is defined, when one of its overloads accepts the operands; otherwise the
builtin operator applies (NVIDIA Warp's operator overloading, for structs and any other type).
Inside an overload's own body the operator does not call that overload again (``x + y`` in
``def add(x: float, y: float)`` is the builtin addition)."""

from __future__ import annotations

import ast
from typing import Any

from warp.compiler import ir as wir
from warp.compiler.frontend.calls import bind_overload
from warp.errors import WarpCodegenTypeError


def operator_function(builder: Any, name: str) -> Any:
    """The ``@wp.func`` named ``name`` visible from the code being translated, or None."""
    fn = builder.source.closure.get(name, builder.source.globals.get(name))
    return fn if callable(getattr(fn, "ordered_overloads", None)) else None


def user_operator(builder: Any, name: str, args: list[wir.Value], node: ast.AST) -> wir.Value | None:
    """The result of the user's overload of operator ``name`` for ``args``; None when no
    ``@wp.func`` of that name accepts them (the builtin operator applies)."""
    fn = operator_function(builder, name)
    if fn is None:
        return None
    bound = bind_overload(builder, fn, args, skip=builder.source.func)
    if bound is None:
        return None
    return call_operator(builder, fn, name, *bound, node)


def call_operator(
    builder: Any, fn: Any, name: str, overload: Any, values: list[wir.Value], node: ast.AST
) -> wir.Value:
    """Emit the call of ``fn``'s ``overload`` standing for operator ``name``."""
    spec = fn.specialization(overload, tuple(a.type for a in values))
    op = builder.emit("call_func", values, spec.return_types, func=spec)
    if len(op.results) != 1:
        raise builder.error(
            f"'{name}' overloading an operator must return one value", WarpCodegenTypeError, node
        )
    return op.result
