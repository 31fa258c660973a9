"""Each plugin distribution declares what it provides (``warp_provides.json``), and core reads it.

The declarations replace a table in warp-core: they name the package to install when a builtin,
a ``wp.<name>`` or a ``warp.<module>`` is missing. These tests keep each declaration in step with
what its plugin registers and exports, and check how core reads a declaration file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import warp  # noqa: F401 - loads the plugins
from warp.extending import builtin_registry
from warp.plugins import declarations
from warp.plugins.manager import exports, module_exports, plugin_distributions

REPO_DISTRIBUTIONS = {"warp-builtins", "warp-geometry", "warp-autodiff", "warp-interop"}


def _declared() -> dict[str, declarations.Declaration]:
    return {d.distribution: d for d in declarations.declarations()}


def test_every_plugin_distribution_of_the_repository_declares_what_it_provides():
    assert REPO_DISTRIBUTIONS <= set(_declared())


def test_a_builtin_only_a_plugin_registers_is_declared_by_that_plugin():
    declared = _declared()
    undeclared = []
    for name in builtin_registry.names():
        packages = {o.package for o in builtin_registry.get(name).overloads}
        if len(packages) == 1 and (dist := packages.pop()) in REPO_DISTRIBUTIONS:
            if not declared[dist].provides_builtin(name):
                undeclared.append(f"{dist}: {name}")
    assert not undeclared, "add these to the distribution's warp_provides.json:\n" + "\n".join(undeclared)


def test_declared_python_names_and_submodules_are_provided_when_the_plugin_is_loaded():
    loaded = set(plugin_distributions.values())
    for dist, declaration in _declared().items():
        if dist not in loaded or dist not in REPO_DISTRIBUTIONS:
            continue
        for name in declaration.python_names:
            # warp.jax_experimental is a submodule, reached as an attribute once imported
            assert name in exports or name == "jax_experimental", f"{dist} declares wp.{name}, not exported"
        for module in declaration.submodules:
            assert module.startswith("warp."), f"{dist} declares submodule {module!r} outside warp"
        for dotted in declaration.module_names:
            module, _, name = dotted.rpartition(".")
            assert name in module_exports(module), f"{dist} declares {dotted}, not exported"


def test_lookups_name_the_declaring_distribution():
    assert declarations.providing_distribution("sin") == "warp-builtins"
    assert declarations.providing_distribution("mesh_query_point") == "warp-geometry"
    assert declarations.providing_distribution("mesh_anything_new") == "warp-geometry"  # by prefix
    assert declarations.providing_distribution("no_such_builtin") is None
    assert declarations.python_name_distribution("Tape") == "warp-autodiff"
    assert declarations.submodule_distribution("warp.jax_experimental.ffi") == "warp-interop"
    assert declarations.submodule_distribution("warp.nothing") is None
    assert declarations.module_name_distribution("warp.geometry", "swept_volume_mesh") == "warp-geometry"
    assert declarations.module_name_distribution("warp.geometry", "nothing") is None


def test_a_declaration_file_is_read_without_importing_the_package(tmp_path):
    package = tmp_path / "decl_probe_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("raise RuntimeError('imported')\n")
    (package / declarations.FILE_NAME).write_text(
        json.dumps({"builtins": ["probe_fn"], "builtin_prefixes": ["probe_"], "python_names": ["Probe"]})
    )
    code = textwrap.dedent(
        """
        import sys
        from warp.plugins import declarations as d
        path = d._declaration_file("decl_probe_pkg.plugin")
        decl = d._read("probe-dist", path)
        print(path.name, decl.provides_builtin("probe_fn"), decl.provides_builtin("probe_x"),
              decl.provides_builtin("other"), sorted(decl.python_names), "decl_probe_pkg" in sys.modules)
        """
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["warp_provides.json", "True", "True", "False", "['Probe']", "False"]


#: a kernel using a geometry builtin, launched in a script that prints the MissingPluginError
GEOMETRY_KERNEL_LAUNCH = """
import warp as wp

@wp.kernel
def k(mesh: wp.uint64, out: wp.array(dtype=float)):
    out[0] = wp.mesh_get_point(mesh, 0)[0]

