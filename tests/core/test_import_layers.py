"""Import layering of warp-core, read from the source (imports inside functions included, those
under ``if TYPE_CHECKING:`` left out): the targets build only on the compiler and the types, and
nothing below the targets imports them."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "packages" / "warp-core" / "src"

#: what ``warp.targets`` may import from warp: the compiler, the type system and the leaf modules
#: (errors, settings, and the table of install commands that error messages quote)
TARGETS_MAY_IMPORT = (
    "warp.targets", "warp.compiler", "warp.types", "warp.errors", "warp.config", "warp.plugins.install_hints",
)
#: upward imports still there, each a known debt: the Python-scope CUDA stream and peer-access API
#: resolves device arguments (``"cuda:1"``) with the runtime's device table
KNOWN_UPWARD = {
    ("warp.targets.cuda.peer", "warp.runtime.devices"),
    ("warp.targets.cuda.streams", "warp.runtime.devices"),
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in (SRC / "warp").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The warp modules ``module`` imports at run time."""
    found: set[str] = set()
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit_node(other)
            else:
                visit_node(child)

    def visit_node(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in modules else base)
        else:
            visit(node)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {name for name in found if name == "warp" or name.startswith("warp.")}


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _edges() -> set[tuple[str, str]]:
    modules = _modules()
    return {(m, imported) for m, path in modules.items() for imported in _imports(m, path, modules)}


def test_the_scan_sees_function_level_imports():
    edges = _edges()
    assert ("warp.targets.cuda.streams", "warp.runtime.devices") in edges  # imported inside a function
    assert ("warp.targets.cpu.target", "warp.targets.cpu.jit") in edges
    assert not any(m == "warp.compiler.options" and i.startswith("warp.targets") for m, i in edges)


def test_targets_build_only_on_the_compiler_and_the_types():
    upward = {
        (m, i) for m, i in _edges()
        if _within(m, ("warp.targets",)) and not _within(i, TARGETS_MAY_IMPORT)
    }
    assert upward - KNOWN_UPWARD == set(), "warp.targets imports from above the compiler"
    assert KNOWN_UPWARD - upward == set(), "a known upward import is gone: remove it from KNOWN_UPWARD"


def test_nothing_below_the_targets_imports_them():
    below = ("warp.compiler", "warp.types", "warp.errors", "warp.config")
    assert {(m, i) for m, i in _edges() if _within(m, below) and _within(i, ("warp.targets",))} == set()
