"""What ``import warp`` checks first, and the start-up line the runtime prints once.

NVIDIA's ``warp-lang`` distribution installs the same top-level package ``warp`` as this
project; installed into one environment, pip mixes the files of both in one ``warp/`` folder and
neither works (uninstalling one then deletes files of the other). :func:`check_coexistence`
looks for an installed ``warp-lang`` by the name of its metadata folder on ``sys.path`` (a
directory listing per entry, about a millisecond) and stops ``import warp`` with an
``ImportError`` saying what to do, when this module is imported (``warp/__init__.py`` imports it
first). It imports nothing from ``warp`` so that it runs before anything else.
"""

from __future__ import annotations

import os
import sys
from typing import Iterable

#: distribution names (normalized: lower case, "-" and "." as "_") that install a conflicting ``warp``
CONFLICTING_DISTRIBUTIONS = ("warp_lang",)

_METADATA_SUFFIXES = (".dist-info", ".egg-info")


def find_conflicting_distribution(paths: Iterable[str] | None = None) -> str | None:
    """Path of the metadata folder of an installed ``warp-lang`` on ``paths`` (default ``sys.path``)."""
    for entry in sys.path if paths is None else paths:
        directory = entry or os.getcwd()
        try:
            names = os.listdir(directory)
        except OSError:  # missing folder, zip file, no permission
            continue
        for name in names:
            lowered = name.lower()
            if not lowered.endswith(_METADATA_SUFFIXES):
                continue
            project = lowered.split("-", 1)[0].replace(".", "_")
            if project in CONFLICTING_DISTRIBUTIONS:
                return os.path.join(directory, name)
    return None


def conflict_message(metadata_path: str) -> str:
    """The explanation raised when ``warp-lang`` is installed in the same environment."""
    return (
        "warp-suite cannot be used in an environment where NVIDIA's 'warp-lang' is also installed "
        f"(found {metadata_path}). Both distributions install the top-level package 'warp', so pip "
        "mixes their files in one folder and neither works. Use a separate virtual environment for "
        "each (python -m venv), or run `pip uninstall warp-lang` and then reinstall warp-suite from "
        "its checkout (`pip install --force-reinstall --no-deps ./packages/*`), since uninstalling "
        "warp-lang also deletes files the two share."
    )


def check_coexistence() -> None:
    """Raise ``ImportError`` if ``warp-lang`` is installed beside this implementation."""
    found = find_conflicting_distribution()
    if found is not None:
        raise ImportError(conflict_message(found), name="warp")


check_coexistence()  # at import: ``warp/__init__.py`` imports this module first


def banner(version: str, devices: list[tuple[str, str]], cache_dir: str, cache_enabled: bool) -> str:
    """The start-up text: version, devices (alias, description) and the kernel cache directory."""
    lines = [f"Warp (warp-suite) {version} initialized:", "   Devices:"]
    width = max((len(alias) for alias, _ in devices), default=0) + 2
    lines += [f"     {repr(alias).replace(chr(39), chr(34)):<{width}} : {name}" for alias, name in devices]
    state = "" if cache_enabled else " (disabled)"
    lines.append(f"   Kernel cache:\n     {cache_dir}{state}")
    return "\n".join(lines)
