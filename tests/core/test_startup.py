"""What a user sees around the work: the warp-lang coexistence check, the start-up line, the
module load lines, verbose compile reasons, clearing the kernel cache, the REPL source error."""

from __future__ import annotations

import glob
import os
import platform
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import warp as wp
from warp.runtime import log
from warp.startup import banner, conflict_message, find_conflicting_distribution


def _run(code: str, tmp_path, *args: str, env: dict | None = None, file: bool = True):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    source = [str(script)] if file else ["-c", textwrap.dedent(code)]
    command = [sys.executable, *args, *source]
    full_env = dict(os.environ, WARP_CACHE_PATH=str(tmp_path / "cache"), **(env or {}))
    return subprocess.run(command, env=full_env, capture_output=True, text=True, timeout=300, cwd=tmp_path)


def test_import_stops_when_warp_lang_is_installed_beside(tmp_path):
    site = tmp_path / "site"
    (site / "warp_lang-1.19.0.dist-info").mkdir(parents=True)
    (site / "warp_lang-1.19.0.dist-info" / "METADATA").write_text("Name: warp-lang\nVersion: 1.19.0\n")
    result = _run(
        f"""
        import sys
        sys.path.append({str(site)!r})
        try:
            import warp
        except ImportError as e:
            print("ImportError:", e)
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith(
        "ImportError: warp-suite cannot be used in an environment where NVIDIA's 'warp-lang' is also"
    )
    assert str(site / "warp_lang-1.19.0.dist-info") in out
    assert "separate virtual environment" in out and "pip uninstall warp-lang" in out


def test_conflict_detection_by_metadata_folder_name(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "warp_suite-0.1.0.dist-info").mkdir()
    (tmp_path / "a" / "warp_core-0.1.0.dist-info").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "Warp.Lang-1.2.egg-info").mkdir()
    paths = [str(tmp_path / "missing"), str(tmp_path / "a"), str(tmp_path / "b")]
    assert find_conflicting_distribution(paths[:2]) is None
    assert find_conflicting_distribution(paths) == str(tmp_path / "b" / "Warp.Lang-1.2.egg-info")
    assert find_conflicting_distribution() is None  # this environment has no warp-lang
    assert "found /x/warp_lang-1.0.dist-info" in conflict_message("/x/warp_lang-1.0.dist-info")


def test_startup_line_then_one_line_per_module(tmp_path):
    result = _run(
        """
        import warp as wp

        @wp.kernel
        def one(a: wp.array(dtype=float)):
            a[wp.tid()] = 1.0

        @wp.kernel
        def two(a: wp.array(dtype=float)):
            a[wp.tid()] = a[wp.tid()] + 2.0

        a = wp.zeros(4)
        wp.launch(one, dim=4, inputs=[a])
        wp.launch(two, dim=4, inputs=[a])
        print(a.numpy().tolist())
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"Warp (warp-suite) {wp.__version__} initialized:"
    # one row per device of this host (cpu, and each cuda:N of a GPU host), names in a column
    devices = wp.get_devices()
    rows = lines[2 : 2 + len(devices)]
    assert lines[1] == "   Devices:"
    assert rows[0].startswith('     "cpu" ') and rows[0].endswith(" : " + (platform.machine() or "cpu"))
    for row, device in zip(rows, devices):
        assert row.startswith(f'     "{device.alias}" '), rows
        assert row.index(" : ") == len("     ") + max(len(f'"{d.alias}"') for d in devices), rows
    assert lines[2 + len(devices) : 4 + len(devices)] == ["   Kernel cache:", f"     {tmp_path / 'cache'}"]
    module_lines = [line for line in lines if line.startswith("Module __main__ ")]
    assert len(module_lines) == 1 and module_lines[0].endswith("(compiled)"), result.stdout
    assert lines[-1] == "[3.0, 3.0, 3.0, 3.0]"


def test_startup_device_rows_align_on_the_longest_alias():
    assert banner("1.2", [("cpu", "x86_64")], "/c", True).splitlines() == [
        "Warp (warp-suite) 1.2 initialized:",
        "   Devices:",
        '     "cpu" : x86_64',
        "   Kernel cache:",
        "     /c",
    ]
    rows = [("cpu", "x86_64"), ("cuda:0", "NVIDIA H200"), ("cuda:1", "NVIDIA H200")]
    text = banner("1.2", rows, "/c", False)
    assert text.splitlines()[1:] == [
        "   Devices:",
        '     "cpu"    : x86_64',
        '     "cuda:0" : NVIDIA H200',
        '     "cuda:1" : NVIDIA H200',
        "   Kernel cache:",
        "     /c (disabled)",
    ]


def test_startup_line_comes_at_the_first_device_query(tmp_path):
    """As NVIDIA Warp's lazy init: listing devices prints the line, so output captured around a
    later launch (a test harness's) holds only what the program prints."""
    result = _run(
        """
        import warp as wp

        @wp.kernel
        def one(a: wp.array(dtype=float)):
            a[wp.tid()] = 1.0

        print("imported")
        devices = wp.get_devices()
        print("listed", [str(d) for d in devices][:1])
        wp.config.quiet = False
        a = wp.zeros(2)
        wp.launch(one, dim=2, inputs=[a])
        print(a.numpy().tolist())
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "imported"
    assert lines[1] == f"Warp (warp-suite) {wp.__version__} initialized:"
    listed = lines.index("listed ['cpu']")
    assert all("initialized" not in line for line in lines[listed:])
    assert lines[-1] == "[1.0, 1.0]"


def test_quiet_prints_nothing(tmp_path):
    result = _run(
        """
        import warp as wp
        wp.config.quiet = True

        @wp.kernel
        def one(a: wp.array(dtype=float)):
            a[wp.tid()] = 1.0

        wp.init()
        wp.launch(one, dim=1, inputs=[wp.zeros(1)])
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""


def test_verbose_says_why_each_kernel_is_compiled(tmp_path):
    code = """
        import warp as wp
        wp.config.verbose = True

        @wp.kernel
        def one(a: wp.array(dtype=float)):
            a[wp.tid()] = 1.0

        a = wp.zeros(1)
        wp.launch(one, dim=1, inputs=[a])
        wp.set_module_options({"fast_math": True})
        wp.launch(one, dim=1, inputs=[a])
        """
    first = _run(code, tmp_path)
    assert first.returncode == 0, first.stderr
    verbose = [line for line in first.stdout.splitlines() if line.startswith("Warp: kernel 'one'")]
    assert len(verbose) == 2, first.stdout
    assert "cache miss, compiling;" in verbose[0]
    assert "options changed since the last compile: fast_math False -> True" in verbose[1]
    second = _run(code, tmp_path)  # same cache: both variants are hits now
    verbose = [line for line in second.stdout.splitlines() if line.startswith("Warp: kernel 'one'")]
    assert [": cache hit;" in line for line in verbose] == [True, True], second.stdout


def test_long_compile_prints_a_progress_line(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(log, "PROGRESS_AFTER_S", 0.0)
    monkeypatch.setattr(wp.config, "quiet", False)
    monkeypatch.setattr(wp.config, "kernel_cache_dir", str(tmp_path))

    @wp.kernel
    def progress_kernel(a: wp.array(dtype=float)):
        a[wp.tid()] = 7.0

    a = wp.zeros(2)
    wp.launch(progress_kernel, dim=2, inputs=[a])
    np.testing.assert_array_equal(a.numpy(), [7.0, 7.0])
    captured = capsys.readouterr()
    out = captured.err  # a status message: stdout holds only the program's output and the load line
    assert "compiling kernel" not in captured.out
    assert "Warp: compiling kernel 'progress_kernel' of module " in out
    assert "for device 'cpu' (more than 0 s so far)..." in out


def test_clear_kernel_cache_removes_only_cache_entries(monkeypatch, tmp_path):
    monkeypatch.setattr(wp.config, "kernel_cache_dir", str(tmp_path))

    @wp.kernel
    def cached_kernel(a: wp.array(dtype=float)):
        a[wp.tid()] = 3.0

    a = wp.zeros(2)
    wp.launch(cached_kernel, dim=2, inputs=[a])
    (tmp_path / "notes.txt").write_text("mine")
    assert len(glob.glob(str(tmp_path / "*.wpk"))) == 1
    wp.clear_kernel_cache()
    assert glob.glob(str(tmp_path / "*.wpk")) == []
    assert (tmp_path / "notes.txt").read_text() == "mine"
    wp.clear_lto_cache()  # nothing to clear; accepted
    wp.launch(cached_kernel, dim=2, inputs=[a])  # loaded code keeps working
    cached_kernel.unload()
    a.zero_()
    wp.launch(cached_kernel, dim=2, inputs=[a])  # compiled again into the emptied cache
    np.testing.assert_array_equal(a.numpy(), [3.0, 3.0])
    assert len(glob.glob(str(tmp_path / "*.wpk"))) == 1


def test_kernel_defined_with_python_c_says_to_use_a_file(tmp_path):
    result = _run(
        """
import warp as wp
@wp.kernel
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0
wp.launch(k, dim=1, inputs=[wp.zeros(1)])
""",
        tmp_path,
        file=False,
    )
    assert result.returncode == 1
    assert "WarpCodegenError: cannot read the source of 'k'" in result.stderr
    assert "define them in a .py file" in result.stderr


@pytest.mark.parametrize("name", ["__version__"])
def test_version_comes_from_the_installed_metadata(name):
    import importlib.metadata

    assert getattr(wp, name) == wp.config.version == importlib.metadata.version("warp-core")
