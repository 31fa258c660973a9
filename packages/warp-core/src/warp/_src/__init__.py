"""``warp._src``: the names under which NVIDIA Warp's own code reaches some public modules.

NVIDIA Warp keeps its implementation in ``warp._src`` and re-exports the public API from it, so
code written against Warp sometimes spells a public module as ``warp._src.types`` or
``wp._src.utils``. Here those spellings are aliases of the public modules themselves
(``warp._src.types is warp.types``; ``warp._src.autograd is warp.autograd`` where warp-autodiff
is installed), for the modules whose public names agree with Warp's. This
package holds nothing of its own: Warp's private machinery (``context``, ``build``, the native
``runtime.core``) has no counterpart here, and importing it raises ``ModuleNotFoundError``.
"""

from __future__ import annotations

import importlib
import sys

from warp import codegen, types, utils

#: public modules that ``warp._src.<name>`` stands for
ALIASED_MODULES = {"codegen": codegen, "types": types, "utils": utils}

#: public submodules provided by plugins that ``warp._src.<name>`` also stands for when the
#: plugin is installed (``warp._src.autograd is warp.autograd``, from warp-autodiff)
PLUGIN_MODULES = ("autograd",)

for _name, _module in ALIASED_MODULES.items():
    sys.modules[f"{__name__}.{_name}"] = _module


def alias_plugin_modules() -> None:
    """Alias the :data:`PLUGIN_MODULES` that installed plugins provide (``import warp`` calls
    this once its plugins are loaded); the others stay missing."""
    for name in PLUGIN_MODULES:
        try:
            module = importlib.import_module(f"warp.{name}")
        except ImportError:  # the plugin is not installed
            continue
        ALIASED_MODULES[name] = module
        sys.modules[f"{__name__}.{name}"] = module

__all__ = ["codegen", "types", "utils"]
