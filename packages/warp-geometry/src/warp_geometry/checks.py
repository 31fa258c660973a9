"""Validation of Python-scope arguments of the geometry classes (clear errors, never crashes)."""

from __future__ import annotations

from typing import Any

import warp as wp
from warp.extending import ArrayArgumentTypeError, DeviceMismatchError


def check_array(value: Any, owner: str, name: str, dtype: Any, ndim: int = 1) -> None:
    """Raise :class:`~warp.errors.ArrayArgumentTypeError` (a ``TypeError`` and a ``RuntimeError``)
    unless ``value`` is a ``wp.array`` of ``dtype``/``ndim``; ``ValueError`` unless contiguous."""
    if not isinstance(value, wp.array) or value.ptr is None and value.size:
        raise ArrayArgumentTypeError(
            f"{owner}: '{name}' must be a wp.array of {wp.types.type_repr(dtype)}, got {type(value).__name__}"
        )
    if value.dtype != dtype or value.ndim != ndim:
        raise ArrayArgumentTypeError(
            f"{owner}: '{name}' must be a {ndim}-d wp.array of {wp.types.type_repr(dtype)}, got a "
            f"{value.ndim}-d array of {wp.types.type_repr(value.dtype)}"
        )
    if not value.is_contiguous:
        raise ValueError(f"{owner}: '{name}' must be contiguous")


def check_vec3_array(value: Any, owner: str, name: str) -> None:
    """A 1-d contiguous array of ``wp.vec3``."""
    check_array(value, owner, name, wp.vec3)


def check_same_device(owner: str, **arrays: Any) -> Any:
    """The common device of the given arrays (None entries skipped); otherwise a
    :class:`~warp.errors.DeviceMismatchError` (a ``ValueError`` and a ``RuntimeError``)."""
    device = None
    first = None
    for name, a in arrays.items():
        if a is None:
            continue
        if device is None:
            device, first = a.device, name
        elif a.device != device:
            raise DeviceMismatchError(
                f"{owner}: '{name}' is on {a.device} but '{first}' on {device}; "
                "all buffers must live on one device"
            )
    return device
