"""Binding the arguments of a call to a user ``@wp.func`` and choosing its overload."""

from __future__ import annotations

import ast
import re
from hashlib import sha256
from typing import Any

from warp.compiler import ir
from warp.compiler.annotations import TupleParam, is_generic
from warp.compiler.frontend.pyobj import PyObj
from warp.compiler.registry import match_type
from warp.errors import NativeSnippetError, WarpCodegenTypeError
from warp.types.array_type import ArrayType
from warp.types.scalars import type_repr


def accepts(param_type: Any, arg: Any) -> Any:
    """The type ``arg`` takes when passed to a parameter of ``param_type``, or None if it can't.

    ``arg`` is a value, or a tuple of values for a tuple parameter (whose type is then the
    tuple of the item types)."""
    if isinstance(arg, tuple) and param_type is Any:  # an Any parameter takes a tuple as it is
        return tuple(a.type for a in arg)
    if isinstance(param_type, TupleParam) or isinstance(arg, tuple):
        if not (isinstance(param_type, TupleParam) and isinstance(arg, tuple)):
            return None
        patterns = param_type.item_patterns(len(arg))
        if patterns is None:
            return None
        items = tuple(accepts(p, a) for p, a in zip(patterns, arg))
        return None if any(t is None for t in items) else items
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
    positional = [_argument(builder, a) for a in node.args]
    keywords = {k.arg: _argument(builder, k.value) for k in node.keywords if k.arg is not None}
    return bind_values(builder, fn, positional, keywords, node)


def bind_values(
    builder: Any, fn: Any, positional: list[Any], keywords: dict[str, Any], node: ast.AST
) -> tuple[Any, list[Any]]:
    """The overload of ``fn`` accepting these argument values (a tuple of values for a tuple
    argument), with the values it takes."""
    errors = []
    for overload in fn.ordered_overloads():
        bound = _bind(builder, overload, positional, keywords)
        if isinstance(bound, str):
            errors.append(bound)
            continue
        return overload, bound
    got = ", ".join(_type_text(a) for a in positional)
    detail = "; ".join(errors)
    raise builder.error(
        f"cannot call '{fn.name}' with arguments ({got}): {detail}", WarpCodegenTypeError, node
    )


def bind_overload(
    builder: Any, fn: Any, positional: list[ir.Value], skip: Any = None
) -> tuple[Any, list[Any]] | None:
    """The first overload of ``fn`` (other than the one defined by Python function ``skip``)
    accepting these positional values, with the values it takes; None when none does (nothing
    is reported)."""
    for overload in fn.ordered_overloads():
        if skip is not None and overload.pyfunc is skip:
            continue
        bound = _bind(builder, overload, positional, {})
        if not isinstance(bound, str):
            return overload, bound
    return None


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
            return f"argument '{name}' expects {type_repr(ptype)}, got {_type_text(arg)}"
        if isinstance(arg, tuple):
            args.append(tuple(builder.coerce(a, f) if a.weak else a for a, f in zip(arg, final)))
        else:
            args.append(builder.coerce(arg, final) if arg.weak else arg)
    return args


def _argument(builder: Any, node: ast.expr) -> Any:
    """An argument's value, or the tuple of its items' values for a tuple (``f((a, b))``, ``f(t)``)."""
    result = builder.expr(node)
    if isinstance(result, PyObj) and isinstance(result.obj, tuple):
        return tuple(_item(builder, item, node) for item in result.obj)
    return builder.as_value(result, node)


def _item(builder: Any, item: Any, node: ast.AST) -> ir.Value:
    if isinstance(item, ir.Value):
        return item
    value = builder.python_value(item.obj if isinstance(item, PyObj) else item)
    if value is None:
        raise builder.error(
            f"a tuple passed to a function holds {type(item).__name__}, which is not a kernel value",
            WarpCodegenTypeError,
            node,
        )
    return value


def _type_text(arg: Any) -> str:
    if isinstance(arg, tuple):
        return f"tuple[{', '.join(type_repr(a.type) for a in arg)}]"
    return type_repr(arg.type)


def function_symbol(prefix: str, name: str, arg_types: list[Any]) -> str:
    """The LLVM symbol of function ``name`` specialized for ``arg_types`` (unique per types)."""
    digest = sha256(repr([type_repr(t) for t in arg_types]).encode()).hexdigest()[:10]
    return f"{prefix}_{re.sub(r'[^0-9A-Za-z_]', '_', name)}_{digest}"
