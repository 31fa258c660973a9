"""docs/api.md is generated from docstrings by scripts/gen_api_docs.py and must match the code."""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gen_api_docs.py"
REGENERATE = "python scripts/gen_api_docs.py"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_api_docs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_api_reference_matches_the_docstrings():
    gen = _generator()
    missing = gen.missing_plugins()
    if missing:
        pytest.skip(
            f"docs/api.md also documents {', '.join(missing)}, not loaded here (not installed or "
            "disabled by WARP_DISABLE_PLUGINS): the page generated now would lack those sections"
        )
    expected = gen.generate()
    committed = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    if committed != expected:
        diff = "".join(
            difflib.unified_diff(
                committed.splitlines(True), expected.splitlines(True), "docs/api.md (committed)", "generated"
            )
        )
        pytest.fail(f"docs/api.md is out of date: regenerate it with `{REGENERATE}`\n{diff[:8000]}")


def test_generator_refuses_to_write_without_every_documented_package(tmp_path, monkeypatch):
    gen = _generator()
    monkeypatch.setattr(gen, "missing_plugins", lambda: ["warp-geometry"])
    monkeypatch.setattr(gen, "OUTPUT", tmp_path / "api.md")
    monkeypatch.setattr("sys.argv", ["gen_api_docs.py"])
    assert gen.main() == 2
    assert not (tmp_path / "api.md").exists()
