"""Source of a Python function: its AST, file, line numbers and the names it can see."""

from __future__ import annotations

import ast
import hashlib
import inspect
import os
import textwrap
import time
import tokenize
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

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
        return lookup_name(self.globals, self.closure, name)


class _FileText:
    """Text of a source file as read once, with the extents of its functions (parsed on demand)."""

    def __init__(self, text: str):
        self.text = text
        self._lines: list[str] | None = None
        self._extents: dict[tuple[str, int], int] | None = None
        self._digest: str | None = None

    def digest(self) -> str:
        """sha256 hex digest of the text (computed once)."""
        if self._digest is None:
            self._digest = hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()
        return self._digest

    def cut(self, first: int, end: int) -> str:
        """Lines ``first`` to ``end`` (1-based, inclusive), as :meth:`function` returns them."""
        if self._lines is None:
            self._lines = self.text.splitlines()
        return "\n".join(self._lines[first - 1 : end]) + "\n"

    def end_line(self, name: str, first: int) -> int | None:
        """Last line of the function ``name`` whose first line (decorators included) is ``first``."""
        if self._extents is None:
            extents = {}
            for node in _statements(ast.parse(self.text)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
                    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                    extents[(node.name, start)] = node.end_lineno
            self._extents = extents
        return self._extents.get((name, first))

    def function(self, name: str, first: int) -> str | None:
        """Source of the function ``name`` whose first line (decorators included) is ``first``."""
        end = self.end_line(name, first)
        return None if end is None else self.cut(first, end)


#: the fields of AST nodes that hold statements (``def`` can only appear among statements)
_STATEMENT_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """Every statement of ``tree``, nested ones included (not the expressions: only statements
    can define functions, so this finds every ``def`` in a fraction of ``ast.walk``'s time)."""
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        for name in _STATEMENT_FIELDS:
            children = getattr(node, name, None)
            if isinstance(children, list):
                todo.extend(children)


# file -> ((mtime ns, size), when it was read (ns), text): read once per version of the file
_files: dict[str, tuple[tuple[int, int], int, _FileText]] = {}
#: A file whose modification time is this close to when it was read may have been written again
#: within the same timestamp tick (rewritten and ``importlib.reload``-ed at once): its stamp
#: alone cannot tell, so it is read again and compared (git's "racy" entries).
_RACY_NS = 2_000_000_000
# function -> (file, first line, text of its file) as they were when it was defined
_Captured = tuple[str, int, _FileText]
_captured: weakref.WeakKeyDictionary[Callable[..., Any], _Captured] = weakref.WeakKeyDictionary()
_UNREADABLE = (OSError, TypeError, SyntaxError, ValueError, UnicodeDecodeError, tokenize.TokenError)


def _file_text(file: str) -> _FileText:
    st = os.stat(file)
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _files.get(file)
    if cached is not None and cached[0] == stamp and stamp[0] < cached[1] - _RACY_NS:
        return cached[2]
    read_at = time.time_ns()
    with open(file, encoding="utf-8") as fh:
        text = fh.read()
    if cached is not None and cached[0] == stamp and cached[2].text == text:
        _files[file] = (stamp, read_at, cached[2])  # unchanged: keep its parse
        return cached[2]
    _files[file] = (stamp, read_at, _FileText(text))
    return _files[file][2]


def _function_lines(func: Callable[..., Any]) -> tuple[str, int, str]:
    """(file, first line, source text) of ``func``: from its file as captured at definition
    (else as it is now), parsed once per file and cut at the parser's ``end_lineno``; faster
    than ``inspect.getsource`` (no tokenizer). Falls back to ``inspect`` for code without a
    readable file.
    """
    first = func.__code__.co_firstlineno
    captured = _captured.get(func)
    try:
        file, text = (captured[0], captured[2]) if captured is not None else (_source_file(func), None)
        source = (text or _file_text(file)).function(func.__name__, first)
        if source is not None:
            return file, first, source
    except (OSError, SyntaxError, ValueError):
        pass
    raw, first = inspect.getsourcelines(func)
    return inspect.getsourcefile(func) or "<unknown>", first, "".join(raw)


def function_file(func: Callable[..., Any]) -> tuple[str, _FileText] | None:
    """(file, text of the file) that :func:`read_source` cuts ``func``'s source from: as captured
    at definition, else as the file is now; None where there is no readable file."""
    captured = _captured.get(func)
    if captured is not None:
        return captured[0], captured[2]
    try:
        file = _source_file(func)
        return file, _file_text(file)
    except _UNREADABLE:
        return None


def lookup_name(globals_ns: dict[str, Any], closure: dict[str, Any], name: str) -> tuple[bool, Any]:
    """Resolve a free name: closure cell, then module global, then Python builtin."""
    if name in closure:
        return True, closure[name]
    if name in globals_ns:
        return True, globals_ns[name]
    builtins_ns = globals_ns.get("__builtins__", __builtins__)
    if isinstance(builtins_ns, dict):
        if name in builtins_ns:
            return True, builtins_ns[name]
    elif hasattr(builtins_ns, name):
        return True, getattr(builtins_ns, name)
    return False, None


def closure_of(func: Callable[..., Any]) -> dict[str, Any]:
    """The filled closure cells of ``func`` by name."""
    closure = {}
    if func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # empty cell
                pass
    return closure


def _source_file(func: Callable[..., Any]) -> str:
    return inspect.getsourcefile(func) or ""


def capture_source(func: Callable[..., Any]) -> None:
    """Keep the text of ``func``'s file as it is now, when ``func`` is defined (as NVIDIA Warp does).

    What compiles later is what was imported: editing or deleting the module file between
    the definition and the first launch changes nothing. Only the file is read here (once per
    file); it is parsed when a function of it is first compiled. A file that cannot be read
    now is looked up again (and reported) at compile time.
    """
    if func in _captured:
        return
    try:
        file = _source_file(func)
        _captured[func] = (file, func.__code__.co_firstlineno, _file_text(file))
    except _UNREADABLE:
        pass


def read_source(func: Callable[..., Any]) -> SourceInfo:
    """Parse the source of ``func`` (a plain Python function) for compilation."""
    try:
        file, first_line, raw = _function_lines(func)
    except _UNREADABLE as exc:
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
    closure = closure_of(func)
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
