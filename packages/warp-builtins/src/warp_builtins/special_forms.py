"""Builtins taking compile-time arguments (``wp.quat_identity(dtype=wp.float64)``).

The builtin registry resolves calls by argument *types*; a few builtins instead take a type as
an argument, or build a value whose type follows from a keyword. They are Python objects
exported on ``wp`` (through the ``warp_exports`` hook) with a ``_wp_call_(builder, node)``
method that the kernel frontend calls, and a ``__call__`` for Python scope. They are *not*
registry entries (a registry name would shadow the object inside kernels).

Each carries ``_wp_builtin_doc_`` (group, signatures, one-line description) so the generated
builtin reference lists them next to the registry's builtins.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

from warp.extending import (
    canonical_type,
    compile_time_object,
    composite_value,
    float32,
    ir,
    is_composite,
    is_scalar_type,
    type_repr,
    WarpCodegenTypeError,
)


class SpecialForm:
    """A kernel builtin with compile-time arguments; callable in kernels and in Python."""

    def __init__(
        self,
        name: str,
        *,
        kernel: Callable[[Any, ast.Call], Any],
        python: Callable[..., Any],
        group: str,
        doc: str,
        signatures: list[str],
    ):
        self.name = name
        self._kernel = kernel
        self._python = python
        self._wp_builtin_doc_ = {"group": group, "doc": doc, "signatures": list(signatures)}
        self.__doc__ = doc

    def _wp_call_(self, builder: Any, node: ast.Call) -> Any:
        return self._kernel(builder, node)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._python(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<warp builtin {self.name}>"


def compile_time_type(builder: Any, node: ast.expr) -> Any:
    """The type named by ``node`` (``wp.float64``, ``float``, ``wp.quatd``) at compile time."""
    obj = compile_time_object(builder, node)
    try:
        t = canonical_type(obj)
    except TypeError:  # unhashable: not a type
        t = None
    if t is None or not (is_scalar_type(t) or is_composite(t)):
        raise builder.error(f"'{ast.unparse(node)}' is not a type", WarpCodegenTypeError, node)
    return t


def float_dtype(builder: Any, node: ast.expr) -> Any:
    """A float scalar type given as a compile-time argument."""
    t = compile_time_type(builder, node)
    if not (is_scalar_type(t) and t._kind_ == "float"):
        raise builder.error(f"dtype must be a float type, got {type_repr(t)}", WarpCodegenTypeError, node)
    return t


def split_call(builder: Any, node: ast.Call, name: str) -> tuple[list[ast.expr], Any]:
    """Positional argument nodes and the ``dtype=`` keyword (a float type or None)."""
    dtype = None
    for kw in node.keywords:
        if kw.arg != "dtype":
            raise builder.error(
                f"{name}() got an unexpected keyword argument '{kw.arg}'", WarpCodegenTypeError, node
            )
        dtype = float_dtype(builder, kw.value)
    return list(node.args), dtype


def inferred_dtype(values: list[ir.Value]) -> Any:
    """The float type of the first typed (non-literal) float argument, float32 if none."""
    for v in values:
        s = v.type._wp_scalar_type_ if is_composite(v.type) else v.type
        if not v.weak and is_scalar_type(s) and s._kind_ == "float":
            return s
    return float32


def python_dtype(args: tuple, dtype: Any) -> Any:
    """Python-scope counterpart of :func:`inferred_dtype`."""
    if dtype is not None:
        return canonical_type(dtype)
    for a in args:
        t = type(a)
        s = getattr(t, "_wp_scalar_type_", None) or (t if is_scalar_type(t) else None)
        if s is not None and s._kind_ == "float":
            return s
    return float32


__all__ = ["SpecialForm", "compile_time_type", "float_dtype", "inferred_dtype", "python_dtype", "split_call"]


def identity_kernel(
    name: str, make_type: Callable[[Any], type], components: tuple[float, ...]
) -> Callable[..., Any]:
    """Kernel side of ``name(dtype=float32)``: a constant of ``make_type(dtype)`` with ``components``."""

    def kernel(builder: Any, node: ast.Call) -> Any:
        args, dtype = split_call(builder, node, name)
        if len(args) > 1:
            raise builder.error(f"{name}() takes at most one argument (dtype)", node=node)
        if args:
            dtype = float_dtype(builder, args[0])
        return builder.const(components, make_type(dtype or float32))

    return kernel


def constructor_kernel(name: str, make_type: Callable[[Any], type]) -> Callable[..., Any]:
    """Kernel form of ``name(*values, dtype=...)``: a ``make_type(dtype)`` value; dtype may be inferred."""

    def kernel(builder: Any, node: ast.Call) -> Any:
        arg_nodes, dtype = split_call(builder, node, name)
        values = [builder.value(a) for a in arg_nodes]
        return composite_value(builder, make_type(dtype or inferred_dtype(values)), values, node)

    return kernel
