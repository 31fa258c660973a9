"""Set the version of every distribution of this repository at once (they move together).

Usage::

    python scripts/set_version.py 0.2.0

Rewrites ``version = "..."`` in ``pyproject.toml`` and ``packages/*/pyproject.toml`` and the
``__version__`` literals of the plugin packages. ``warp.__version__`` (``wp.config.version``)
reads the installed warp-core's metadata, so reinstall afterwards (``pip install -e ...``).
``tests/test_metadata.py`` fails while the versions disagree.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_PYPROJECT_VERSION = re.compile(r'^version = "[^"]*"$', re.MULTILINE)
_DUNDER_VERSION = re.compile(r'^__version__ = "[^"]*"$', re.MULTILINE)
_VALID = re.compile(r"^\d+\.\d+\.\d+([.-]?(a|b|rc|dev|post)\d+)?$")


def version_files() -> list[tuple[Path, re.Pattern[str]]]:
    """Every file holding the version, with the pattern of its version line."""
    files = [(ROOT / "pyproject.toml", _PYPROJECT_VERSION)]
    files += [(p, _PYPROJECT_VERSION) for p in sorted((ROOT / "packages").glob("*/pyproject.toml"))]
    files += [(p, _DUNDER_VERSION) for p in sorted((ROOT / "packages").glob("*/src/*/__init__.py"))
              if _DUNDER_VERSION.search(p.read_text(encoding="utf-8"))]
    return files


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not _VALID.match(argv[0]):
        print("usage: python scripts/set_version.py X.Y.Z", file=sys.stderr)
        return 2
    version = argv[0]
    for path, pattern in version_files():
        text = path.read_text(encoding="utf-8")
        line = f'version = "{version}"' if pattern is _PYPROJECT_VERSION else f'__version__ = "{version}"'
        new, count = pattern.subn(line, text, count=1)
        if count != 1:
            print(f"error: no version line in {path}", file=sys.stderr)
            return 1
        path.write_text(new, encoding="utf-8")
        print(f"{path.relative_to(ROOT)}: {version}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
