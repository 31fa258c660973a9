"""Argument checks shared by the framework modules."""

from __future__ import annotations

from typing import Any

from warp.extending import array, ArrayDescriptor


def check_warp_array(a: Any, what: str) -> None:
    """Raise TypeError unless ``a`` is a concrete warp array (not an annotation or a descriptor)."""
    if isinstance(a, ArrayDescriptor):
        raise TypeError(f"{what}: expected a warp array, got an array descriptor (return_ctype=True), "
                        "which can only be passed to kernel launches")
    if not isinstance(a, array) or a.ptr is None:
        raise TypeError(f"{what}: expected a warp array, got {type(a).__name__}")
