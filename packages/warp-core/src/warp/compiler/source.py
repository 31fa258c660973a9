"""Source of a Python function: its AST, file, line numbers and the names it can see."""

from __future__ import annotations

import ast
import inspect
import os
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable

from warp.errors import SourceLoc, WarpCodegenError


@dataclass
class SourceInfo:
    """Parsed source of one Python function."""

    func: Callable[..., Any] | None  # None for code with no Python function (python-scope shims)
    source: str
    tree: ast.FunctionDef | ast.AsyncFunctionDef
    file: str
    first_line: int
    lines: list[str]
    globals: dict[str, Any]
    closure: dict[str, Any] = field(default_factory=dict)

    def loc(self, node: ast.AST | None) -> SourceLoc:
        """Source location of an AST node (file, absolute line, text of the line)."""
        lineno = getattr(node, "lineno", 1) if node is not None else 1
        text = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        return SourceLoc(self.file, self.first_line + lineno - 1, text, getattr(node, "col_offset", 0))

    def lookup(self, name: str) -> tuple[bool, Any]:
        """Resolve a free name: closure cell, then module global, then Python builtin."""
        if name in self.closure:
            return True, self.closure[name]
        if name in self.globals:
            return True, self.globals[name]
        builtins_ns = self.globals.get("__builtins__", __builtins__)
        if isinstance(builtins_ns, dict):
            if name in builtins_ns:
                return True, builtins_ns[name]
        elif hasattr(builtins_ns, name):
            return True, getattr(builtins_ns, name)
        return False, None


_file_trees: dict[str, tuple[float, list[str], ast.Module]] = {}


def _function_lines(func: Callable[..., Any]) -> tuple[str, int, str]:
    """(file, first line, source text) of ``func``, using a cached AST of its whole file.

    Faster than ``inspect.getsource`` (no tokenizer) and exact: the extent comes from the
    parser's ``end_lineno``. Falls back to ``inspect`` for code without a readable file.
    """
    file = inspect.getsourcefile(func) or ""
    first = func.__code__.co_firstlineno
    try:
        mtime = os.stat(file).st_mtime
        cached = _file_trees.get(file)
        if cached is None or cached[0] != mtime:
            with open(file, encoding="utf-8") as fh:
                text = fh.read()
            cached = (mtime, text.splitlines(), ast.parse(text))
            _file_trees[file] = cached
        _, lines, tree = cached
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == func.__name__:
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if start == first:
                    return file, first, "\n".join(lines[start - 1 : node.end_lineno]) + "\n"
    except (OSError, SyntaxError, ValueError):
        pass
    raw, first = inspect.getsourcelines(func)
    return file or "<unknown>", first, "".join(raw)


def read_source(func: Callable[..., Any]) -> SourceInfo:
    """Parse the source of ``func`` (a plain Python function) for compilation."""
    try:
        file, first_line, raw = _function_lines(func)
    except (OSError, TypeError) as exc:
        raise WarpCodegenError(
            f"cannot read the source of '{func.__qualname__}': {exc}. Kernels and functions are compiled "
            "from their source file: define them in a .py file and import or run it (code typed at "
            "the interactive prompt or passed with `python -c` has no source file to read)"
        ) from None
    source = textwrap.dedent(raw)
    module = ast.parse(source)
    tree = next((n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if tree is None:
        raise WarpCodegenError(f"'{func.__qualname__}' is not defined with 'def'")
    closure = {}
    if func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # empty cell
                pass
    return SourceInfo(
        func=func,
        source=source,
        tree=tree,
        file=file,
        first_line=first_line,
        lines=source.splitlines(),
        globals=func.__globals__,
        closure=closure,
    )
