"""Helpers of the layering tests (tests/core/test_layers.py, tests/plugins/test_plugin_layers.py):
scanning a module's imports, resolving an imported name to a module of the scanned packages, and
finding import cycles."""

from __future__ import annotations

import ast
from pathlib import Path


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def scan_imports(module: str, path: Path, modules: dict[str, Path]) -> list[tuple[int, str, bool]]:
    """(line, imported name, inside a function) of each import ``module`` (at ``path``) runs
    (``if TYPE_CHECKING:`` blocks left out); relative imports are made absolute, and a
    ``from package import name`` names the submodule when ``name`` is one of ``modules``."""
    found: list[tuple[int, str, bool]] = []
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]

    def names(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            return [alias.name for alias in node.names]
        base = node.module or ""
        if node.level:
            base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
        return [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit_node(other, in_function)
            else:
                visit_node(child, in_function)

    def visit_node(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.extend((node.lineno, name, in_function) for name in names(node))
        else:
            visit(node, in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def resolve_module(name: str, modules: dict[str, Path]) -> str:
    """The longest prefix of the dotted ``name`` that is one of ``modules`` (else its first part)."""
    while name not in modules and "." in name:
        name = name.rpartition(".")[0]
    return name


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found
