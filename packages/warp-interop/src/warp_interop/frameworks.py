"""Lazy access to the optional frameworks, with install hints when one is missing."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from warp.extending import install_hint

#: framework module -> the umbrella extra that installs it (the command: warp.plugins.missing.install_hint)
EXTRAS = {"torch": "torch", "jax": "jax", "paddle": "paddle"}

_DISTRIBUTIONS = {"torch": "torch", "jax": "jax", "paddle": "paddlepaddle"}


def require(name: str, what: str) -> ModuleType:
    """The framework module ``name``, imported now if needed; ``what`` names the caller in errors."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(
            f"{what} needs {_DISTRIBUTIONS[name]}, which is not installed: {install_hint(EXTRAS[name])}"
        ) from exc


def loaded(name: str) -> ModuleType | None:
    """The framework module if it was already imported (by the user), else None; never imports."""
    return sys.modules.get(name)
