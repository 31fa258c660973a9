"""Component-wise operators of composite values in Python scope (``+``, ``-``, ``/``, ``%``, ``==``).

:class:`CompositeArithmetic` is a mixin of :class:`warp.types.composite_values.CompositeBase`.
Results have the type of the left composite operand, components rounded to its scalar type as in
kernels (bfloat16 values included). Products (``*``, ``@``), which depend on the kinds of both
operands (matrix-vector, quaternion, transform composition), are
:mod:`warp.types.composite_values`'s.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from warp.types import bfloat16_bits
from warp.types import scalars as _s
from warp.types.composite_components import divide, value_dtype
from warp.types.composite_data import CompositeData, _unwrap

#: the type of the value an operator is called on (results have its type)
_C = TypeVar("_C", bound="CompositeArithmetic")


class CompositeArithmetic(CompositeData):
    """Component-wise arithmetic and comparison of composite values."""

    __slots__ = ()

    def _like(self: _C, data: np.ndarray) -> _C:
        out = type(self).__new__(type(self))
        scalar = self._wp_scalar_type_
        data = np.asarray(data, dtype=value_dtype(scalar))
        if scalar is _s.bfloat16:
            data = bfloat16_bits.round_values(data)
        out._data = data.reshape(self._shape_)
        return out

    def __add__(self: _C, other: Any) -> _C:
        return self._like(self._data + _operand(other, self))

    def __sub__(self: _C, other: Any) -> _C:
        return self._like(self._data - _operand(other, self))

    def __neg__(self: _C) -> _C:
        return self._like(-self._data)

    def __pos__(self: _C) -> _C:
        return self._like(self._data.copy())

    def __truediv__(self: _C, other: Any) -> _C:
        return self._like(divide(self._data, _operand(other, self)))

    def __rtruediv__(self: _C, other: Any) -> _C:
        return self._like(divide(_operand(other, self), self._data))

    def __mod__(self: _C, other: Any) -> _C:
        """Component-wise remainder with the dividend's sign (C's ``%`` and ``fmod``, as in kernels)."""
        b = _operand(other, self)
        if self._data.dtype.kind in "iu":
            with np.errstate(divide="ignore", invalid="ignore"):
                return self._like(np.where(b == 0, 0, np.fmod(self._data, np.where(b == 0, 1, b))))
        return self._like(np.fmod(self._data, b))

    def __rsub__(self: _C, other: Any) -> _C:
        return self._like(_operand(other, self) - self._data)

    def __radd__(self: _C, other: Any) -> _C:
        return self._like(_operand(other, self) + self._data)

    def __eq__(self, other: object) -> bool:
        try:
            return bool(np.array_equal(self._data, np.asarray(_unwrap(other)).reshape(self._shape_)))
        except (ValueError, TypeError):
            return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, so unhashable (the usual idiom)


def _operand(other: Any, like: CompositeData) -> np.ndarray:
    if isinstance(other, CompositeData):
        return other._data
    data = np.asarray(_unwrap(other))
    return data.reshape(like._shape_) if data.size == like._data.size else data
