"""The root class of composite values (vectors, matrices, quaternions, transforms) and the helpers
that read components out of Python-scope values.

:class:`CompositeData` holds the storage every composite value has (``_data``, a NumPy array of the
components) and nothing else. The value classes (:class:`warp.types.composite_values.CompositeBase`
and its kinds) derive from it through the mixins of :mod:`warp.types.composite_arithmetic` and
:mod:`warp.types.composite_hooks`, which sit below :mod:`warp.types.composite_values` and so test
for a composite value with ``isinstance(v, CompositeData)``: only composite values derive from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from warp.types.scalars import is_scalar_type


class CompositeData:
    """Storage of a composite value: its components in ``_data`` (shape ``_shape_``)."""

    # "__dict__": values take attributes of their own (``v.tag = 1``), as NVIDIA Warp's do
    __slots__ = ("_data", "__dict__")

    _data: np.ndarray
    # class attributes, set by CompositeBase and the concrete classes (see warp.types.composite_values)
    _wp_kind_: str
    _shape_: tuple[int, ...]
    _wp_scalar_type_: Any

    if TYPE_CHECKING:  # the constructor is CompositeBase's (the mixins' classmethods call cls(...))

        def __init__(self, *args: Any) -> None: ...


def _unwrap(v: Any) -> Any:
    if isinstance(v, CompositeData):
        return v._data
    return getattr(v, "value", v) if is_scalar_type(type(v)) else v


def _flatten(v: Any) -> Any:
    if isinstance(v, CompositeData):
        return v._data.reshape(-1)
    return np.asarray([_unwrap(x) for x in v] if isinstance(v, (list, tuple)) else v).reshape(-1)


def _flatten_args(args: tuple) -> list[Any]:
    out: list[Any] = []
    for a in args:
        if isinstance(a, CompositeData) or isinstance(a, (list, tuple, np.ndarray)):
            out.extend(np.asarray(_flatten(a)).tolist())
        else:
            out.append(a)
    return out
