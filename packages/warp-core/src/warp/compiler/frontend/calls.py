"""Binding the arguments of a call to a user ``@wp.func`` and choosing its overload."""

from __future__ import annotations

import ast
import re
from hashlib import sha256
from typing import Any

from warp.compiler import ir
from warp.compiler.annotations import is_generic
from warp.compiler.registry import match_type
from warp.errors import NativeSnippetError, WarpCodegenTypeError
from warp.types.array_type import ArrayType
from warp.types.scalars import type_repr


def accepts(param_type: Any, arg: ir.Value) -> Any:
    """The type ``arg`` takes when passed to a parameter of ``param_type``, or None if it can't."""
    actual = arg.type
    if isinstance(param_type, ArrayType):
        if not isinstance(actual, ArrayType) or actual.ndim != param_type.ndim:
            return None
        if is_generic(param_type.dtype):
            return actual if match_type(param_type.dtype, actual.dtype, {}) else None
        return actual if actual.dtype == param_type.dtype else None
    if is_generic(param_type):
        return actual if match_type(param_type, actual, {}) else None
    if actual == param_type:
        return actual
    if arg.weak and getattr(param_type, "_kind_", None) in _LITERAL_TARGETS.get(
        getattr(actual, "_kind_", None), ()
    ):
        return param_type
    generic_match = getattr(param_type, "__match_type__", None)
    if generic_match is not None and generic_match(actual, {}):
        return actual
    return None


_LITERAL_TARGETS: dict[str | None, tuple[str, ...]] = {"float": ("float",), "int": ("int", "uint")}


def bind_user_call(builder: Any, fn: Any, node: ast.Call) -> tuple[Any, list[ir.Value]]:
    """Pick the overload of ``fn`` matching the call and return it with the final argument values."""
    if getattr(fn, "native_snippet", None) is not None:
        raise builder.error(
            f"'{fn.name}' is a @wp.func_native function (a C++/CUDA snippet); native snippets cannot be "
            "compiled by this implementation (kernels are compiled from Python source through LLVM): "
            "write the function as a @wp.func",
            NativeSnippetError,
            node,
        )
    if any(k.arg is None for k in node.keywords):
        raise builder.error(
            f"cannot call '{fn.name}' with **mapping arguments in kernels: pass name=value",
            WarpCodegenTypeError,
            node,
        )
    positional = [builder.value(a) for a in node.args]
    keywords = {k.arg: builder.value(k.value) for k in node.keywords if k.arg is not None}
    return bind_values(builder, fn, positional, keywords, node)


def bind_values(
    builder: Any, fn: Any, positional: list[ir.Value], keywords: dict[str, ir.Value], node: ast.AST
) -> tuple[Any, list[ir.Value]]:
    """The overload of ``fn`` accepting these argument values, with the values it takes."""
    errors = []
    for overload in fn.ordered_overloads():
        bound = _bind(builder, overload, positional, keywords)
        if isinstance(bound, str):
            errors.append(bound)
            continue
        return overload, bound
    got = ", ".join(type_repr(a.type) for a in positional)
    detail = "; ".join(errors)
    raise builder.error(
        f"cannot call '{fn.name}' with arguments ({got}): {detail}", WarpCodegenTypeError, node
    )


def _bind(builder: Any, overload: Any, positional: list[ir.Value], keywords: dict[str, ir.Value]) -> Any:
    names = overload.param_names
    if len(positional) > len(names):
        return f"takes {len(names)} arguments but {len(positional)} were given"
    values: dict[str, Any] = dict(zip(names, positional))
    for k, v in keywords.items():
        if k not in names:
            return f"unexpected keyword argument '{k}'"
        if k in values:
            return f"got multiple values for argument '{k}'"
        values[k] = v
    args = []
    for name, ptype in zip(names, overload.param_types):
        if name not in values:
            if name not in overload.defaults:
                return f"missing argument '{name}'"
            default = builder.python_value(overload.defaults[name])
            if default is None:
                return f"default value of '{name}' is not a constant scalar"
            values[name] = default
        arg = values[name]
        final = accepts(ptype, arg)
        if final is None:
            return f"argument '{name}' expects {type_repr(ptype)}, got {type_repr(arg.type)}"
        args.append(builder.coerce(arg, final) if arg.weak else arg)
    return args


def function_symbol(prefix: str, name: str, arg_types: list[Any]) -> str:
    """The LLVM symbol of function ``name`` specialized for ``arg_types`` (unique per types)."""
    digest = sha256(repr([type_repr(t) for t in arg_types]).encode()).hexdigest()[:10]
    return f"{prefix}_{re.sub(r'[^0-9A-Za-z_]', '_', name)}_{digest}"
