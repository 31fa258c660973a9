"""Plugin-provided submodules of ``warp`` (``warp.jax_experimental``, ``warp.torch``, ...).

Plugins name the submodules they provide with the ``warp_submodules`` hook. A finder on
``sys.meta_path`` maps ``warp.<name>`` and everything below it to the plugin's module, so
``import warp.jax_experimental`` yields the very module object ``warp_interop.jax_experimental``
(imported on first use, not at ``import warp``). Documented submodules that no installed
plugin provides are left to :mod:`warp.plugins.missing`, whose error names the distribution.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
from types import ModuleType
from typing import Any, Sequence

#: submodule name (below ``warp``) -> module that implements it
provided: dict[str, str] = {}
_lock = threading.Lock()


class _AliasLoader(importlib.abc.Loader):
    """Loads ``warp.<name>...`` as the already-importable module it aliases."""

    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        pass  # the target module was executed by its own import


class SubmoduleFinder(importlib.abc.MetaPathFinder):
    """Resolves ``warp.<name>`` (and ``warp.<name>.<sub>...``) to plugin modules."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None, target: Any = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("warp."):
            return None
        head, _, rest = fullname[5:].partition(".")
        module = provided.get(head)
        if module is None:
            return None
        target_name = f"{module}.{rest}" if rest else module
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(target_name))


_finder = SubmoduleFinder()


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (idempotent)."""
    with _lock:
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)


def register(names: dict[str, str], plugin: str) -> None:
    """Record the submodules provided by ``plugin``."""
    import warnings

    with _lock:
        for name, module in names.items():
            if name in provided and provided[name] != module:
                warnings.warn(
                    f"warp: plugin '{plugin}' provides submodule 'warp.{name}', already provided by "
                    f"'{provided[name]}'",
                    RuntimeWarning,
                    stacklevel=2,
                )
                continue
            provided[name] = module
