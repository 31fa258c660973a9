"""Scalar types of the kernel language.

Each scalar type is a Python class (``wp.float32``, ``wp.int8``, ...). The class itself is the
type used in annotations, arrays and the compiler's IR; calling it in Python scope makes a
boxed value (``wp.float32(1.5).value == 1.5``). Class attributes describe the storage:

- ``_kind_``: ``"float"``, ``"int"``, ``"uint"`` or ``"bool"``
- ``_bits_``: storage width in bits
- ``_np_dtype_``: the matching NumPy dtype (for ``bfloat16``, which NumPy lacks, ``uint16``:
  its bit pattern; see :mod:`warp.types.bfloat16_bits`)
- ``_ctype_``: the matching ctypes type

``Scalar``, ``Float`` and ``Int`` are generic placeholders used in builtin signatures and
generic ``@wp.func`` annotations; they are never concrete storage types.
"""

from __future__ import annotations

import builtins
import ctypes
from typing import Any, cast

import numpy as np

from warp.types.bfloat16_bits import round_scalar


class ScalarBase:
    """Base class of concrete scalar types: boxes one Python value of the type."""

    _kind_: str = ""
    _bits_: int = 0
    _np_dtype_: np.dtype = np.dtype("void")
    _ctype_: Any = None
    _type_: Any = None  # the ctypes type again, under NVIDIA Warp's name for it
    _length_ = 1  # number of components, as for vectors and matrices (Warp's scalar types have it)
    __slots__ = ("value", "_from_int")
    value: Any

    def __init__(self, x: Any = 0) -> None:
        if isinstance(x, ScalarBase):
            x = x.value
        self.value = _coerce(type(self), x)
        # a float made from an integer it holds exactly shows that integer, as in Warp
        self._from_int = (
            self._kind_ == "float"
            and isinstance(x, (builtins.int, np.integer))
            and not isinstance(x, builtins.bool)
            and self.value == x
        )

    def _shown(self) -> Any:
        return builtins.int(self.value) if self._from_int else self.value

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._shown()!r})"

    def __str__(self) -> str:
        """The value alone (``print(wp.int8(-1))`` prints ``-1``, as Warp's scalars do)."""
        return str(self._shown())

    def __format__(self, spec: str) -> str:
        """Formats as the boxed value does (``f"{wp.float32(1.5):.2f}"``); ``str`` without a spec."""
        return format(self.value, spec) if spec else str(self)

    def __float__(self) -> float:
        return builtins.float(self.value)

    def __int__(self) -> int:
        return builtins.int(self.value)

    def __index__(self) -> int:
        if self._kind_ == "float":
            raise TypeError(f"{type(self).__name__} cannot be used as an integer")
        return builtins.int(self.value)

    def __bool__(self) -> builtins.bool:
        return builtins.bool(self.value)

    def __eq__(self, other: object) -> builtins.bool:
        return builtins.bool(self.value == self._compared(other))

    def __lt__(self, other: Any) -> builtins.bool:
        return builtins.bool(self.value < self._compared(other))

    def __le__(self, other: Any) -> builtins.bool:
        return builtins.bool(self.value <= self._compared(other))

    def __gt__(self, other: Any) -> builtins.bool:
        return builtins.bool(self.value > self._compared(other))

    def __ge__(self, other: Any) -> builtins.bool:
        return builtins.bool(self.value >= self._compared(other))

    def _compared(self, other: Any) -> Any:
        """The Python value ``other`` is compared as: a float scalar compares Python ints as floats
        (an int beyond the float range raises ``OverflowError``, as ``float(2**1024)`` does)."""
        if isinstance(other, ScalarBase):
            return other.value
        if isinstance(other, np.generic):
            other = other.item()
        is_int = isinstance(other, builtins.int) and not isinstance(other, builtins.bool)
        if self._kind_ == "float" and is_int:
            return builtins.float(other)
        return other

    def __hash__(self) -> int:
        return hash(self.value)

    # -- Python-scope arithmetic: the result keeps the type (integers wrap around, divide and take
    # remainders as C does, truncating toward zero); operands are Python/NumPy numbers or scalars
    # of the same type. Composites and arrays handle a scalar operand themselves.
    def __pos__(self) -> ScalarBase:
        return type(self)(self.value)

    def __neg__(self) -> ScalarBase:
        return type(self)(_arith(type(self), "sub", 0, self.value))

    def __abs__(self) -> ScalarBase:
        return type(self)(abs(self.value))

    def __round__(self, ndigits: int | None = None) -> Any:
        return round(self.value, ndigits)

    def _binary(self, other: Any, op: str, reflected: builtins.bool = False) -> Any:
        if isinstance(other, ScalarBase):
            if type(other) is not type(self):
                raise TypeError(
                    f"unsupported operand types for {op}: '{type(self).__name__}' and "
                    f"'{type(other).__name__}' (warp does not convert between numeric types implicitly)"
                )
            other = other.value
        elif isinstance(other, np.generic):
            other = other.item()
        elif not isinstance(other, (builtins.int, builtins.float)):
            return NotImplemented
        if self._kind_ != "float" and isinstance(other, builtins.float):
            return NotImplemented  # an integer scalar and a float: no implicit conversion
        x, y = (other, self.value) if reflected else (self.value, other)
        return type(self)(_arith(type(self), op, x, y))

    def __add__(self, other: Any) -> Any:
        return self._binary(other, "add")

    def __radd__(self, other: Any) -> Any:
        return self._binary(other, "add", True)

    def __sub__(self, other: Any) -> Any:
        return self._binary(other, "sub")

    def __rsub__(self, other: Any) -> Any:
        return self._binary(other, "sub", True)

    def __mul__(self, other: Any) -> Any:
        return self._binary(other, "mul")

    def __rmul__(self, other: Any) -> Any:
        return self._binary(other, "mul", True)

    def __truediv__(self, other: Any) -> Any:
        return self._binary(other, "div")

    def __rtruediv__(self, other: Any) -> Any:
        return self._binary(other, "div", True)

    def __mod__(self, other: Any) -> Any:
        return self._binary(other, "mod")

    def __rmod__(self, other: Any) -> Any:
        return self._binary(other, "mod", True)

    def __pow__(self, other: Any) -> Any:
        return self._binary(other, "pow")

    def __rpow__(self, other: Any) -> Any:
        return self._binary(other, "pow", True)


