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


NESTED = '''
import functools


def deco(f):
    return f


if True:
    def in_if():
        return 1
else:
    def in_else():
        return 2

try:
    def in_try():
        return 3
except ImportError:
    pass
finally:
    def in_finally():
        return 4

with open(__file__):
    def in_with():
        return 5


class Holder:
    @staticmethod
    @deco
    def method(x,
               y):
        return (x
                + y)


def outer():
    def inner():
        return 6
    return inner


match 1:
    case 1:
        def in_match():
            return 7
'''


def test_functions_nested_in_any_statement_are_read_whole(tmp_path: Path):
    import importlib.util

    from warp.compiler.source import _file_text, read_source

    path = tmp_path / "nested_defs_mod.py"
    path.write_text(NESTED)
    spec = importlib.util.spec_from_file_location("nested_defs_mod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    funcs = [mod.in_if, mod.in_try, mod.in_finally, mod.in_with, mod.Holder.method, mod.outer(), mod.in_match]
    for func in funcs:
        # found by the one parse of the file (not by inspect's fallback)
        assert _file_text(str(path)).function(func.__name__, func.__code__.co_firstlineno) is not None
        info = read_source(func)
        assert info.file == str(path)
        assert info.tree.name == func.__name__
        assert info.source.lstrip().startswith(("def ", "@")) and "return" in info.source
    assert read_source(mod.Holder.method).source.splitlines() == [
        "@staticmethod", "@deco", "def method(x,", "           y):", "    return (x", "            + y)"
    ]
