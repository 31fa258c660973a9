"""Quality gates of the repository: ``ruff check`` and ``mypy`` on every package.

Both tools come with the ``dev`` extra (``pip install -e ".[dev]"``, which CI installs) and run
as ``python -m ruff`` / ``python -m mypy`` of this interpreter, with the configuration of
``pyproject.toml`` (``[tool.ruff]``, ``[tool.mypy]``). A failure lists the violations.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run_tool(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed: install the dev extra (pip install -e '.[dev]')")
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_check_is_clean():
    proc = _run_tool("ruff", "check", "--output-format", "concise", "--no-fix", ".")
    assert proc.returncode == 0, f"ruff check reports violations:\n{proc.stdout}{proc.stderr}"


#: the source folders of the five distributions that mypy checks together
MYPY_SOURCES = (
    "packages/warp-core/src/warp",
    "packages/warp-builtins/src/warp_builtins",
    "packages/warp-autodiff/src/warp_autodiff",
    "packages/warp-geometry/src/warp_geometry",
    "packages/warp-interop/src/warp_interop",
)


def test_mypy_on_every_package_is_clean():
    # the cache (.mypy_cache in the repository root, ignored by git) keeps repeated runs fast
    proc = _run_tool("mypy", *MYPY_SOURCES)
    assert proc.returncode == 0, f"mypy reports errors:\n{proc.stdout}{proc.stderr}"