def _arith(cls: type[ScalarBase], op: str, x: Any, y: Any) -> Any:
    """``x op y`` in the arithmetic of scalar type ``cls`` (the caller rounds/wraps the result)."""
    if cls._kind_ == "float":
        t = np.float32 if cls is bfloat16 else cls._np_dtype_.type
        a, b = t(x), t(y)
        with np.errstate(all="ignore"):
            result = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
                      "mod": np.fmod, "pow": np.power}[op](a, b)
        return builtins.float(result)
    if cls._kind_ == "bool" or op == "pow":
        raise TypeError(f"unsupported operand type(s) for {op}: '{cls.__name__}' (integer powers and bool "
                        "arithmetic are not defined for warp scalars)")
    x, y = builtins.int(x), builtins.int(y)
    if op in ("div", "mod"):
        if y == 0:
            raise ZeroDivisionError(f"{cls.__name__} {'division' if op == 'div' else 'modulo'} by zero")
        q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # truncated toward zero
        return q if op == "div" else x - q * y
    return {"add": x + y, "sub": x - y, "mul": x * y}[op]


def _coerce(cls: type[ScalarBase], x: Any) -> Any:
    """Convert a Python number to the value a scalar of type ``cls`` holds (ints wrap around)."""
    if cls._kind_ == "bool":
        return builtins.bool(x)
    if cls is bfloat16:
        return round_scalar(x)
    if cls._kind_ == "float":
        with np.errstate(over="ignore"):  # beyond the type's range: inf, as a C cast gives
            return builtins.float(cls._np_dtype_.type(x))
    bits = cls._bits_
    v = builtins.int(x) & ((1 << bits) - 1)
    if cls._kind_ == "int" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


