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


_REGENERATE_HINT = (
    "rerun `python scripts/gen_api_docs.py` (with every package installed: pip install \".[all]\") and "
    "commit docs/api.md; a new name lands under 'More names' unless you add it to a section of SECTIONS "
    "in scripts/gen_api_docs.py"
)


def _documented(text: str, label: str) -> bool:
    return f"### wp.{label}\n" in text or f"`wp.{label}`" in text


def test_every_public_name_of_warp_and_its_submodules_is_documented():
    """Enumerates ``dir(warp)`` and the documented submodules itself (not through the generator)."""
    import importlib
    import inspect

    import warp as wp
    from warp.plugins.submodules import provided
    from warp.runtime.python_builtins import PythonBuiltin

    gen = _generator()
    if gen.missing_plugins():
        pytest.skip("docs/api.md documents optional packages that are not loaded here")
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    missing = []
    for name in dir(wp):
        obj = getattr(wp, name)
        if name.startswith("_") or inspect.ismodule(obj) or isinstance(obj, PythonBuiltin):
            continue
        if name in gen.NOT_API:
            assert getattr(obj, "__module__", type(obj).__module__) in ("typing", "__future__"), name
            continue
        if not _documented(text, name):
            missing.append(f"wp.{name}")
    submodules = sorted({"types", "utils", "autograd"} | set(provided))
    assert set(submodules) <= set(gen.documented_submodules())
    for sub in submodules:
        module = importlib.import_module(f"warp.{sub}")
        shared_line = next(
            (line for line in text.split(f"## Submodule wp.{sub}\n", 1)[-1].splitlines()
             if line.startswith("Also here")), ""
        )
        # a submodule's API: its __all__, else the functions and classes it defines itself
        declared = getattr(module, "__all__", None)
        for name in dir(module) if declared is None else declared:
            obj = getattr(module, name)
            if declared is None and (
                name.startswith("_")
                or not (inspect.isfunction(obj) or inspect.isclass(obj))
                or not (getattr(obj, "__module__", "") or "").startswith(module.__name__)
            ):
                continue
            if not (_documented(text, f"{sub}.{name}") or f"`{name}`" in shared_line):
                missing.append(f"wp.{sub}.{name}")
    assert not missing, f"docs/api.md does not document {', '.join(missing)}: {_REGENERATE_HINT}"


def test_enum_classes_render_the_same_on_every_python():
    """``inspect.signature`` of an Enum class differs between Python 3.11 and 3.12: the page shows
    the lookup by value and the members instead, whatever Python generated it."""
    import enum

    gen = _generator()

    class Mode(enum.IntEnum):
        """How things run."""

        SLOW = 0
        FAST = 2

    assert gen._signature(Mode) == "(value)"
    lines = gen._render_object("Mode", Mode, set())
    assert lines[:6] == ["### wp.Mode", "", "```python", "wp.Mode(value)", "```", ""]
    assert "How things run." in lines
    assert "Members: `SLOW` = 0, `FAST` = 2." in lines
    # nothing inherited from enum's own classes (their members differ between versions too)
    assert not [line for line in lines if line.startswith("- `")]
