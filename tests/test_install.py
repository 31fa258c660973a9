"""The umbrella distribution installs the packages of this checkout with the chosen extras."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ROOT / "packages"


def _metadata_requirements(hook: str, tmp_path: Path) -> list[str]:
    """``Requires-Dist`` lines of the umbrella's metadata prepared by the in-tree backend's ``hook``."""
    code = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT / "build_backend")!r})
        import warp_suite_build
        print(warp_suite_build.{hook}({str(tmp_path)!r}))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    dist_info = tmp_path / proc.stdout.strip().splitlines()[-1]
    lines = (dist_info / "METADATA").read_text().splitlines()
    return [line.split(":", 1)[1].strip() for line in lines if line.startswith("Requires-Dist:")]


def test_regular_build_points_local_packages_at_the_checkout(tmp_path: Path) -> None:
    requires = _metadata_requirements("prepare_metadata_for_build_wheel", tmp_path)
    core = (PACKAGES / "warp-core").as_uri()
    assert f"warp-core@ {core}" in [r.replace(" @ ", "@ ") for r in requires]
    autodiff = [r for r in requires if r.startswith("warp-autodiff")]
    assert autodiff and (PACKAGES / "warp-autodiff").as_uri() in autodiff[0]
    assert 'extra == "autodiff"' in autodiff[0] and 'extra == "all"' in " ".join(autodiff)
    for req in requires:  # every direct reference names a package folder of this checkout
        if "file://" in req:
            folder = Path(req.split("file://", 1)[1].split(";")[0].strip())
            assert (folder / "pyproject.toml").is_file(), req


def test_editable_build_keeps_plain_names(tmp_path: Path) -> None:
    requires = _metadata_requirements("prepare_metadata_for_build_editable", tmp_path)
    assert "warp-core" in requires
    assert not [r for r in requires if "file://" in r]


@pytest.mark.slow
def test_pip_resolves_extras_from_the_checkout_without_an_index(tmp_path: Path) -> None:
    """What failed before: pip looked for warp-core on the package index."""
    report = tmp_path / "report.json"
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--no-index",
            "--no-build-isolation",
            "--quiet",
            "--report",
            str(report),
            f"{ROOT}[autodiff]",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    if proc.returncode != 0 and "no such option: --report" in proc.stderr:
        pytest.skip("pip too old for --report")
    assert proc.returncode == 0, proc.stderr[-3000:]
    installs = {item["metadata"]["name"]: item for item in json.loads(report.read_text())["install"]}
    for name in ("warp-suite", "warp-core", "warp-builtins", "warp-autodiff"):
        assert name in installs, sorted(installs)
    assert installs["warp-core"]["download_info"]["url"] == (PACKAGES / "warp-core").as_uri()
