"""Values of ``wp.static(expr)`` expressions, evaluated once per function.

As in NVIDIA Warp, an expression that reads no local variable of its function is evaluated once,
when the kernel or function is declared (or, if it cannot be evaluated yet, e.g. it names a global
defined later, at the first compile), and keeps that value: the cache key, the code and every
later compile see the same value, and a side-effecting expression runs once. An expression that
reads local variables (loop variables of unrolled loops) is evaluated where it is compiled.
"""

from __future__ import annotations

import ast
import weakref
from typing import Any, Callable

#: function -> {position of the expression in its source: value}
_VALUES: weakref.WeakKeyDictionary[Any, dict[tuple[int, int, int, int], Any]] = weakref.WeakKeyDictionary()


def reads_locals(func: Any, expr: ast.expr) -> bool:
    """True if ``expr`` names a parameter or local variable of ``func``."""
    code = getattr(func, "__code__", None)
    if code is None:
        return True
    local = set(code.co_varnames) | set(code.co_cellvars)
    return any(isinstance(n, ast.Name) and n.id in local for n in ast.walk(expr))


def _position(expr: ast.expr) -> tuple[int, int, int, int]:
    return (expr.lineno, expr.col_offset, expr.end_lineno or 0, expr.end_col_offset or 0)


def static_value(func: Any, expr: ast.expr, evaluate: Callable[[], Any]) -> Any:
    """The value of ``expr`` (an argument of ``wp.static`` in ``func``'s source): ``evaluate()``
    the first time for expressions reading no local variable, the value kept since after that.
    Exceptions propagate and keep nothing (the next compile tries again)."""
    if func is None or reads_locals(func, expr):
        return evaluate()
    try:
        values = _VALUES.setdefault(func, {})
    except TypeError:  # not weak-referenceable
        return evaluate()
    key = _position(expr)
    if key not in values:
        values[key] = evaluate()
    return values[key]


def has_static_value(func: Any, expr: ast.expr) -> bool:
    """True if ``expr`` (at its position in ``func``'s source) is a ``wp.static`` argument whose
    value was kept (see :func:`static_value`): the call stays static even if the name it was
    called through (an alias of ``wp.static``) has been rebound since."""
    try:
        values = _VALUES.get(func)
    except TypeError:
        return False
    return values is not None and _position(expr) in values


def outermost_static_calls(tree: ast.AST, is_static: Callable[[ast.Call], bool]) -> list[ast.Call]:
    """The ``wp.static(...)`` calls of a function body that are not inside another one."""
    found: list[ast.Call] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and is_static(node):
            found.append(node)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found
