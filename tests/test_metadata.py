"""Licence and metadata of every distribution of this repository, read with importlib.metadata.

Each distribution's metadata is generated from its pyproject.toml (setuptools' ``egg_info``
into a temporary folder, so the test sees the files as they are, not what was installed
earlier) and read back through ``importlib.metadata.PathDistribution``.
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

import warp as wp

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = sorted(p.parent for p in (ROOT / "packages").glob("*/pyproject.toml"))
DISTRIBUTIONS = [ROOT] + PACKAGE_DIRS
LICENSE = (ROOT / "LICENSE").read_text(encoding="utf-8")


def _generated_metadata(project: Path, tmp_path: Path) -> tuple[importlib.metadata.Distribution, str]:
    """(distribution, SOURCES.txt) generated from ``project``'s pyproject.toml."""
    out = tmp_path / "meta"
    out.mkdir()
    inline = ["-c", "import setuptools; setuptools.setup()"]
    setup = ["setup.py"] if (project / "setup.py").is_file() else inline
    proc = subprocess.run(
        [sys.executable, *setup, "-q", "egg_info", "--egg-base", str(out)],
        cwd=project, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (egg_info,) = out.glob("*.egg-info")
    sources = (egg_info / "SOURCES.txt").read_text(encoding="utf-8")
    return importlib.metadata.PathDistribution(egg_info), sources


@pytest.mark.slow
@pytest.mark.parametrize("project", DISTRIBUTIONS, ids=lambda p: p.name)
def test_distribution_metadata_carries_licence_authors_urls_and_readme(project, tmp_path):
    dist, sources = _generated_metadata(project, tmp_path)
    meta = dist.metadata
    assert meta["License"] == "Apache-2.0"
    assert "License :: OSI Approved :: Apache Software License" in meta.get_all("Classifier")
    assert meta["Author"] == "The warp-suite developers"
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert urls and all(u.startswith("https://") for u in urls.values()), urls
    assert meta["Description-Content-Type"] == "text/markdown"
    readme = (project / "README.md").read_text(encoding="utf-8")
    assert meta.get_payload().strip() == readme.strip()
    assert "LICENSE" in meta.get_all("License-File")
    assert dist.version == wp.__version__
    if project != ROOT:  # each package ships its type information (PEP 561)
        (module,) = [p for p in (project / "src").iterdir() if p.is_dir() and not p.name.endswith("egg-info")]
        assert (module / "py.typed").is_file()
        assert f"src/{module.name}/py.typed" in sources.splitlines()


@pytest.mark.parametrize("project", PACKAGE_DIRS, ids=lambda p: p.name)
def test_every_package_ships_the_same_licence(project):
    assert (project / "LICENSE").read_text(encoding="utf-8") == LICENSE
    assert LICENSE.lstrip().startswith("Apache License\n                           Version 2.0, January 2004")


def test_versions_move_together():
    """The pyproject files, the installed metadata and the plugins' __version__ agree with warp's."""
    version_line = re.compile(r'^version = "([^"]*)"$', re.MULTILINE)
    versions = {
        p.name: version_line.search((p / "pyproject.toml").read_text()).group(1) for p in DISTRIBUTIONS
    }
    assert set(versions.values()) == {wp.__version__}, (
        f"{versions} vs warp.__version__ {wp.__version__}: set them all with scripts/set_version.py "
        "and reinstall"
    )
    for project in PACKAGE_DIRS:
        assert importlib.metadata.version(project.name) == wp.__version__
    import warp_autodiff
    import warp_builtins
    import warp_geometry
    import warp_interop

    plugins = (warp_autodiff, warp_builtins, warp_geometry, warp_interop)
    assert {m.__version__ for m in plugins} == {wp.__version__}


def test_set_version_script_finds_every_version_line():
    import importlib.util

    spec = importlib.util.spec_from_file_location("set_version", ROOT / "scripts" / "set_version.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    files = {path.relative_to(ROOT).as_posix() for path, _ in module.version_files()}
    assert "pyproject.toml" in files
    assert {f"packages/{p.name}/pyproject.toml" for p in PACKAGE_DIRS} <= files
    assert "packages/warp-builtins/src/warp_builtins/__init__.py" in files
    assert module.main(["not-a-version"]) == 2
