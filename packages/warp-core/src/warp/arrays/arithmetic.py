"""Element-wise Python-scope arithmetic of arrays with scalars: ``a + s``, ``s - a``, ``a * s``,
``a / s``, ``a % s`` (and arrays of the same shape and dtype as either operand).

The result is a new array of the same dtype on the same device. Integers wrap around and divide
and take remainders as C does (truncating toward zero), as in kernels. The values are computed on
the host (a device array is copied there and back) and are not recorded on a ``wp.Tape``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from warp.types.scalars import ScalarBase, is_scalar_type, type_repr

_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def _host_operand(arr: Any, other: Any) -> np.ndarray | None:
    """``other`` as host values of ``arr``'s dtype, or None if it is not an operand for ``arr``."""
    dtype = arr.dtype
    np_dtype = np.dtype(dtype._np_dtype_)
    if getattr(type(other), "_wp_array_class_", False):
        if other.dtype is not dtype or tuple(other.shape) != tuple(arr.shape):
            raise TypeError(
                f"element-wise arithmetic needs arrays of one dtype and shape, got {type_repr(arr.dtype)} "
                f"{tuple(arr.shape)} and {type_repr(other.dtype)} {tuple(other.shape)}"
            )
        return other._storage()
    if isinstance(other, ScalarBase):
        if type(other) is not dtype:
            raise TypeError(
                f"cannot combine an array of {type_repr(dtype)} with a {type_repr(type(other))} "
                "(warp does not convert between numeric types implicitly)"
            )
        return np.asarray(other.value, dtype=np_dtype)
    if isinstance(other, (bool, int, float, np.number)):
        if np_dtype.kind in "iu" and isinstance(other, (float, np.floating)):
            return None
        return np.asarray(dtype(other).value, dtype=np_dtype)  # wraps as the scalar type does
    return None


def elementwise(arr: Any, other: Any, op: str, reflected: bool = False) -> Any:
    """``arr op other`` (``other op arr`` when ``reflected``) as a new array; NotImplemented when
    ``other`` is not a scalar of the array's type or a matching array, or the dtype is not a scalar."""
    if not is_scalar_type(arr.dtype) or arr.dtype.__name__ in ("bool", "bfloat16"):
        return NotImplemented
    b = _host_operand(arr, other)
    if b is None:
        return NotImplemented
    a = arr._storage()
    x, y = (b, a) if reflected else (a, b)
    with np.errstate(all="ignore"):
        if op in _OPS:
            result = _OPS[op](x, y)
        elif a.dtype.kind == "f":
            result = np.divide(x, y) if op == "div" else np.fmod(x, y)
        else:
            x, y = np.broadcast_arrays(x, y)
            if np.any(y == 0):
                raise ZeroDivisionError(f"integer {'division' if op == 'div' else 'modulo'} by zero")
            q = np.abs(x) // np.abs(y)
            q = np.where((x < 0) != (y < 0), -q, q).astype(a.dtype)
            result = q if op == "div" else x - q * y
    return type(arr)(np.asarray(result).astype(a.dtype), dtype=arr.dtype, device=arr.device)


def _operator(op: str, reflected: bool = False) -> Callable[[Any, Any], Any]:
    """The special method ``arr op other`` (``other op arr`` when ``reflected``) of arrays."""

    def method(self: Any, other: Any) -> Any:
        return elementwise(self, other, op, reflected)

    return method


class ArithmeticOperators:
    """The element-wise operators (``+ - * / %``, reflected too) of ``wp.array``, through
    :func:`elementwise`."""

    __add__, __radd__ = _operator("add"), _operator("add", True)
    __sub__, __rsub__ = _operator("sub"), _operator("sub", True)
    __mul__, __rmul__ = _operator("mul"), _operator("mul", True)
    __truediv__, __rtruediv__ = _operator("div"), _operator("div", True)
    __mod__, __rmod__ = _operator("mod"), _operator("mod", True)


__all__ = ["ArithmeticOperators", "elementwise"]
