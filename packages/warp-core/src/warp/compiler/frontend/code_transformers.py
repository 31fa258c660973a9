"""``wp.Kernel(func, code_transformers=[...])``: a kernel compiled from its function's syntax tree
as rewritten by ``ast.NodeTransformer`` objects.

The transformers run once, when the kernel is declared, in order, each over the parsed module that
holds the function definition (``tree = transformer.visit(tree)``, as in NVIDIA Warp). The
``wp.static(expr)`` calls of the rewritten tree that read no local variable are then evaluated,
each occurrence once (a node the transformers placed at two places is evaluated at each), and their
values are kept in the tree as ``wp.static(<constant>)``; the others (those reading loop variables
of unrolled loops) are evaluated where the kernel is compiled, as in any kernel.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any, Callable, Sequence

from warp.compiler.frontend.compile_time import static, callee_object
from warp.compiler.source import SourceInfo, read_source


def transformed_source(func: Callable[..., Any], transformers: Sequence[Any]) -> SourceInfo:
    """The source of ``func`` with its tree rewritten by ``transformers`` and its ``wp.static``
    calls that read no local variable evaluated (see the module docstring).

    The result has no ``func`` (its values are not those that :mod:`warp.compiler.static_values`
    keeps for ``func``'s own source). A transformer that is not an ``ast.NodeTransformer``-like
    object, or that does not give back a module holding one function definition, is a
    ``TypeError`` naming it.
    """
    transformers = list(transformers)
    for i, transformer in enumerate(transformers):
        if not callable(getattr(transformer, "visit", None)):
            raise TypeError(
                f"code_transformers[{i}] of kernel '{func.__qualname__}' is a {type(transformer).__name__}, "
                "not an ast.NodeTransformer (an object with a visit(node) method)"
            )
    info = read_source(func)
    tree: Any = ast.Module(body=[info.tree], type_ignores=[])
    for i, transformer in enumerate(transformers):
        tree = transformer.visit(tree)
        definitions = (
            [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            if isinstance(tree, ast.Module)
            else []
        )
        if len(definitions) != 1:
            raise TypeError(
                f"code_transformers[{i}] ({type(transformer).__name__}) of kernel '{func.__qualname__}' "
                f"returned {type(tree).__name__ if not isinstance(tree, ast.Module) else 'a module'} "
                "instead of the module holding the kernel's one function definition"
            )
    ast.fix_missing_locations(tree)
    definition = _StaticBaker(func, info, definitions[0]).visit(definitions[0])
    return dataclasses.replace(info, func=None, tree=definition)


class _StaticBaker(ast.NodeTransformer):
    """Replaces each ``wp.static(expr)`` reading no local variable by ``wp.static(<its value>)``
    (a new node per occurrence); one that fails now is left to report its error when compiled."""

    def __init__(self, func: Callable[..., Any], info: SourceInfo, definition: ast.AST):
        self.info = info
        self.namespace = {**info.globals, **info.closure}
        #: the function's local variables: its own, and those the transformers introduced
        self.local_names = set(func.__code__.co_varnames) | set(func.__code__.co_cellvars)
        for n in ast.walk(definition):
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                self.local_names.add(n.id)
            elif isinstance(n, ast.arg):
                self.local_names.add(n.arg)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if not (len(node.args) == 1 and not node.keywords and callee_object(node.func, self.info) is static):
            return self.generic_visit(node)
        expr = node.args[0]
        if isinstance(expr, ast.Constant):
            return node  # a literal, or a value baked already (a node reached twice)
        if any(isinstance(n, ast.Name) and n.id in self.local_names for n in ast.walk(expr)):
            return node  # evaluated per use when compiled (nested statics with it)
        try:
            value = eval(compile(ast.Expression(body=expr), self.info.file, "eval"), self.namespace)  # noqa: S307
        except Exception:  # noqa: BLE001 - compiling evaluates it again and reports the error with its location
            return node
        baked = ast.copy_location(ast.Constant(value=value), expr)
        return ast.copy_location(ast.Call(func=node.func, args=[baked], keywords=[]), node)


__all__ = ["transformed_source"]
