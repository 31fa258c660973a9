"""A third-party plugin package, installed for real, adds builtins that kernels can call."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent


#: the plugin packages the tests install (folders beside this file)
PLUGIN_SOURCES = ("warp_plugin_example", "broken_plugin")


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Install the example and the broken plugin packages into a private site directory.

    Built from copies in a temporary folder (setuptools writes ``build/`` and ``*.egg-info``
    beside the sources, and the checkout may be read-only), offline: no build isolation (it would
    download setuptools), no index, and pip's own environment settings ignored (``--isolated``:
    a ``PIP_USER`` or ``PIP_TARGET`` there would clash with ``--target``)."""
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("building the plugin packages offline needs setuptools in this interpreter")
    sources = tmp_path_factory.mktemp("plugin_sources")
    for name in PLUGIN_SOURCES:
        shutil.copytree(HERE / name, sources / name, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    for path in [sources, *sources.rglob("*")]:  # copies of read-only files stay read-only
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    site = tmp_path_factory.mktemp("plugin_site")
    cmd = [
        sys.executable, "-m", "pip", "--isolated", "install", "--quiet", "--no-deps", "--no-index",
        "--no-build-isolation", "--target", str(site), *(str(sources / name) for name in PLUGIN_SOURCES),
    ]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        pytest.fail(
            f"installing the plugin packages failed (exit status {result.returncode}):\n"
            f"{' '.join(cmd)}\n--- stdout\n{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-5000:]}",
            pytrace=False,
        )
    return site


def run_python(
    code: str, tmp_path: Path, extra_path: Path | None = None, **env: str
) -> subprocess.CompletedProcess:
    environment = dict(os.environ)
    environment["WARP_CACHE_PATH"] = str(tmp_path / "cache")
    if extra_path is not None:
        environment["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(extra_path), environment.get("PYTHONPATH")])
        )
    environment.update(env)
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=environment, timeout=300
    )


