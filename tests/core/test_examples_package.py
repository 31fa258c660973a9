"""warp.examples: the example programs' folder and the data files installed with warp-core."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import warp.examples

ROOT = Path(__file__).resolve().parents[2]


def test_asset_directory_holds_the_installed_data():
    assets = Path(warp.examples.get_asset_directory())
    assert assets.is_absolute() and assets.is_dir()
    data = (assets / "sphere_ls.nvdb").read_bytes()
    assert data == (ROOT / "tests" / "geometry" / "data" / "sphere_ls_zip.nvdb").read_bytes()


@pytest.mark.needs_plugin("geometry")
def test_asset_volume_loads():
    import warp as wp

    with open(os.path.join(warp.examples.get_asset_directory(), "sphere_ls.nvdb"), "rb") as f:
        volume = wp.Volume.load_from_nvdb(f)
    assert volume.get_voxel_size() == (0.5, 0.5, 0.5)
    assert volume.get_voxel_count() == 8 * 512  # 8 leaves of 8^3 voxels


def test_source_directory_is_the_checkouts_examples_when_imported_from_it():
    """From a checkout (editable install) the examples are its ``examples/``; from an installed
    wheel, which holds no example programs, the package's own folder."""
    source = Path(warp.examples.get_source_directory())
    package = Path(warp.examples.__file__).resolve().parent
    if ROOT / "packages" in package.parents:
        assert source == ROOT / "examples"
        assert (source / "mandelbrot.py").is_file()
    else:
        assert source == package
    assert Path(warp.examples.get_output_directory()) == source / "output"


def test_build_of_warp_core_contains_the_assets(tmp_path):
    """setuptools' build_py (what a wheel is made from) copies the assets into the package."""
    source = tmp_path / "warp-core"  # a copy, so that no build folder lands in the checkout
    shutil.copytree(ROOT / "packages" / "warp-core", source,
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    proc = subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py", "--build-lib",
         str(tmp_path / "lib")],
        cwd=source, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    examples = tmp_path / "lib" / "warp" / "examples"
    assert (examples / "__init__.py").is_file()
    assert (examples / "assets" / "sphere_ls.nvdb").is_file()
