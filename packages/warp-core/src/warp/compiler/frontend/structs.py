"""Kernel-side struct values: ``S()``, ``s.field`` reads and ``s.field = v`` updates."""

from __future__ import annotations

import ast
from typing import Any

from warp.compiler import ir as wir
from warp.compiler.frontend.calls import bind_values
from warp.compiler.frontend.user_operators import call_operator, operator_function
from warp.compiler.value_ops import GET_FIELD, SET_FIELD
from warp.errors import WarpCodegenAttributeError, WarpCodegenTypeError
from warp.types.struct import StructBase
from warp.types.scalars import type_repr


def construct(builder: Any, cls: type[StructBase], node: ast.Call) -> wir.Value:
    """``S()`` (all fields zero), ``S(a, b)`` (fields in declaration order) or ``S(field=value, ...)``."""
    if len(node.args) > len(cls._fields_):
        raise builder.error(
            f"struct {cls.__name__}() takes at most {len(cls._fields_)} positional arguments "
            f"(its fields), got {len(node.args)}",
            WarpCodegenTypeError,
            node,
        )
    value = builder.const(None, cls)
    for (name, _), arg in zip(cls._fields_, node.args):
        value = set_field(builder, value, name, builder.value(arg), arg)
    given = {name for name, _ in cls._fields_[: len(node.args)]}
    for kw in node.keywords:
        if kw.arg in given:
            raise builder.error(
                f"struct {cls.__name__}() got multiple values for field '{kw.arg}'",
                WarpCodegenTypeError,
                node,
            )
        if kw.arg is None:
            raise builder.error(
                f"struct {cls.__name__}() takes field=value arguments, not **mapping",
                WarpCodegenTypeError,
                node,
            )
        value = set_field(builder, value, kw.arg, builder.value(kw.value), node)
    return value


def _field(builder: Any, cls: type[StructBase], attr: str, node: ast.AST) -> tuple[int, Any]:
    for i, (name, t) in enumerate(cls._fields_):
        if name == attr:
            return i, t
    # s.field: name the value as written, as NVIDIA Warp does
    what = f"'{ast.unparse(node.value)}' " if isinstance(node, ast.Attribute) else ""
    raise builder.error(
        f"struct {cls.__name__} has no field '{attr}': `{attr}` is not an attribute of "
        f"{what}({cls.__module__}.{cls.__qualname__})",
        WarpCodegenAttributeError,
        node,
    )


def get_field(builder: Any, value: wir.Value, attr: str, node: ast.AST) -> wir.Value:
    index, t = _field(builder, value.type, attr, node)
    return builder.emit("call", [value], [t], overload=GET_FIELD, field=index).result


def set_field(builder: Any, value: wir.Value, attr: str, new: wir.Value, node: ast.AST) -> wir.Value:
    index, t = _field(builder, value.type, attr, node)
    if new.weak and getattr(t, "_kind_", None) in ("float", "int", "uint"):
        new = builder.coerce(new, t)
    if new.type != t:
        raise builder.error(
            f"field '{attr}' of struct {value.type.__name__} is {type_repr(t)}, got {type_repr(new.type)}",
            WarpCodegenTypeError,
            node,
        )
    return builder.emit("call", [value, new], [value.type], overload=SET_FIELD, field=index).result


def struct_operator(builder: Any, name: str, args: list[wir.Value], node: ast.AST) -> wir.Value:
    """``a + b`` on structs: the ``@wp.func`` named after the operator's builtin (``add``, ``mul``,
    ...) that is visible where the kernel is defined, as NVIDIA Warp overloads operators."""
    fn = operator_function(builder, name)
    if fn is None:
        got = ", ".join(type_repr(a.type) for a in args)
        raise builder.error(
            f"operator '{name}' has no definition for ({got}): define a @wp.func named '{name}' taking "
            "these types to overload it",
            WarpCodegenTypeError,
            node,
        )
    overload, values = bind_values(builder, fn, args, {}, node)
    return call_operator(builder, fn, name, overload, values, node)
