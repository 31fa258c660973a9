"""Names and submodules of optional packages name the package to install when it is missing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def _run_without(plugins: str, code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, WARP_DISABLE_PLUGINS=plugins)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=120
    )


def _run_file_without(plugins: str, code: str, tmp_path) -> subprocess.CompletedProcess:
    """Run ``code`` from a file (kernels need their source file)."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, WARP_DISABLE_PLUGINS=plugins)
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)


def test_python_scope_name_of_missing_package_names_it() -> None:
    proc = _run_without(
        "autodiff",
        """
        import warp as wp
        try:
            wp.Tape
        except AttributeError as exc:
            print("ERR", exc)
        """,
    )
    assert proc.returncode == 0, proc.stderr
    assert "ERR module 'warp' has no attribute 'Tape'" in proc.stdout
    assert 'pip install ".[autodiff]"' in proc.stdout
    assert "WARP_DISABLE_PLUGINS: autodiff" in proc.stdout


def test_submodule_of_missing_package_names_it() -> None:
    proc = _run_without(
        "autodiff",
        """
        import warp
        try:
            import warp.autograd
        except ModuleNotFoundError as exc:
            print("ERR", exc.name, exc)
        """,
    )
    assert proc.returncode == 0, proc.stderr
    assert "ERR warp.autograd No module named 'warp.autograd'" in proc.stdout
    assert 'pip install ".[autodiff]"' in proc.stdout


def test_installed_plugin_submodule_still_imports() -> None:
    proc = _run_without("", "import warp.autograd, warp; print(warp.autograd.__name__, warp.Tape.__name__)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["warp_autodiff.autograd", "Tape"]


def test_unknown_name_is_a_plain_attribute_error() -> None:
    proc = _run_without(
        "", "import warp as wp\ntry:\n    wp.no_such_thing\nexcept AttributeError as e:\n    print(e)"
    )
    assert proc.stdout.strip() == "module 'warp' has no attribute 'no_such_thing'"


def test_disable_all_plugins_keeps_core_operators() -> None:
    proc = _run_without(
        "all",
        """
        import warp as wp
        from warp.compiler.registry import builtin_registry
        from warp.plugins.manager import get_plugin_manager
        print(sorted(n for n, _ in get_plugin_manager().list_name_plugin()))
        print("tid" in builtin_registry, "sin" in builtin_registry)
        print(wp.matmul.__name__, wp.batched_matmul.__name__, wp.MarchingCubes.__name__)
        """,
    )
    assert proc.returncode == 0, proc.stderr
    # core's own plugins stay: its builtins, wp.matmul (warp.gemm), warp.geometry and the indexed
    # arrays' device kernels (warp.indexed_kernels)
    plugins = "['warp.core_plugin', 'warp.gemm', 'warp.geometry.plugin', 'warp.indexed_kernels']"
    expected = [plugins, "True False", "matmul batched_matmul IsoSurfaceMarchingCubes"]
    assert proc.stdout.splitlines() == expected


def test_vector_math_without_builtins_names_the_package(tmp_path) -> None:
    # core knows vec3 (a type) and `+` (scalar overloads); vector overloads come from warp-builtins
    proc = _run_file_without(
        "all",
        """
        import warp as wp
        from warp.errors import MissingPluginError

        @wp.kernel
        def add_vectors(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3)):
            i = wp.tid()
            b[i] = a[i] + a[i]

        a = wp.zeros(2, dtype=wp.vec3)
        try:
            wp.launch(add_vectors, dim=2, inputs=[a, a])
        except MissingPluginError as exc:
            print("ERR", exc)
        """,
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "ERR in 'add_vectors' at" in proc.stdout  # where first, then what (as Warp orders them)
    assert "no overload of 'add' accepts arguments (vec3f, vec3f)" in proc.stdout
    assert 'pip install "."' in proc.stdout
    assert "b[i] = a[i] + a[i]" in proc.stdout


def test_core_only_kernel_copies_vectors_and_adds_scalars(tmp_path) -> None:
    # core alone: composite loads/stores, component access and scalar arithmetic need no plugin
    proc = _run_file_without(
        "all",
        """
        import numpy as np
        import warp as wp

        @wp.kernel
        def k(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), s: wp.array(dtype=float)):
            i = wp.tid()
            v = a[i]
            b[i] = v
            s[i] = v[0] + v[1] * v[2]

        a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=wp.vec3)
        b = wp.zeros(2, dtype=wp.vec3)
        s = wp.zeros(2, dtype=float)
        wp.launch(k, dim=2, inputs=[a, b, s])
        print(b.numpy().tolist(), s.numpy().tolist())
        """,
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[-2] == "[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] [2.0, 23.0]"
