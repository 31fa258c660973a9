"""The plugin packages of this repository reach warp-core only through ``warp`` and ``warp.extending``.

Every module of warp-builtins, warp-autodiff, warp-geometry and warp-interop is parsed (imports
inside functions and under ``if TYPE_CHECKING:`` included): an import of any other ``warp.*``
module fails, as does a name imported from ``warp.extending`` that it does not publish.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import warp.extending

PACKAGES = Path(__file__).resolve().parents[2] / "packages"
PLUGIN_SOURCES = {
    "warp-builtins": "warp_builtins",
    "warp-autodiff": "warp_autodiff",
    "warp-geometry": "warp_geometry",
    "warp-interop": "warp_interop",
}
ALLOWED = ("warp", "warp.extending")


#: the example third-party plugin of tests/plugins (docs/plugins.md points to it)
EXAMPLE_PLUGIN = Path(__file__).resolve().parent / "warp_plugin_example" / "src" / "warp_plugin_example"


def _plugin_files() -> list[Path]:
    files = []
    for dist, package in PLUGIN_SOURCES.items():
        files.extend(sorted((PACKAGES / dist / "src" / package).rglob("*.py")))
    return files + sorted(EXAMPLE_PLUGIN.rglob("*.py"))


def _warp_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, imported names) of every absolute import of ``warp`` or a ``warp.*`` module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "warp" or alias.name.startswith("warp."):
                    found.append((node.lineno, alias.name, []))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "warp" or node.module.startswith("warp."):
                found.append((node.lineno, node.module, [a.name for a in node.names]))
    return found


def test_the_plugin_sources_are_found():
    files = _plugin_files()
    assert len(files) > 50, f"expected the plugin packages' modules under {PACKAGES}, found {len(files)}"


@pytest.mark.parametrize("path", _plugin_files(), ids=lambda p: str(p.relative_to(PACKAGES.parent)))
def test_plugin_module_imports_only_warp_and_warp_extending(path: Path):
    bad = [
        f"{path}:{line}: imports {module}"
        for line, module, _ in _warp_imports(path)
        if module not in ALLOWED
    ]
    assert not bad, "plugins may import only `warp` and `warp.extending` from warp-core:\n" + "\n".join(bad)


@pytest.mark.parametrize("path", _plugin_files(), ids=lambda p: str(p.relative_to(PACKAGES.parent)))
def test_names_taken_from_warp_extending_are_published_there(path: Path):
    published = set(warp.extending.__all__)
    bad = [
        f"{path}:{line}: '{name}' is not in warp.extending.__all__"
        for line, module, names in _warp_imports(path)
        if module == "warp.extending"
        for name in names
        if name not in published
    ]
    assert not bad, "\n".join(bad)


def test_every_published_name_of_warp_extending_exists():
    missing = [name for name in warp.extending.__all__ if not hasattr(warp.extending, name)]
    assert not missing, f"warp.extending.__all__ names what it does not define: {missing}"
    assert len(set(warp.extending.__all__)) == len(warp.extending.__all__), "duplicates in __all__"


def test_warp_extending_publishes_no_translator_internals():
    """Of the kernel translator (``warp.compiler.frontend``), plugins see only its declared surface
    (``plugin_surface``: compile-time arguments, composite values, builtin calls, IR of kernels and
    functions), not the builder's classes or entry points."""
    from_frontend = {
        name: obj.__module__
        for name in warp.extending.__all__
        for obj in [getattr(warp.extending, name)]
        if str(getattr(obj, "__module__", "")).startswith("warp.compiler.frontend")
    }
    assert set(from_frontend.values()) == {"warp.compiler.frontend.plugin_surface"}, from_frontend
    internals = ("PyObj", "BuiltinName", "build_kernel", "accepts", "build_composite", "build_custom_adjoint")
    for internal in internals:
        assert not hasattr(warp.extending, internal), internal


def test_the_check_catches_a_core_internal_import(tmp_path: Path):
    """The parser sees imports inside functions and TYPE_CHECKING blocks."""
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "import warp as wp\n"
        "from warp.extending import ir\n"
        "if TYPE_CHECKING:\n"
        "    from warp.compiler.registry import Overload\n"
        "def f():\n"
        "    import warp.runtime.launch\n"
    )
    modules = [m for _, m, _ in _warp_imports(module) if m not in ALLOWED]
    assert modules == ["warp.compiler.registry", "warp.runtime.launch"]
