"""Every install hint warp can print is a command that works from a checkout of this repository.

The hints live in one table (``warp.plugins.install_hints.INSTALL_COMMANDS``); error messages build
them with ``install_hint``. These tests check the table against the pyproject files, and check
that no source file spells a ``pip install`` command of its own.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from warp.plugins import declarations
from warp.plugins.install_hints import INSTALL_COMMANDS, InstallCommand, install_hint

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def _umbrella_extras() -> set[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(data["tool"]["warp-suite"]["optional-dependencies"])


def _package_extras() -> dict[str, set[str]]:
    """Distribution name of each folder under packages/ -> its extras."""
    out = {}
    for pyproject in sorted((ROOT / "packages").glob("*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        assert project["name"] == pyproject.parent.name, f"{pyproject}: name differs from its folder"
        out[project["name"]] = set(project.get("optional-dependencies", {}))
    return out


@pytest.mark.parametrize("what", sorted(INSTALL_COMMANDS))
def test_each_hint_names_an_existing_extra_or_package(what):
    command = INSTALL_COMMANDS[what]
    assert command.extra is not None or command.package is not None
    if command.extra:
        assert command.extra in _umbrella_extras(), f"{what}: no extra '{command.extra}' in pyproject.toml"
    if command.package is not None:
        name, _, extra = command.package.partition("[")
        packages = _package_extras()
        assert name in packages, f"{what}: no folder packages/{name} with a pyproject.toml"
        if extra:
            assert extra.rstrip("]") in packages[name], f"{what}: {name} has no extra '{extra.rstrip(']')}'"


def test_hint_text_is_a_command_run_from_the_checkout():
    assert install_hint("warp-geometry") == (
        'pip install ".[geometry]" from the root of the warp-suite checkout, '
        'or pip install "./packages/warp-geometry"'
    )
    assert install_hint("warp-builtins").startswith('pip install "." from the root')
    assert install_hint("warp-interop") == (
        'pip install "./packages/warp-interop" from the root of the warp-suite checkout'
    )
    cuda = InstallCommand("cuda", "warp-core[cuda]").text()
    assert cuda.endswith('pip install "./packages/warp-core[cuda]"')
    with pytest.raises(KeyError, match="no install hint for 'warp-nothing'; add it to INSTALL_COMMANDS"):
        install_hint("warp-nothing")


def test_every_distribution_that_declares_what_it_provides_has_a_hint():
    named = {d.distribution for d in declarations.declarations()}
    assert named >= {"warp-builtins", "warp-geometry", "warp-autodiff", "warp-interop"}, named
    missing = sorted(d for d in named if d not in INSTALL_COMMANDS)
    assert not missing, f"add {missing} to INSTALL_COMMANDS in warp/plugins/install_hints.py"


#: "pip install" followed by anything but options and a path in this checkout ("." or "./packages/...")
_PIP = re.compile(r"pip install (?:--\S+ )*(?![\"'`]?\.|--)")


def test_no_source_file_builds_its_own_pip_install_hint():
    offenders = []
    for path in sorted((ROOT / "packages").glob("*/src/**/*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _PIP.search(line) and "install_hints.py" not in path.name:
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "build install hints with warp.plugins.install_hints.install_hint:\n" + "\n".join(
        offenders
    )
