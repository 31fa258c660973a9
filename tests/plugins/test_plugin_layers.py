"""The plugin packages import their warp dependencies at module level, without cycles.

Read from the source with ``ast``, as tests/core/test_layers.py does for warp-core. Every module
of warp-builtins, warp-autodiff, warp-geometry, warp-interop (and the example plugin of
tests/plugins) is parsed; imports under ``if TYPE_CHECKING:`` are left out (they never run).

- An import of ``warp``, ``warp.*`` or a ``warp_*`` package placed inside a function hides a
  dependency (and usually a cycle it dodges); it fails unless it is in :data:`KNOWN_DEBT` with
  its reason. Imports of optional third-party packages (jax, torch, paddle, ...) inside functions
  are allowed: that is how an optional dependency stays optional.
- The module graph of the plugins (importing ``a.b.c`` also runs the package modules ``a`` and
  ``a.b``, except from a module inside that package) may hold no cycle.
"""

from __future__ import annotations

from pathlib import Path
from import_graph import import_cycles, resolve_module, scan_imports

PACKAGES = Path(__file__).resolve().parents[2] / "packages"
#: source roots of the plugin packages: the folder holding each import package
ROOTS = [
    PACKAGES / "warp-builtins" / "src",
    PACKAGES / "warp-autodiff" / "src",
    PACKAGES / "warp-geometry" / "src",
    PACKAGES / "warp-interop" / "src",
    Path(__file__).resolve().parent / "warp_plugin_example" / "src",
]

#: In-function imports of warp modules that stay, (importer, imported module): reason. The tests
#: fail on any other, and on an entry no longer needed.
KNOWN_DEBT: dict[tuple[str, str], str] = {
    # warp.jax_experimental needs JAX at import (an optional package: `import warp` must work without
    # it), and its ffi module builds on jax_interop; wp.jax_kernel / wp.jax_callable load it on use
    ("warp_interop.jax_interop", "warp_interop.jax_experimental.ffi"): "JAX is optional",
}


def _modules() -> dict[str, Path]:
    found = {}
    for root in ROOTS:
        for path in root.rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_warp(name: str) -> bool:
    top = name.split(".")[0]
    return top == "warp" or top.startswith("warp_")


def _scan(module: str, path: Path, modules: dict[str, Path]) -> list[tuple[int, str, bool]]:
    """(line, imported name, inside a function) of each import of a warp module run by ``module``;
    a ``from package import name`` names the submodule when ``name`` is one."""
    return [entry for entry in scan_imports(module, path, modules) if _is_warp(entry[1])]


def _graph() -> dict[str, set[str]]:
    """Plugin module -> the plugin modules it runs (package modules included); the imports of
    :data:`KNOWN_DEBT` are left out."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = set()
        for _, name, in_function in _scan(module, path, modules):
            target = resolve_module(name, modules)
            if in_function and (module, target) in KNOWN_DEBT:
                continue
            targets.add(target)
            parts = target.split(".")
            for package in (".".join(parts[:i]) for i in range(1, len(parts))):
                if not (module + ".").startswith(package + "."):  # a package of the importer ran already
                    targets.add(package)
        targets.discard(module)
        graph[module] = {t for t in targets if t in modules}
    return graph


def test_the_scan_sees_function_level_relative_and_package_imports(tmp_path):
    graph = _graph()
    assert "warp_autodiff.adjoint_types" in graph["warp_autodiff.rules.context"]
    assert {"warp_autodiff.transform", "warp_autodiff.transform.needs"} <= graph["warp_autodiff.array_access"]
    assert "warp_interop.jax_experimental" not in graph["warp_interop.jax_experimental.ffi"]  # ran first
    assert "warp_interop.jax_experimental.ffi" not in graph["warp_interop.jax_interop"]  # a known debt
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os\nfrom . import b\nif TYPE_CHECKING:\n    import warp.a\n"
        "def f():\n    import warp_x.c\n    import torch\n",
        encoding="utf-8",
    )
    modules = {"pkg.b": probe, "pkg.probe": probe}
    assert _scan("pkg.probe", probe, modules) == [(6, "warp_x.c", True)]
    found = _scan("warp_x.probe", probe, {"warp_x.b": probe})
    assert found == [(2, "warp_x.b", False), (6, "warp_x.c", True)]
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_warp_imports_inside_functions():
    """warp, warp.extending and the plugins' own modules are imported at the top of a module."""
    modules = _modules()
    hidden = {
        (m, resolve_module(name, modules)): f"{m}:{line}: {name}"
        for m, path in modules.items()
        for line, name, in_function in _scan(m, path, modules)
        if in_function
    }
    assert {edge for edge in KNOWN_DEBT if edge not in hidden} == set(), (
        "a known debt is paid: remove it from KNOWN_DEBT"
    )
    new = sorted(where for edge, where in hidden.items() if edge not in KNOWN_DEBT)
    assert not new, "warp imports inside functions (move them to the top of the module):\n" + "\n".join(new)


def test_no_import_cycles_between_plugin_modules():
    graph = _graph()
    cycles = import_cycles(graph)
    detail = []
    for component in cycles:
        members = set(component)
        edges = sorted(f"  {m} -> {t}" for m in component for t in graph[m] if t in members)
        detail.append(f"cycle of {len(component)} modules:\n" + "\n".join(edges))
    assert not cycles, "\n".join(detail)
