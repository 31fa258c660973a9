"""The install hints of warp's error messages, all in one table.

Every hint is a command that works from a checkout of this repository (none of these packages is
on a package index under its name): an extra of the umbrella distribution, ``pip install
".[geometry]"``, or a folder of ``packages/``, ``pip install "./packages/warp-geometry"``. Error
messages build their hint with :func:`install_hint`; ``tests/plugins/test_install_hints.py`` checks
every entry against the pyproject files. This module imports nothing from ``warp`` so any layer
may use it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InstallCommand:
    """How to install one missing piece from a checkout of this repository.

    ``extra`` names an extra of the umbrella ``warp-suite`` (``pyproject.toml``; ``""`` for the
    umbrella itself), ``package`` a folder under ``packages/`` (optionally with its own extra,
    ``"warp-core[cuda]"``). Nothing here is on a package index under these names: the commands
    are run from the root of the checkout.
    """

    extra: str | None
    package: str | None = None

    def text(self) -> str:
        """The command(s): ``pip install ".[geometry]"`` (or ``pip install "./packages/warp-geometry"``)."""
        commands = []
        if self.extra is not None:
            commands.append(f'pip install ".[{self.extra}]"' if self.extra else 'pip install "."')
        if self.package is not None:
            name, bracket, extra = self.package.partition("[")
            commands.append(f'pip install "./packages/{name}{bracket}{extra}"')
        first = commands[0] + " from the root of the warp-suite checkout"
        return first + "".join(f", or {c}" for c in commands[1:])


#: Every install hint an error message of warp (and its packages) can print, keyed by what is
#: missing: a distribution of ``packages/``, a framework, or a tool. ``tests/plugins/test_install_hints.py``
#: checks that each extra and package named here exists in this repository's pyproject files.
INSTALL_COMMANDS: dict[str, InstallCommand] = {
    "warp-builtins": InstallCommand("", "warp-builtins"),
    "warp-autodiff": InstallCommand("autodiff", "warp-autodiff"),
    "warp-geometry": InstallCommand("geometry", "warp-geometry"),
    "warp-interop": InstallCommand(None, "warp-interop"),
    "torch": InstallCommand("torch"),
    "jax": InstallCommand("jax"),
    "paddle": InstallCommand("paddle"),
    "cuda-python": InstallCommand("cuda", "warp-core[cuda]"),
    "libdevice": InstallCommand("libdevice"),
    "usd-core": InstallCommand("usd"),
}


def distribution_hint(distribution: str) -> str:
    """The install command for a plugin distribution: this checkout's command for its own packages
    (:data:`INSTALL_COMMANDS`), ``pip install <name>`` for any other (a third-party plugin that
    declares what it provides, see :mod:`warp.plugins.declarations`)."""
    command = INSTALL_COMMANDS.get(distribution)
    return command.text() if command is not None else f"pip install {distribution}"


def install_hint(what: str) -> str:
    """The install command(s) for ``what`` (a key of :data:`INSTALL_COMMANDS`)."""
    try:
        return INSTALL_COMMANDS[what].text()
    except KeyError:
        raise KeyError(f"no install hint for {what!r}; add it to INSTALL_COMMANDS ({__name__})") from None