def test_plugin_builtins_callable_from_kernels(plugin_site: Path, tmp_path: Path) -> None:
    result = run_python(
        """
        import json, warnings
        import numpy as np
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import warp as wp
        wp.config.quiet = True

        @wp.kernel
        def k(x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=wp.float64)):
            i = wp.tid()
            y[i] = wp.smooth_relu(x[i])
            z[i] = wp.fma3(wp.float64(x[i]), wp.float64(2.0), wp.float64(0.5))

        x = np.linspace(-2, 2, 9).astype(np.float32)
        y = wp.zeros(9, dtype=float)
        z = wp.zeros(9, dtype=wp.float64)
        wp.launch(k, dim=9, inputs=[x, y, z])
        print(json.dumps({"y": y.numpy().tolist(), "z": z.numpy().tolist(),
                          "version": wp.EXAMPLE_PLUGIN_VERSION,
                          "warnings": [str(w.message) for w in caught]}))
        """,
        tmp_path,
        plugin_site,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    x = np.linspace(-2, 2, 9).astype(np.float32)
    expected = np.where(x > 0, x, -0.5 * x * x / (1 + x * x))
    np.testing.assert_allclose(out["y"], expected, rtol=1e-6)
    np.testing.assert_allclose(out["z"], x.astype(np.float64) * 2.0 + 0.5, rtol=1e-12)
    assert out["version"] == "0.1.0"
    # the broken plugin is reported by name, and import warp still worked
    broken = [w for w in out["warnings"] if "'broken'" in w]
    assert broken and "failed to import" in broken[0] and "warp-broken-plugin" in broken[0]


def test_a_disabled_third_party_plugin_is_named_from_its_declaration(plugin_site: Path, tmp_path: Path):
    """warp_provides.json of an installed but disabled plugin names its distribution and the
    ordinary pip command (it is not one of this checkout's packages)."""
    result = run_python(
        """
        import warp as wp

        @wp.kernel
        def k(x: wp.array(dtype=float)):
            x[0] = wp.smooth_relu(x[0])

        try:
            wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=float)])
        except wp.MissingPluginError as e:
            print("ERROR:", e)
        try:
            wp.EXAMPLE_PLUGIN_VERSION
        except AttributeError as e:
            print("ATTR:", e)
        """,
        tmp_path,
        plugin_site,
        WARP_DISABLE_PLUGINS="example",
    )
    assert result.returncode == 0, result.stderr
    assert (
        "builtin 'wp.smooth_relu' is provided by the 'warp-plugin-example' package, which is not installed "
        "or is disabled; install it with: pip install warp-plugin-example" in result.stdout
    ), result.stdout
    assert "ATTR: module 'warp' has no attribute 'EXAMPLE_PLUGIN_VERSION': it is provided by the " \
        "'warp-plugin-example' package" in result.stdout, result.stdout


def test_missing_builtin_package_names_the_distribution(tmp_path: Path) -> None:
    result = run_python(
        """
        import warp as wp

        @wp.kernel
        def k(x: wp.array(dtype=float)):
            i = wp.tid()
            x[i] = wp.sin(x[i])

        try:
            wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=float)])
        except wp.MissingPluginError as e:
            print("ERROR:", e)
        try:
            wp.sin
        except AttributeError as e:
            print("ATTR:", e)
        """,
        tmp_path,
        WARP_DISABLE_PLUGINS="builtins",
    )
    assert result.returncode == 0, result.stderr
    assert "ERROR: in 'k' at" in result.stdout  # where first, then what (as Warp orders them)
    assert "builtin 'wp.sin' is provided by the 'warp-builtins' package" in result.stdout
    assert 'pip install "."' in result.stdout
    assert "in 'k' at" in result.stdout and "x[i] = wp.sin(x[i])" in result.stdout
    assert (
        "ATTR: module 'warp' has no attribute 'sin': it is provided by the 'warp-builtins' package"
        in result.stdout
    )


def test_core_only_kernels_work_without_plugins(tmp_path: Path) -> None:
    result = run_python(
        """
        import numpy as np
        import warp as wp
        from warp.plugins.manager import get_plugin_manager
        wp.config.quiet = True
        names = sorted(name for name, _ in get_plugin_manager().list_name_plugin())

        @wp.kernel
        def k(x: wp.array(dtype=float), n: int):
            i = wp.tid()
            acc = float(0.0)
            for j in range(n):
                acc += x[i] * float(j)
            x[i] = acc

        x = wp.array(np.arange(4, dtype=np.float32))
        wp.launch(k, dim=4, inputs=[x, 3])
        print(names)
        print(x.numpy().tolist())
        """,
        tmp_path,
        WARP_DISABLE_PLUGINS="builtins",
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert "builtins" not in lines[-2] and "warp.core_plugin" in lines[-2]
    assert json.loads(lines[-1]) == [0.0, 3.0, 6.0, 9.0]


def test_kernel_builtin_called_from_python_scope_is_a_clear_error() -> None:
    import warp as wp

    with pytest.raises(TypeError, match="wp.tid is a kernel builtin: call it inside a @wp.kernel"):
        wp.tid()


def test_convert_array_hook_lets_plugins_accept_foreign_objects() -> None:
    import warp as wp
    from warp.plugins import hookimpl
    from warp.plugins.manager import get_plugin_manager

    class Boxed:
        """A foreign container warp does not know."""

        def __init__(self, values):
            self.values = values

    class Converter:
        @hookimpl
        def warp_convert_array(self, obj, dtype, device):
            if isinstance(obj, Boxed):
                return wp.array(obj.values, dtype=dtype or wp.float32)
            return None

    @wp.kernel
    def double(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = a[i] * 2.0

    pm = get_plugin_manager()
    plugin = Converter()
    pm.register(plugin, name="test-converter")
    try:
        out = wp.zeros(3, dtype=float)
        wp.launch(double, dim=3, inputs=[Boxed([1.0, 2.0, 3.0]), out])
        assert out.numpy().tolist() == [2.0, 4.0, 6.0]
        assert wp.as_array(Boxed([5.0])).numpy().tolist() == [5.0]
    finally:
        pm.unregister(plugin)
