"""``PyObj``: a compile-time Python object met in kernel code (its own module so that the call
binding helpers can use it without importing the builder), and how error messages name one."""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any


@dataclass
class PyObj:
    """A compile-time Python object met in kernel code (module, type, function, string, tuple)."""

    obj: Any


def describe(obj: Any) -> str:
    """What ``obj`` (a PyObj or a Python object) is, for error messages: ``module m``, ``class C``
    or the name of its type."""
    inner = obj.obj if isinstance(obj, PyObj) else obj
    if isinstance(inner, types.ModuleType):
        return f"module {inner.__name__}"
    if isinstance(inner, type):
        return f"class {inner.__name__}"
    return type(inner).__name__
