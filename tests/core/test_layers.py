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

from pathlib import Path
from import_graph import import_cycles, resolve_module, scan_imports

SRC = Path(__file__).resolve().parents[2] / "packages" / "warp-core" / "src"

#: Floors, lowest first: (name, module prefixes). A module sits on the floor of its longest
#: matching prefix; a module no prefix matches is on the public-API floor.
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    (
        "leaves",
        (
            "warp.errors",
            "warp.config",
            "warp.constants",
            "warp.startup",
            "warp.not_provided",
            "warp.plugins.install_hints",
        ),
    ),
    ("types", ("warp.types",)),
    ("compiler", ("warp.compiler", "warp.plugins", "warp.core_builtins", "warp.core_plugin")),
    ("targets", ("warp.targets",)),
    ("runtime", ("warp.runtime",)),
    (
        "public API",
        (
            # the Python-scope front doors kept in runtime/: wp.launch, wp.Launch, wp.capture_*, builtins
            # called from Python; they handle arrays and kernels, which sit on this floor
            "warp",
            "warp.runtime.launch",
            "warp.runtime.launcher",
            "warp.runtime.recorded_launch",
            "warp.runtime.launch_args",
            "warp.runtime.launch_debug",
            "warp.runtime.launch_packers",
            "warp.runtime.capture",
            "warp.runtime.python_builtins",
            "warp.runtime.python_shims",
        ),
    ),
]

#: Imports that still break the rules, each a known debt with its reason (docs/core-layers.md,
#: "Known debt"): none now. The tests fail on any other break, and on an entry no longer needed.
KNOWN_DEBT: dict[tuple[str, str], str] = {}


def _modules() -> dict[str, Path]:
    found = {}
    for path in (SRC / "warp").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _scan(module: str, path: Path, modules: dict[str, Path]) -> tuple[set[str], list[tuple[int, str]]]:
    """The warp modules ``module`` imports at run time, and the imports placed inside functions
    (line, imported name)."""
    imports = scan_imports(module, path, modules)
    found = {name for _, name, _ in imports if name == "warp" or name.startswith("warp.")}
    return found, [(line, name) for line, name, in_function in imports if in_function]


def _graph() -> dict[str, set[str]]:
    """Module -> the warp modules it runs on import or call (package modules included)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = set()
        for name in _scan(module, path, modules)[0]:
            target = resolve_module(name, modules)
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


def test_the_scan_sees_function_level_and_package_imports(tmp_path):
    graph = _graph()
    assert "warp.targets.cpu.jit" in graph["warp.targets.cpu.target"]
    assert "warp.compiler" in graph["warp.core_builtins.arrays"]  # the package module runs first
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os\nif TYPE_CHECKING:\n    import warp.a\ndef f():\n    import warp.b\n    import torch\n",
        encoding="utf-8",
    )
    found, in_functions = _scan("warp.probe", probe, {"warp.b": probe})
    assert found == {"warp.b"} and in_functions == [(5, "warp.b"), (6, "torch")]
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert floor_of("warp.types.scalars") < floor_of("warp.compiler.ir") < floor_of("warp.targets.base")
    assert floor_of("warp.runtime.devices") < floor_of("warp.runtime.launch") == floor_of("warp.arrays")


def _report(found: set[tuple[str, str]], what: str) -> str:
    new = sorted(found - set(KNOWN_DEBT))
    return f"{what}:\n" + "\n".join(f"  {m} -> {t}" for m, t in new)


def test_no_import_goes_up_a_floor():
    graph = _graph()
    upward = {(m, t) for m, targets in graph.items() for t in targets if floor_of(t) > floor_of(m)}
    assert not upward - set(KNOWN_DEBT), _report(upward, "imports going up the floors of warp-core") + (
        "\n(floors: " + " < ".join(name for name, _ in FLOORS) + ")"
    )


def test_no_import_cycles():
    graph = _graph()
    assert {edge for edge in KNOWN_DEBT if edge[1] not in graph.get(edge[0], set())} == set(), (
        "a known debt is paid: remove it from KNOWN_DEBT"
    )
    acyclic = {m: {t for t in targets if (m, t) not in KNOWN_DEBT} for m, targets in graph.items()}
    cycles = import_cycles(acyclic)
    detail = []
    for component in cycles:
        members = set(component)
        edges = sorted(f"  {m} -> {t}" for m in component for t in acyclic[m] if t in members)
        detail.append(f"cycle of {len(component)} modules:\n" + "\n".join(edges))
    assert not cycles, "\n".join(detail)


def test_no_warp_imports_inside_functions():
    """Imports inside functions are left for optional packages (torch, jax, cuda, ...) and lazily
    loaded standard modules; a warp module imported there would hide a dependency from this test."""
    modules = _modules()
    hidden = {
        (m, resolve_module(name, modules)): f"{m}:{line}"
        for m, path in modules.items()
        for line, name in _scan(m, path, modules)[1]
        if name.split(".")[0] == "warp"
    }
    new = sorted(where for edge, where in hidden.items() if edge not in KNOWN_DEBT)
    assert not new, "warp imports inside functions (move them to the top of the module):\n" + "\n".join(new)
