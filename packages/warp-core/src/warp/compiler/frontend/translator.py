"""The translator: one visitor over a function's AST producing an :class:`ir.Function`."""

from __future__ import annotations

import ast
import re
from typing import Any

from warp.compiler import ir
from warp.compiler.frontend.builder import PyObj
from warp.compiler.frontend.calls import function_symbol
from warp.compiler.frontend.statements import KERNEL_RETURN_ERROR, StatementsMixin
from warp.compiler.source import read_source
from warp.errors import WarpCodegenError, WarpCodegenTypeError
from warp.types.scalars import type_repr
from warp.compiler.verify import verify_function
from warp.compiler.annotations import is_generic


class Translator(StatementsMixin):
    """Translates one kernel or one specialization of a user function."""

    def __init__(self, source: Any, name: str, is_kernel: bool):
        super().__init__(source, name)
        self.is_kernel = is_kernel


def build_function(fn: Any, overload: Any, arg_types: list[Any], *, is_kernel: bool = False) -> ir.Function:
    """Translate ``overload`` (a FunctionOverload of a Function or Kernel) for ``arg_types``."""
    source = overload.transformed if overload.transformed is not None else read_source(overload.pyfunc)
    t = Translator(source, fn.name, is_kernel)
    params, param_names, bound = _parameters(overload.param_names, arg_types)
    body = ir.Region(params=[])
    declared = overload.return_annotation
    if declared is not None and declared is not type(None):
        declared = list(declared) if isinstance(declared, tuple) else [declared]
        if not any(is_generic(d) for d in declared):  # -> Any (generic functions): inferred
            t.return_types = declared
            returns = getattr(source.tree, "returns", None)
            if returns is not None:
                t.return_annotation = re.sub(r"\b(wp|warp)\.", "", ast.unparse(returns))
    t.node = source.tree
    with t.enter(body, bound) as scope:
        t.block(source.tree.body)
        if not scope.terminated:
            if t.return_types and not is_kernel:
                raise WarpCodegenTypeError(
                    f"function '{fn.name}' can reach its end without returning a "
                    f"{', '.join(type_repr(r) for r in t.return_types)} value",
                    function=fn.name,
                    loc=source.loc(source.tree.body[-1]),
                )
            body.ops.append(ir.Op("return", [], loc=source.loc(source.tree.body[-1])))
    result = ir.Function(
        name=fn.name,
        params=params,
        param_names=param_names,
        body=body,
        return_types=list(t.return_types or []),
        is_kernel=is_kernel,
        loc=source.loc(source.tree),
        symbol=function_symbol(
            "wp_kernel" if is_kernel else "wp_func",
            getattr(fn, "symbol_key", None) or getattr(fn, "key", fn.name),
            arg_types,
        ),
        origin=None if is_kernel else fn,
    )
    verify_function(result)
    return result


def _parameters(names: list[str], arg_types: list[Any]) -> tuple[list[ir.Value], list[str], dict[str, Any]]:
    """The IR parameters, their names, and what each Python parameter name is bound to: a value,
    or for a tuple parameter (argument type: a tuple of types) the tuple of its items' values."""
    params: list[ir.Value] = []
    param_names: list[str] = []
    bound: dict[str, Any] = {}
    for name, ty in zip(names, arg_types):
        if isinstance(ty, tuple):
            items = [ir.Value(item, f"{name}_{i}") for i, item in enumerate(ty)]
            params += items
            param_names += [f"{name}_{i}" for i in range(len(items))]
            bound[name] = PyObj(tuple(items))
        else:
            bound[name] = ir.Value(ty, name)
            params.append(bound[name])
            param_names.append(name)
    return params, param_names, bound


def build_kernel(kernel: Any) -> ir.Function:
    """Translate a ``@wp.kernel`` (or an instance of a generic one) with its concrete parameter types."""
    for name, t in zip(kernel.arg_names, kernel.arg_types):
        if is_generic(t):
            raise WarpCodegenError(
                f"kernel parameter '{name}' has a generic type ({type_repr(t)}); kernels need concrete types",
                function=kernel.name,
            )
    if kernel.overload.return_annotation not in (None, type(None)):
        raise WarpCodegenTypeError(KERNEL_RETURN_ERROR, function=kernel.name)
    return build_function(kernel, kernel.overload, list(kernel.arg_types), is_kernel=True)