try:
    wp.launch(k, dim=1, inputs=[wp.uint64(0), wp.zeros(1, dtype=float)])
except wp.MissingPluginError as e:
    print("ERROR:", e)
"""


def _launch_with_geometry_disabled(tmp_path, prelude: str = "") -> str:
    """The output of ``prelude`` then GEOMETRY_KERNEL_LAUNCH, run with warp-geometry disabled."""
    script = tmp_path / "k.py"
    script.write_text(textwrap.dedent(prelude) + GEOMETRY_KERNEL_LAUNCH)
    env = dict(os.environ, WARP_DISABLE_PLUGINS="geometry")
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_geometry_builtin_with_geometry_disabled_names_the_package(tmp_path):
    out = _launch_with_geometry_disabled(tmp_path)
    assert "builtin 'wp.mesh_get_point' is provided by the 'warp-geometry' package" in out


def test_cores_copy_of_the_repository_declarations_matches_their_files():
    """warp-core's table for distributions that are not installed is each package's own file."""
    packages = Path(__file__).resolve().parents[2] / "packages"
    copy = json.loads(declarations.REPOSITORY_FILE.read_text(encoding="utf-8"))
    files = {}
    for dist in sorted(REPO_DISTRIBUTIONS):
        (path,) = (packages / dist / "src").glob(f"*/{declarations.FILE_NAME}")
        entry = json.loads(path.read_text(encoding="utf-8"))
        entry.pop("comment", None)
        files[dist] = entry
    copy.pop("comment", None)
    assert copy == files, (
        f"{declarations.REPOSITORY_FILE} is out of date: each distribution's entry is its "
        f"{declarations.FILE_NAME} without the comment"
    )


def test_a_distribution_that_is_not_installed_is_known_from_cores_copy(monkeypatch):
    monkeypatch.setattr(declarations, "declarations", lambda: ())  # as if no plugin were installed
    assert declarations.providing_distribution("mesh_query_point") == "warp-geometry"
    assert declarations.providing_distribution("mesh_anything_new") == "warp-geometry"  # by prefix
    assert declarations.providing_distribution("sin") == "warp-builtins"
    assert declarations.python_name_distribution("Tape") == "warp-autodiff"
    assert declarations.submodule_distribution("warp.jax_experimental") == "warp-interop"
    assert declarations.providing_distribution("no_such_builtin") is None
    # an installed distribution's own declaration comes first
    installed = declarations.Declaration("warp-geometry-fork", builtins=frozenset({"mesh_query_point"}))
    monkeypatch.setattr(declarations, "declarations", lambda: (installed,))
    assert declarations.providing_distribution("mesh_query_point") == "warp-geometry-fork"


def test_a_geometry_builtin_with_geometry_not_installed_names_the_extra(tmp_path):
    """warp-geometry disabled and hidden from the installed distributions, as if not installed."""
    out = _launch_with_geometry_disabled(
        tmp_path,
        """
        import types
        import warp as wp
        from warp.plugins import declarations

        listed = declarations.metadata.entry_points
        declarations.metadata = types.SimpleNamespace(
            entry_points=lambda group: [e for e in listed(group=group) if e.dist.name != "warp-geometry"]
        )
        assert "warp-geometry" not in {d.distribution for d in declarations.declarations()}
        """,
    )
    assert "builtin 'wp.mesh_get_point' is provided by the 'warp-geometry' package" in out
    assert 'pip install ".[geometry]"' in out


def test_a_geometry_module_name_with_geometry_disabled_names_the_package():
    code = textwrap.dedent(
        """
        import warp.geometry
        try:
            warp.geometry.swept_volume_mesh
        except AttributeError as e:
            print("ERROR:", e)
        print(callable(warp.geometry.sparse_marching_cubes))
        """
    )
    env = dict(os.environ, WARP_DISABLE_PLUGINS="geometry")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (
        "module 'warp.geometry' has no attribute 'swept_volume_mesh': it is provided by the 'warp-geometry' "
        "package" in proc.stdout
    )
    assert proc.stdout.split()[-1] == "True"
