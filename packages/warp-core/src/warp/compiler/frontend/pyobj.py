"""``PyObj``: a compile-time Python object met in kernel code (its own module so that the call
binding helpers can use it without importing the builder)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class PyObj:
    """A compile-time Python object met in kernel code (module, type, function, string, tuple)."""

    obj: Any
