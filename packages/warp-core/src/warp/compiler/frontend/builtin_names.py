"""Kernel builtins met by name in kernel code (``wp.sin``, ``sin`` from ``from warp import *``),
and the public ``warp`` namespace that kernel code refers to.

The compiler sits below the public API, so it never imports the ``warp`` package: kernel code
that writes ``wp.<name>`` hands the frontend that module object, and a name resolved "as
``wp.<name>``" (NVIDIA Warp resolves undefined builtin names that way) is looked up in the
loaded module by name (:func:`warp_namespace`).
"""

from __future__ import annotations

import sys
import types
from typing import Any

#: The import name of the public namespace.
WARP_NAMESPACE = "warp"


def warp_namespace() -> types.ModuleType:
    """The loaded public ``warp`` module (kernel code is compiled only once it is imported)."""
    return sys.modules[WARP_NAMESPACE]


def is_warp_namespace(obj: Any) -> bool:
    """Whether ``obj`` is the public ``warp`` module (``wp`` in ``import warp as wp``)."""
    return isinstance(obj, types.ModuleType) and obj.__name__ == WARP_NAMESPACE


class BuiltinName:
    """Reference to a kernel builtin by name (``wp.sin`` resolved through the registry)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def python_object(self) -> Any:
        """What ``wp.<name>`` is at Python scope (``wp.float64`` is the type), or None."""
        return getattr(warp_namespace(), self.name, None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"wp.{self.name} is a kernel builtin: call it inside a @wp.kernel or @wp.func "
            "(calling it from Python scope is not supported)"
        )

    def __repr__(self) -> str:
        return f"wp.{self.name}"


__all__ = ["WARP_NAMESPACE", "BuiltinName", "is_warp_namespace", "warp_namespace"]