class IntBase(ScalarBase):
    """Base class of the integer scalar types (NVIDIA Warp's ``warp.types.int_base``)."""

    __slots__ = ()


class FloatBase(ScalarBase):
    """Base class of the floating point scalar types (NVIDIA Warp's ``warp.types.float_base``)."""

    __slots__ = ()


#: NVIDIA Warp's names of the scalar base classes
scalar_base = ScalarBase
int_base = IntBase
float_base = FloatBase


def _make(name: str, kind: str, bits: int, np_name: str, ctype: Any) -> type[ScalarBase]:
    base = {"int": IntBase, "uint": IntBase, "float": FloatBase}.get(kind, ScalarBase)
    cls = cast(type[ScalarBase], type(name, (base,), {"__slots__": (), "__module__": "warp.types"}))
    cls._kind_ = kind
    cls._bits_ = bits
    cls._np_dtype_ = np.dtype(np_name)
    cls._ctype_ = ctype
    cls._type_ = ctype  # NVIDIA Warp's name for it
    return cls


bool = _make("bool", "bool", 8, "bool", ctypes.c_bool)  # noqa: A001 - public name mirrors wp.bool
int8 = _make("int8", "int", 8, "int8", ctypes.c_int8)
uint8 = _make("uint8", "uint", 8, "uint8", ctypes.c_uint8)
int16 = _make("int16", "int", 16, "int16", ctypes.c_int16)
uint16 = _make("uint16", "uint", 16, "uint16", ctypes.c_uint16)
int32 = _make("int32", "int", 32, "int32", ctypes.c_int32)
uint32 = _make("uint32", "uint", 32, "uint32", ctypes.c_uint32)
int64 = _make("int64", "int", 64, "int64", ctypes.c_int64)
uint64 = _make("uint64", "uint", 64, "uint64", ctypes.c_uint64)
float16 = _make("float16", "float", 16, "float16", ctypes.c_uint16)
float32 = _make("float32", "float", 32, "float32", ctypes.c_float)
float64 = _make("float64", "float", 64, "float64", ctypes.c_double)
#: brain float: the upper 16 bits of a float32 (8 exponent bits, 7 mantissa bits); arithmetic is
#: done in float32 and rounded back (to nearest, ties to even) after every operation
bfloat16 = _make("bfloat16", "float", 16, "uint16", ctypes.c_uint16)

# the NumPy dtype protocol (NumPy >= 2.4): np.dtype(wp.float32) is float32, np.zeros(3, dtype=wp.int8)
# holds int8; bfloat16 has no NumPy dtype, and the base classes none either
for _t in (bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16, float32, float64):
    _t.__numpy_dtype__ = _t._np_dtype_  # type: ignore[attr-defined]

int_types: tuple[type[ScalarBase], ...] = (int8, uint8, int16, uint16, int32, uint32, int64, uint64)
float_types: tuple[type[ScalarBase], ...] = (float16, bfloat16, float32, float64)
#: the numeric types (NVIDIA Warp's ``scalar_types``: bool is not among them)
scalar_types: tuple[type[ScalarBase], ...] = (*int_types, *float_types)
scalar_and_bool_types: tuple[type[ScalarBase], ...] = (*scalar_types, bool)
non_atomic_types = (int8, uint8, int16, uint16)


class Scalar:
    """Generic placeholder: any concrete numeric scalar type (used in signatures)."""


class Float(Scalar):
    """Generic placeholder: any floating point scalar type."""


class Int(Scalar):
    """Generic placeholder: any integer scalar type."""


