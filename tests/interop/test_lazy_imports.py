"""``import warp`` imports no framework; missing frameworks and plugins give install hints."""

from __future__ import annotations

import pytest

from interop_subprocess import run_python


def test_import_warp_imports_no_framework(tmp_path):
    result = run_python(
        """
        import sys
        import warp as wp
        assert callable(wp.from_torch) and callable(wp.from_dlpack)
        print(sorted(m for m in ("torch", "jax", "jaxlib", "paddle") if m in sys.modules))
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "framework, call, extra",
    [
        ("torch", "wp.from_torch(None)", 'pip install ".[torch]"'),
        ("torch", "wp.dtype_to_torch(wp.float32)", 'pip install ".[torch]"'),
        ("paddle", "wp.from_paddle(None)", 'pip install ".[paddle]"'),
        ("paddle", "wp.dtype_to_paddle(wp.float32)", 'pip install ".[paddle]"'),
    ],
)
def test_missing_framework_names_the_extra(tmp_path, framework, call, extra):
    result = run_python(
        f"""
        import sys
        sys.modules[{framework!r}] = None  # as if it were not installed
        import warp as wp
        try:
            {call}
        except ImportError as e:
            print("ImportError:", e)
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert extra in result.stdout, result.stdout


def test_missing_plugin_submodule_names_the_distribution(tmp_path):
    result = run_python(
        """
        import warp
        try:
            import warp.torch
        except ModuleNotFoundError as e:
            print("ModuleNotFoundError:", e)
        """,
        tmp_path,
        WARP_DISABLE_PLUGINS="interop",
    )
    assert result.returncode == 0, result.stderr
    assert 'pip install "./packages/warp-interop"' in result.stdout, result.stdout
