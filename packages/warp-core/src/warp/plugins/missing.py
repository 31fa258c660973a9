"""Clear errors for names and submodules of ``warp`` that an uninstalled package provides.

``wp.Tape`` without warp-autodiff, or ``import warp.jax_experimental`` without warp-interop,
raise an error naming the distribution to install instead of a bare ``AttributeError`` /
``ModuleNotFoundError``. Plugins publish their submodules by putting them in ``sys.modules``
when they load (e.g. ``sys.modules["warp.autograd"]``), so the finder below is consulted only
when no installed plugin provides the module.
"""

from __future__ import annotations

import importlib.abc
import sys
from typing import Any

from warp import not_provided
from warp.plugins.declarations import (
    module_name_distribution, providing_distribution, python_name_distribution, submodule_distribution,
)
from warp.plugins.install_hints import distribution_hint
from warp.plugins.manager import disabled_plugins


def _hint(dist: str) -> str:
    disabled = disabled_plugins()
    extra = f"; plugins disabled by WARP_DISABLE_PLUGINS: {', '.join(sorted(disabled))}" if disabled else ""
    return f"it is provided by the '{dist}' package (install it with: {distribution_hint(dist)}){extra}"


def missing_attribute(name: str) -> AttributeError:
    """The error for ``wp.<name>`` when no plugin exported it."""
    error = not_provided.missing_name_error(name)
    if error is not None:
        return error
    dist = python_name_distribution(name) or providing_distribution(name)
    if dist is not None:
        return AttributeError(f"module 'warp' has no attribute '{name}': {_hint(dist)}")
    return AttributeError(f"module 'warp' has no attribute '{name}'")


def missing_module_attribute(module: str, name: str) -> AttributeError | None:
    """The error for ``<module>.<name>`` (a warp-core module) when a plugin that is not loaded
    declares that name, or None."""
    dist = module_name_distribution(module, name)
    if dist is None:
        return None
    return AttributeError(f"module '{module}' has no attribute '{name}': {_hint(dist)}", name=name)


class MissingSubmoduleFinder(importlib.abc.MetaPathFinder):
    """Last entry of ``sys.meta_path``: known plugin submodules that nothing provided."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        error = not_provided.missing_module_error(fullname)
        if error is not None:
            raise error
        dist = submodule_distribution(fullname)
        if dist is not None and fullname not in sys.modules:
            raise ModuleNotFoundError(f"No module named '{fullname}': {_hint(dist)}", name=fullname)
        return None


def install_finder() -> None:
    """Append :class:`MissingSubmoduleFinder` to ``sys.meta_path`` (once)."""
    if not any(isinstance(f, MissingSubmoduleFinder) for f in sys.meta_path):
        sys.meta_path.append(MissingSubmoduleFinder())
