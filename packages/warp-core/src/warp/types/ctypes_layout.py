"""ctypes views of warp values: the C layout of scalars, composites, structs and array descriptors.

Warp's documented Python API exposes raw memory through ctypes in a few places:
``array.cptr()`` (a ctypes pointer to the elements of a CPU array), ``StructType.ctype`` and a
struct instance's ``__ctype__()`` (a ``ctypes.Structure`` holding its packed fields), and an
array's ``__ctype__()`` (its kernel-argument descriptor, :class:`ArrayDescriptorC`). The
layouts here are the ones kernels use: C alignment, booleans as one byte, 16-bit floats as
their ``uint16`` bit patterns, array fields as 64-byte descriptors.
"""

from __future__ import annotations

import ctypes
import struct as _struct
from typing import Any

from warp.types.array_type import MAX_DIMS, ArrayType
from warp.types.scalars import is_scalar_type, type_repr


class ArrayDescriptorC(ctypes.Structure):
    """The kernel-argument form of an array (``ARRAY_DESC_FORMAT``, 64 bytes): data and gradient
    addresses, shape (unused dimensions 0) and byte strides."""

    _fields_ = [
        ("data", ctypes.c_uint64),
        ("grad", ctypes.c_uint64),
        ("shape", ctypes.c_int32 * MAX_DIMS),
        ("strides", ctypes.c_int64 * MAX_DIMS),
    ]


_struct_ctypes: dict[type, type] = {}


def ctype_of(t: Any) -> Any:
    """The ctypes type laid out as a value of warp type ``t`` is in memory."""
    if is_scalar_type(t):
        return t._ctype_
    if isinstance(t, ArrayType):
        return ArrayDescriptorC
    kind = getattr(t, "_wp_kind_", "")
    if kind == "struct":
        return _struct_ctype(t)
    shape = getattr(t, "_shape_", None)
    scalar = getattr(t, "_wp_scalar_type_", None)
    if shape and scalar is not None and not getattr(t, "_wp_generic_", False):
        c: Any = scalar._ctype_
        for n in reversed(shape):
            c = c * n
        return c
    raise TypeError(f"{type_repr(t)} has no ctypes layout (not a concrete warp value type)")


def _struct_ctype(cls: Any) -> type:
    c = _struct_ctypes.get(cls)
    if c is None:
        fields = [(name, ctype_of(t)) for name, t in cls._fields_]
        c = type(f"{cls.__name__}_ctype", (ctypes.Structure,), {"_fields_": fields})
        if ctypes.sizeof(c) != cls._size_in_bytes_:  # C layout rules: cannot differ from ours
            raise TypeError(f"struct {cls.__name__}: ctypes layout of {ctypes.sizeof(c)} bytes, "
                            f"expected {cls._size_in_bytes_}")
        _struct_ctypes[cls] = c
    return c


def struct_to_ctype(value: Any) -> ctypes.Structure:
    """A ``ctypes.Structure`` holding a copy of struct instance ``value``'s packed fields."""
    cls = type(value)
    packed = _struct.pack("<" + cls._wp_abi_format_(), *cls._wp_pack_(value))
    return _struct_ctype(cls).from_buffer_copy(packed)


__all__ = ["ArrayDescriptorC", "ctype_of", "struct_to_ctype"]
