"""docs/builtins.md is generated from the registry and must match the code (no drift)."""

import difflib
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location(
        "gen_builtin_docs", ROOT / "scripts" / "gen_builtin_docs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_builtin_reference_is_up_to_date():
    gen = _generator()
    expected = gen.generate()
    committed = (ROOT / "docs" / "builtins.md").read_text(encoding="utf-8")
    if committed != expected:
        diff = "\n".join(
            list(
                difflib.unified_diff(
                    committed.splitlines(),
                    expected.splitlines(),
                    "docs/builtins.md",
                    "generated",
                    lineterm="",
                    n=1,
                )
            )[:40]
        )
        raise AssertionError(
            f"docs/builtins.md is out of date; run: python scripts/gen_builtin_docs.py\n{diff}"
        )


def test_reference_lists_every_registered_builtin_once():
    gen = _generator()
    registry, special = gen.collect()
    text = gen.render(registry, special)
    headings = [line[4:] for line in text.splitlines() if line.startswith("### ")]
    assert len(headings) == len(set(headings))
    assert set(headings) == set(registry.names()) | set(special)
    for name in registry.names():
        assert registry.get(name).doc, f"builtin '{name}' has no doc="


def test_signatures_spell_out_tuple_results_and_updates():
    from warp.compiler.registry import BuiltinRegistry
    from warp_builtins import quaternion, random

    gen = _generator()
    registry = BuiltinRegistry()
    quaternion.register(registry)
    random.register(registry)
    text = gen.render(registry, {"quat_identity": quaternion.quat_identity})
    assert "- `(state: uint32) -> float32`; updates `state`" in text
    assert "- `(state: uint32, lam: float32) -> uint32`; updates `state`" in text
    assert "### quat_identity" in text and "(dtype: Float = float32) -> quaternion(dtype)" in text
    assert "## Quaternion Math" in text and "## Random" in text
