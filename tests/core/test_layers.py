"""warp-core is layered without cycles, read from the source with ``ast``.

Every ``import`` counts, those inside functions included (only those under
``if TYPE_CHECKING:`` are left out: they never run). Importing ``warp.a.b`` also runs the package
module ``warp.a`` (``warp/a/__init__.py``), so that is an edge too, except from a module inside
that package (its package module has run before it) and for the root ``warp``, which every
import runs. The floors, lowest first, are those of docs/plugins.md
("How warp-core is layered"); a module may import its own floor and those below, never above,
and the graph may hold no cycle at all.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "packages" / "warp-core" / "src"

#: Floors, lowest first: (name, module prefixes). A module sits on the floor of its longest
#: matching prefix; a module no prefix matches is on the public-API floor.
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    ("leaves", (
        "warp.errors", "warp.config", "warp.constants", "warp.startup", "warp.not_provided",
        "warp.timing", "warp.plugins.install_hints",
    )),
    ("types", ("warp.types",)),
    ("compiler", ("warp.compiler", "warp.plugins", "warp.core_builtins", "warp.core_plugin")),
    ("targets", ("warp.targets",)),
    ("runtime", ("warp.runtime",)),
    ("public API", (
        "warp", "warp.runtime.launch", "warp.runtime.recorded_launch", "warp.runtime.python_builtins",
        "warp.runtime.python_shims",
    )),
]

#: Optional third-party packages: imports of these may stay inside functions.
OPTIONAL_PACKAGES = frozenset({
    "torch", "jax", "jaxlib", "paddle", "cupy", "cuda", "pxr", "pyglet", "OpenGL", "PIL", "imageio",
    "usdrt", "matplotlib", "scipy", "ctypes.util",
})


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


def _scan(module: str, path: Path, modules: dict[str, Path]) -> tuple[set[str], list[tuple[int, str]]]:
    """The warp modules ``module`` imports at run time, and the imports placed inside functions
    (line, imported name)."""
    found: set[str] = set()
    in_functions: list[tuple[int, str]] = []
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
            for name in names(node):
                if name == "warp" or name.startswith("warp."):
                    found.add(name)
                if in_function:
                    in_functions.append((node.lineno, name))
        else:
            visit(node, in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found, in_functions


def _resolve(name: str, modules: dict[str, Path]) -> str:
    while name not in modules and "." in name:
        name = name.rpartition(".")[0]
    return name


def _graph() -> dict[str, set[str]]:
    """Module -> the warp modules it runs on import or call (package modules included)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = set()
        for name in _scan(module, path, modules)[0]:
            target = _resolve(name, modules)
            targets.add(target)
            parts = target.split(".")
            for package in (".".join(parts[:i]) for i in range(2, len(parts))):
                if not (module + ".").startswith(package + "."):  # a package of the importer ran already
                    targets.add(package)
        targets.discard(module)
        graph[module] = {t for t in targets if t in modules}
    return graph


def floor_of(module: str) -> int:
    """Index in :data:`FLOORS` of the floor ``module`` sits on."""
    best, best_len = len(FLOORS) - 1, -1
    for index, (_, prefixes) in enumerate(FLOORS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
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


def test_the_scan_sees_function_level_and_package_imports():
    graph = _graph()
    assert "warp.targets.cpu.jit" in graph["warp.targets.cpu.target"]
    assert "warp.targets.cpu" in graph["warp.targets.cpu.target"]  # the package module runs first
    source = "import os\nif TYPE_CHECKING:\n    import warp.a\ndef f():\n    import warp.b\n    import torch\n"
    probe = Path(__file__).with_name("_layers_probe.py")
    try:
        probe.write_text(source, encoding="utf-8")
        found, in_functions = _scan("warp.probe", probe, {"warp.b": probe})
    finally:
        probe.unlink()
    assert found == {"warp.b"} and in_functions == [(5, "warp.b"), (6, "torch")]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert floor_of("warp.types.scalars") < floor_of("warp.compiler.ir") < floor_of("warp.targets.base")
    assert floor_of("warp.runtime.devices") < floor_of("warp.runtime.launch") == floor_of("warp.arrays")


def test_no_import_goes_up_a_floor():
    graph = _graph()
    upward = sorted(
        f"{m} ({FLOORS[floor_of(m)][0]}) -> {t} ({FLOORS[floor_of(t)][0]})"
        for m, targets in graph.items() for t in targets if floor_of(t) > floor_of(m)
    )
    assert not upward, "imports going up the floors of warp-core:\n" + "\n".join(upward)


def test_no_import_cycles():
    graph = _graph()
    cycles = _cycles(graph)
    detail = []
    for component in cycles:
        members = set(component)
        edges = sorted(f"  {m} -> {t}" for m in component for t in graph[m] if t in members)
        detail.append(f"cycle of {len(component)} modules:\n" + "\n".join(edges))
    assert not cycles, "\n".join(detail)


def test_imports_inside_functions_are_only_for_optional_packages():
    modules = _modules()
    hidden = sorted(
        f"{m}:{line} imports {name}"
        for m, path in modules.items() for line, name in _scan(m, path, modules)[1]
        if name.split(".")[0] not in OPTIONAL_PACKAGES
    )
    assert not hidden, "imports inside functions (move them to the top of the module):\n" + "\n".join(hidden)
