"""A kernel's source is captured when it is defined: later edits or deletion of its file change nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

MODULE = """
import warp as wp


@wp.func
def offset() -> float:
    return 1.0


@wp.kernel
def fill(a: wp.array(dtype=float)):
    a[wp.tid()] = offset() + 10.0
"""


@pytest.mark.parametrize("edit", ["changed", "deleted", "syntax_error"])
def test_file_edited_after_import_runs_the_imported_code(tmp_path: Path, edit: str):
    (tmp_path / "kmod.py").write_text(MODULE)
    script = tmp_path / "main.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os, sys
            sys.path.insert(0, {str(tmp_path)!r})
            import warp as wp
            import kmod

            path = {str(tmp_path / "kmod.py")!r}
            text = open(path).read()
            if {edit!r} == "changed":
                with open(path, "w") as fh:
                    fh.write(text.replace("1.0", "2.0").replace("10.0", "20.0"))
            elif {edit!r} == "deleted":
                os.remove(path)
            else:
                with open(path, "w") as fh:  # an unclosed parenthesis inside the kernel
                    fh.write(text.replace("+ 10.0", "+ (10.0"))
            os.utime(path, (0, 12345)) if os.path.exists(path) else None
            a = wp.zeros(3, dtype=float)
            wp.launch(kmod.fill, dim=3, inputs=[a])
            print("values", a.numpy().tolist())
            """
        )
    )
    env = dict(os.environ, WARP_CACHE_PATH=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "values [11.0, 11.0, 11.0]" in proc.stdout
