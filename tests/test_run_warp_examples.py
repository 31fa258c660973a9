"""scripts/run_warp_examples.py: runs each example_*.py of a folder, with the asset folder replaced,
and reports a table (programs using tiles are listed, not run)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():
    path = ROOT / "scripts" / "run_warp_examples.py"
    spec = importlib.util.spec_from_file_location("run_warp_examples", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_runs_a_folder_and_reports(tmp_path, capsys):
    script = _script()
    examples = tmp_path / "examples"
    examples.mkdir()
    (examples / "example_ok.py").write_text(
        "import warp.examples\nprint(open(warp.examples.get_asset_directory() + '/data.txt').read())\n"
    )
    (examples / "example_bad.py").write_text("raise ValueError('broken on purpose')\n")
    (examples / "example_tiles.py").write_text("import warp as wp\nwp.launch_tiled(None, dim=1)\n")
    assets = tmp_path / "assets"
    assets.mkdir()
    (assets / "data.txt").write_text("asset found")
    work = tmp_path / "work"
    rc = script.main([str(examples), "--assets", str(assets), "--work", str(work), "--timeout", "120"])
    out = capsys.readouterr().out
    assert rc == 1  # one program failed
    assert "| example_ok | runs |" in out
    assert "| example_bad | fails (rc 1) | ValueError: broken on purpose |" in out
    assert "| example_tiles | not run | uses tiles" in out
    assert "asset found" in (work / "logs" / "example_ok.log").read_text()
    assert "warp.examples.get_asset_directory()" not in (work / "example_ok.py").read_text()


def test_tile_detection_and_error_line():
    script = _script()
    assert script.uses_tiles("t = wp.tile_load(a, shape=4)")
    assert not script.uses_tiles("wp.launch(k, dim=4)  # no tiles")
    text = "Traceback (most recent call last):\n  File 'x'\nRuntimeError: no display\n"
    assert script.last_error_line(text) == "RuntimeError: no display"
