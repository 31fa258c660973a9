"""What each installed plugin distribution declares it provides, read without importing it.

A distribution of the ``warp`` entry-point group ships ``warp_provides.json`` next to the package
of its entry-point module (``warp_builtins/warp_provides.json``)::

    {"builtins": ["sin", ...], "builtin_prefixes": ["mesh_"], "python_names": ["Tape"],
     "submodules": ["warp.autograd"], "module_names": {"warp.geometry": ["swept_volume_mesh"]}}

Every key is optional. Error messages use it to name the package to install when a kernel calls
a builtin, or code reaches ``wp.<name>`` or imports ``warp.<module>``, that an installed but
disabled (``WARP_DISABLE_PLUGINS``) or broken plugin would provide; ``module_names`` lists the names
a plugin publishes on warp-core's own modules (``warp_module_exports``). The file is found through
``importlib.util.find_spec`` of the top-level package, which does not run the package's code, and
read once, on the first error that needs it.

A distribution that is not installed declares nothing; for this repository's own plugin
distributions warp-core keeps a copy of their declarations (:data:`REPOSITORY_FILE`, checked
against their files by ``tests/plugins/test_plugin_declarations.py``), consulted for those not
installed (:func:`known_declarations`).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import warnings
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from warp.plugins.hookspecs import PROJECT_NAME

#: the declaration file's name, in the top-level package of a plugin's entry-point module
FILE_NAME = "warp_provides.json"
#: warp-core's copy of the declarations of this repository's plugin distributions, keyed by name
REPOSITORY_FILE = Path(__file__).with_name("repository_declarations.json")


@dataclass(frozen=True)
class Declaration:
    """What one distribution provides to warp."""

    distribution: str
    builtins: frozenset[str] = frozenset()
    builtin_prefixes: tuple[str, ...] = ()
    python_names: frozenset[str] = frozenset()
    submodules: frozenset[str] = frozenset()
    #: names published on warp-core's modules, dotted: ``"warp.geometry.swept_volume_mesh"``
    module_names: frozenset[str] = frozenset()

    def provides_builtin(self, name: str) -> bool:
        """Whether kernel builtin ``name`` is among the declared ones (or has a declared prefix)."""
        return name in self.builtins or name.startswith(self.builtin_prefixes)


def _declaration_file(module: str) -> Path | None:
    spec = importlib.util.find_spec(module.partition(".")[0])
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / FILE_NAME
        if path.is_file():
            return path
    return None


def _read(distribution: str, path: Path) -> Declaration:
    return _declaration(distribution, json.loads(path.read_text(encoding="utf-8")))


def _declaration(distribution: str, data: dict) -> Declaration:
    return Declaration(
        distribution=distribution,
        builtins=frozenset(data.get("builtins", ())),
        builtin_prefixes=tuple(data.get("builtin_prefixes", ())),
        python_names=frozenset(data.get("python_names", ())),
        submodules=frozenset(data.get("submodules", ())),
        module_names=frozenset(
            f"{module}.{name}" for module, names in data.get("module_names", {}).items() for name in names
        ),
    )


@functools.cache
def declarations() -> tuple[Declaration, ...]:
    """The declarations of every installed distribution with a ``warp`` entry point (disabled too)."""
    found: dict[str, Declaration] = {}
    for ep in metadata.entry_points(group=PROJECT_NAME):
        dist = ep.dist.name if ep.dist is not None else ep.name
        if dist in found:
            continue
        try:
            path = _declaration_file(ep.module)
            if path is not None:
                found[dist] = _read(dist, path)
        except (OSError, ValueError, ImportError) as exc:  # a damaged file must not hide the real error
            warnings.warn(f"warp: cannot read {FILE_NAME} of '{dist}': {exc}", RuntimeWarning, stacklevel=2)
    return tuple(found.values())


@functools.cache
def repository_declarations() -> tuple[Declaration, ...]:
    """The declarations of this repository's plugin distributions, from warp-core's copy."""
    data = json.loads(REPOSITORY_FILE.read_text(encoding="utf-8"))
    return tuple(_declaration(dist, entry) for dist, entry in data.items() if isinstance(entry, dict))


def known_declarations() -> tuple[Declaration, ...]:
    """The installed distributions' declarations, then warp-core's copy of those of this
    repository's distributions that are not installed."""
    installed = declarations()
    names = {d.distribution for d in installed}
    return installed + tuple(d for d in repository_declarations() if d.distribution not in names)


def providing_distribution(name: str) -> str | None:
    """The distribution that declares kernel builtin ``name``, or None if no known one does."""
    return next((d.distribution for d in known_declarations() if d.provides_builtin(name)), None)


def python_name_distribution(name: str) -> str | None:
    """The distribution that declares the Python-scope name ``wp.<name>``, or None."""
    return next((d.distribution for d in known_declarations() if name in d.python_names), None)


def submodule_distribution(module: str) -> str | None:
    """The distribution that declares the submodule ``module`` (e.g. ``"warp.autograd"``), or None."""
    return next((d.distribution for d in known_declarations() if module in d.submodules), None)


def module_name_distribution(module: str, name: str) -> str | None:
    """The distribution that declares ``name`` on warp-core's module ``module``
    (e.g. ``("warp.geometry", "swept_volume_mesh")``), or None."""
    return next((d.distribution for d in known_declarations() if f"{module}.{name}" in d.module_names), None)
