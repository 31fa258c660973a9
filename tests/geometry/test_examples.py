"""The geometry examples run and write their pictures (small sizes)."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("name,args,size", [
    ("mesh_raycast", ["--width", "64", "--height", "48"], (64, 48)),
    ("volume_slice", ["--size", "90"], (90, 70)),
    ("sph_neighbours", ["--particles", "3000", "--size", "64"], (64, 64)),
])
def test_example_writes_its_picture(tmp_path, name, args, size):
    out = tmp_path / f"{name}.png"
    path = _load(name).main([*args, "--out", str(out)])
    assert Path(path) == out and _png_size(out) == size
