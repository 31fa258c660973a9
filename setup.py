"""Build script of the umbrella distribution ``warp-suite``.

Its requirements live in ``[tool.warp-suite]`` of pyproject.toml. A requirement naming a
package of this checkout (a folder under ``packages/``) becomes a direct reference to that
folder (``warp-core @ file:///.../packages/warp-core``), so that ``pip install ".[all]"`` installs
the whole suite from a clone without a package index. Extras written ``warp-suite[a,b]`` are
expanded to the requirements of those extras. Editable builds keep plain names (see
``build_backend/warp_suite_build.py``).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from setuptools import setup

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent
PACKAGES = ROOT / "packages"
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")


#: Set by build_backend/warp_suite_build.py while pip builds the umbrella editable.
EDITABLE = os.environ.get("WARP_SUITE_EDITABLE_BUILD") == "1"


def _local(requirement: str) -> str:
    """``requirement`` itself, or a direct file reference when it names a local package.

    Editable builds keep the plain name: the development install puts each local package in
    editable mode beside the umbrella, and a file reference would ask for a second copy.
    """
    name, extras, rest = _NAME.match(requirement).groups()
    folder = PACKAGES / name
    if (folder / "pyproject.toml").is_file() and not EDITABLE:
        marker = rest[rest.index(";"):] if ";" in rest else ""
        return f"{name}{extras or ''} @ {folder.as_uri()}{' ' + marker if marker else ''}"
    return requirement


def _expand(extra: str, table: dict[str, list[str]], seen: tuple[str, ...] = ()) -> list[str]:
    """The requirements of ``extra``, with ``warp-suite[...]`` self-references expanded."""
    if extra in seen:
        raise ValueError(f"extra '{extra}' refers to itself: {' -> '.join(seen + (extra,))}")
    if extra not in table:
        raise ValueError(f"unknown extra '{extra}' in [tool.warp-suite.optional-dependencies]")
    out: list[str] = []
    for req in table[extra]:
        name, extras, _ = _NAME.match(req).groups()
        if name == "warp-suite":
            for inner in (extras or "[]")[1:-1].split(","):
                if inner.strip():
                    out += _expand(inner.strip(), table, seen + (extra,))
        else:
            out.append(_local(req))
    return list(dict.fromkeys(out))


config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["warp-suite"]
extras_table = config.get("optional-dependencies", {})
setup(
    install_requires=[_local(r) for r in config.get("dependencies", [])],
    extras_require={extra: _expand(extra, extras_table) for extra in extras_table},
)