_PYTHON_ALIASES: dict[Any, type[ScalarBase]] = {
    builtins.float: float32,
    builtins.int: int32,
    builtins.bool: bool,
}

#: bfloat16's NumPy dtype is its bit pattern (uint16): uint16 data means wp.uint16
_FROM_NUMPY: dict[np.dtype, type[ScalarBase]] = {
    t._np_dtype_: t for t in scalar_and_bool_types if t is not bfloat16
}


def is_bfloat16(t: Any) -> builtins.bool:
    """True for ``wp.bfloat16`` (stored as 16 bits, computed as float32 in kernels)."""
    return t is bfloat16


def is_scalar_type(t: Any) -> builtins.bool:
    """True for a concrete scalar type class such as ``wp.float32``."""
    return isinstance(t, type) and issubclass(t, ScalarBase) and t is not ScalarBase


def is_float(t: Any) -> builtins.bool:
    """True for ``float16``, ``bfloat16``, ``float32`` and ``float64``."""
    return is_scalar_type(t) and t._kind_ == "float"


def is_int(t: Any) -> builtins.bool:
    """True for the signed and unsigned integer types (not ``bool``)."""
    return is_scalar_type(t) and t._kind_ in ("int", "uint")


def comparison_type(a: Any, b: Any) -> Any:
    """The type two different numeric scalars are compared in (C's usual arithmetic conversions,
    which NVIDIA Warp's comparisons follow): the wider float if either is a float; otherwise both
    integers widened to at least 32 bits, the wider one winning, unsigned winning a tie."""
    if is_float(a) or is_float(b):
        floats = [t for t in (a, b) if is_float(t)]
        widest = max(floats, key=lambda t: t._bits_)
        return float32 if widest._bits_ == 16 and len(floats) == 2 and a is not b else widest
    a, b = (t if t._bits_ >= 32 else int32 for t in (a, b))
    if a._bits_ != b._bits_:
        return a if a._bits_ > b._bits_ else b
    return a if a._kind_ == "uint" else b


def type_size_in_bytes(t: Any) -> int:
    """Size in bytes of one element of type ``t`` (scalar or composite)."""
    if is_scalar_type(t):
        return t._bits_ // 8
    size = getattr(t, "_size_in_bytes_", None)
    if size is None:
        raise TypeError(f"{t!r} is not a warp data type")
    return size


def canonical_type(t: Any) -> Any:
    """Map Python ``float``/``int``/``bool`` to ``float32``/``int32``/``bool``; other types pass through."""
    return _PYTHON_ALIASES.get(t, t)


def type_repr(t: Any) -> str:
    """Short readable name of a type, for error messages."""
    t = canonical_type(t)
    if isinstance(t, type):
        return t.__name__
    if t is Any:  # not a class before Python 3.11
        return "Any"
    return repr(t)


def dtype_to_numpy(t: Any) -> Any:
    """The NumPy scalar type that stores elements (or, for composite types, components) of ``t``
    (``wp.float32`` -> ``np.float32``; ``wp.bfloat16`` -> ``np.uint16``, its bit pattern)."""
    t = canonical_type(t)
    if is_scalar_type(t):
        return t._np_dtype_.type
    scalar = getattr(t, "_wp_scalar_type_", None)
    if scalar is not None:
        return scalar._np_dtype_.type
    np_dtype = getattr(t, "numpy_dtype", None)
    if callable(np_dtype):
        return np_dtype()
    raise TypeError(f"no NumPy dtype for warp type {type_repr(t)}")


def dtype_from_numpy(np_dtype: Any) -> type[ScalarBase]:
    """The warp scalar type matching a NumPy dtype (``np.float32`` -> ``wp.float32``)."""
    key = np.dtype(np_dtype)
    try:
        return _FROM_NUMPY[key]
    except KeyError:
        raise TypeError(f"NumPy dtype {key} has no matching warp scalar type") from None
