"""``@wp.struct``: user-defined record types usable in kernels, funcs and arrays.

Fields are laid out like a C struct (each at a multiple of its alignment, the size rounded up
to the largest alignment), which is also LLVM's layout of the matching literal struct, so the
NumPy structured dtype of struct arrays, the kernel argument packing and the generated code
agree. Booleans are stored as one byte; array fields are 64-byte array descriptors.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, Callable

import numpy as np

from warp.errors import LaunchTypeError
from warp.types import bfloat16_bits
from warp.types.annotations import resolve_annotation
from warp.types.ctypes_layout import ctype_of, struct_to_ctype
from warp.types.array_type import ARRAY_DESC_SIZE, ArrayType
from warp.types.packing import scalar_code
from warp.types.scalars import ScalarBase, bfloat16, canonical_type, is_scalar_type, type_repr


#: Rebuilds an array field from its type and the 64-byte descriptor stored in a struct record.
FieldArray = Callable[[ArrayType, bytes], Any]


def _alignment(t: Any) -> int:
    if is_scalar_type(t):
        return max(1, t._bits_ // 8)
    if isinstance(t, ArrayType):
        return 8
    return getattr(t, "_wp_alignment_", 8)


def _size(t: Any) -> int:
    if is_scalar_type(t):
        return t._bits_ // 8
    if isinstance(t, ArrayType):
        return ARRAY_DESC_SIZE
    return t._size_in_bytes_


def _format(t: Any) -> str:
    if is_scalar_type(t):
        return scalar_code(t)
    if isinstance(t, ArrayType):
        return f"{ARRAY_DESC_SIZE}s"
    return t._wp_abi_format_()


#: class attributes of a struct type that describe its memory layout
_LAYOUT_ATTRS = frozenset({"_offsets_", "_size_in_bytes_", "_wp_alignment_"})


class StructType(type):
    """Metaclass of ``@wp.struct`` types.

    A struct declared with a field whose type is not a warp type (or with a field of such a
    struct) can still be defined and instantiated in Python scope (such a field holds None), as
    in a module that declares it for an optional feature; it has no memory layout, so anything
    that needs one (a kernel parameter, a struct array, packing) raises the ``TypeError`` that
    names the offending field, as does assigning to that field.
    """

    #: why the struct has no layout (set by :func:`struct` on such a struct), else None
    _wp_struct_error_: str | None = None

    @property
    def cls(cls) -> type:
        """The class of the struct's Python instances (NVIDIA Warp's ``Struct.cls``): the type itself."""
        return cls

    @property
    def ctype(cls) -> type:
        """The ``ctypes.Structure`` laid out as the struct is in memory (array fields: descriptors)."""
        return ctype_of(cls)

    def __getattr__(cls, name: str) -> Any:
        error = type.__getattribute__(cls, "_wp_struct_error_")
        if error is not None and name in _LAYOUT_ATTRS:
            raise TypeError(error)
        raise AttributeError(f"type object '{cls.__name__}' has no attribute '{name}'")


class StructBase(metaclass=StructType):
    """Base class of ``@wp.struct`` types; instances hold field values in Python scope."""

    _wp_type_ = True
    _wp_kind_ = "struct"

    def __init__(self, **values: Any) -> None:
        for name, t in type(self)._fields_:
            object.__setattr__(self, name, _default(t))
        for name, value in values.items():
            setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        types = dict(type(self)._fields_)
        if name not in types:
            raise AttributeError(f"struct {type(self).__name__} has no field '{name}'")
        object.__setattr__(self, name, _convert_field(type(self).__name__, name, types[name], value))

    def __repr__(self) -> str:
        body = ", ".join(f"{n}={getattr(self, n)!r}" for n, _ in type(self)._fields_)
        return f"{type(self).__name__}({body})"

    def to(self, device: Any) -> StructBase:
        """A copy of the struct whose array fields (also those of nested structs) are on
        ``device``: arrays already there are shared, others copied; other fields are copied."""
        result = type(self)()
        for name, t in type(self)._fields_:
            value = getattr(self, name)
            if isinstance(value, StructBase) or (isinstance(t, ArrayType) and value is not None):
                value = value.to(device)
            object.__setattr__(result, name, value)
        return result

    def __ctype__(self) -> Any:
        """A ``ctypes.Structure`` (of :attr:`StructType.ctype`) holding a copy of the packed fields,
        as a kernel receives them (``wp.Launch.set_param_at_index_from_ctype`` takes it)."""
        return struct_to_ctype(self)

    # Struct values compare and hash by identity, as NVIDIA Warp's do: an instance can key a dict
    # (``Tape.gradients[s]`` holds the struct of its arrays' gradients).

    # -- storage ------------------------------------------------------------------------
    @classmethod
    def numpy_dtype(cls) -> np.dtype:
        """Structured NumPy dtype with the same layout (array fields as 64 raw bytes)."""
        names, formats = [], []
        for name, t in cls._fields_:
            names.append(name)
            if is_scalar_type(t):
                formats.append(t._np_dtype_)
            elif isinstance(t, ArrayType):
                formats.append(np.dtype((np.void, ARRAY_DESC_SIZE)))
            elif issubclass_safe(t, StructBase):
                formats.append(t.numpy_dtype())
            else:
                formats.append(np.dtype((t._wp_scalar_type_._np_dtype_, t._shape_)))
        return np.dtype(
            {"names": names, "formats": formats, "offsets": cls._offsets_, "itemsize": cls._size_in_bytes_}
        )

    def numpy_value(self) -> tuple[Any, ...]:
        """Field values as a tuple matching :meth:`numpy_dtype` (for filling struct arrays)."""
        out = []
        for name, t in type(self)._fields_:
            v = _plain(getattr(self, name))
            if isinstance(t, ArrayType):
                out.append(
                    np.frombuffer(_array_desc(v), dtype=np.uint8).view(np.dtype((np.void, ARRAY_DESC_SIZE)))[
                        0
                    ]
                )
            elif issubclass_safe(t, StructBase):
                out.append(v.numpy_value())
            elif t is bfloat16 or getattr(t, "_wp_scalar_type_", None) is bfloat16:
                out.append(bfloat16_bits.to_bits(np.asarray(v, dtype=np.float64)))
            elif is_scalar_type(t):
                out.append(v)
            else:
                out.append(np.asarray(v))
        return tuple(out)

    @classmethod
    def from_numpy_value(cls, record: Any, field_array: FieldArray | None = None) -> StructBase:
        """An instance from one element of a struct array's NumPy view.

        Array fields are rebuilt by ``field_array(array_type, descriptor_bytes)`` (an array
        viewing the memory the stored descriptor points at, or None), else left unset."""
        inst = cls()
        for name, t in cls._fields_:
            if isinstance(t, ArrayType):
                if field_array is not None:
                    object.__setattr__(inst, name, field_array(t, bytes(record[name])))
                continue
            value = record[name]
            if t is bfloat16 or getattr(t, "_wp_scalar_type_", None) is bfloat16:
                value = bfloat16_bits.from_bits(value)
            if issubclass_safe(t, StructBase):
                object.__setattr__(inst, name, t.from_numpy_value(value, field_array))
            elif is_scalar_type(t):
                object.__setattr__(inst, name, value.item())
            else:
                object.__setattr__(inst, name, t(np.asarray(value)))
        return inst

    # -- compiler hooks -----------------------------------------------------------------
    @classmethod
    def _wp_abi_format_(cls) -> str:
        parts, offset = [], 0
        for (_name, t), field_offset in zip(cls._fields_, cls._offsets_):
            if field_offset > offset:
                parts.append("x" * (field_offset - offset))
            parts.append(_format(t))
            offset = field_offset + _size(t)
        if cls._size_in_bytes_ > offset:
            parts.append("x" * (cls._size_in_bytes_ - offset))
        return "".join(parts)

    @classmethod
    def _wp_pack_(cls, value: Any) -> list[Any]:
        out: list[Any] = []
        for name, t in cls._fields_:
            v = _plain(getattr(value, name))
            if isinstance(t, ArrayType):
                out.append(_array_desc(v))
            elif t is bfloat16:
                out.append(int(bfloat16_bits.to_bits(np.float64(v))))
            elif is_scalar_type(t):
                out.append(v)
            else:
                out.extend(t._wp_pack_(v))
        return out

    @classmethod
    def _wp_all_contiguous_(cls, value: Any) -> bool:
        for name, t in cls._fields_:
            v = getattr(value, name)
            if isinstance(t, ArrayType) and v is not None and not v.is_contiguous:
                return False
            if issubclass_safe(t, StructBase) and not t._wp_all_contiguous_(v):
                return False
        return True

    @classmethod
    def _wp_check_arg_(cls, where: str, value: Any) -> Any:
        if type(value) is not cls:
            got = "None" if value is None else type(value).__name__
            raise LaunchTypeError(
                f"{where} expects {cls.__name__} but got {got} (pass a {cls.__name__} instance)"
            )
        return value

    @classmethod
    def _wp_constant_(cls, builder: Any, obj: Any) -> Any:
        """A struct instance met in kernel code (``wp.static(make())``, a global) is a constant."""
        return builder.const(obj, cls)

    @classmethod
    def _wp_hash_(cls) -> str:
        return (
            f"struct {cls.__qualname__}(" + ", ".join(f"{n}: {type_repr(t)}" for n, t in cls._fields_) + ")"
        )


def issubclass_safe(t: Any, base: type) -> bool:
    return isinstance(t, type) and issubclass(t, base)


def _plain(v: Any) -> Any:
    """A field value with a warp scalar (``wp.uint8(3)``) unboxed to its Python value."""
    return v.value if isinstance(v, ScalarBase) else v


def _array_desc(v: Any) -> bytes:
    return bytes(ARRAY_DESC_SIZE) if v is None else v._desc


def _default(t: Any) -> Any:
    if is_scalar_type(t):
        return t(0)  # a warp scalar of the field's type (wp.uint8(0)), as an assigned one stays
    if isinstance(t, ArrayType) or not getattr(t, "_wp_type_", False):  # (not a warp type: see StructType)
        return None
    return t()


def _convert_field(struct_name: str, name: str, t: Any, value: Any) -> Any:
    where = f"field '{name}' of struct {struct_name}"
    if not (is_scalar_type(t) or isinstance(t, ArrayType) or getattr(t, "_wp_type_", False)):
        raise TypeError(f"{where} has unsupported type {type_repr(t)}")
    if value is None and not isinstance(t, ArrayType):
        return _default(t)  # None resets a field to zero
    if getattr(t, "_shape_", None) and _is_bool_or_numpy_scalar(value):
        warnings.warn(
            f"assigning a single value of type `{type(value).__name__}` to the `{type_repr(t)}` struct field "
            f"'{name}' of struct {struct_name} fills every component; this is deprecated: assign a "
            f"{type_repr(t)}",
            DeprecationWarning,
            stacklevel=3,
        )
        return t(float(getattr(value, "value", value)))
    if getattr(t, "_shape_", None) and isinstance(value, (int, float, ScalarBase)):
        raise TypeError(
            f"Struct field '{name}' expects {type_repr(t)} but got a single value ({value!r}); "
            f"assign a {type_repr(t)} or a sequence of its components ({where})"
        )
    if isinstance(t, ArrayType):
        if value is None:
            return None
        array_type = getattr(value, "array_type", None)
        if array_type != t:
            raise TypeError(f"{where} expects {t}, got {array_type or type(value).__name__}")
        return value
    if is_scalar_type(t):
        v = _scalar_field(where, t, value)
        # a warp scalar keeps its warp type (of the field's type); a Python number stays one
        return t(v) if isinstance(value, ScalarBase) else v
    if issubclass_safe(t, StructBase):
        if type(value) is not t:
            raise TypeError(f"{where} expects struct {t.__name__}, got {type(value).__name__}")
        return value
    return value if type(value) is t else t(value)


def _scalar_field(where: str, t: Any, value: Any) -> Any:
    """The Python value (float, bool or range-checked int) a scalar field of type ``t`` stores."""
    raw = getattr(value, "value", value)
    if t._kind_ == "float":
        v = float(raw)
        if t._bits_ < 64 and t is not bfloat16 and abs(v) > float(np.finfo(t._np_dtype_).max):
            # beyond the type's range: inf, as for a value argument (unless it rounds down)
            with np.errstate(over="ignore"):
                v = float(np.dtype(t._np_dtype_).type(v))
        return v
    if t._kind_ == "bool":
        return bool(raw)
    if isinstance(raw, float):
        raise TypeError(f"{where} expects {type_repr(t)}, got float {raw!r}")
    v = int(raw)
    bits = t._bits_
    lo, hi = (0, 2**bits - 1) if t._kind_ == "uint" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if not lo <= v <= hi:
        raise ValueError(f"{where}: value {v} is out of range for {type_repr(t)} [{lo}, {hi}]")
    return v


def _is_bool_or_numpy_scalar(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_, np.number)):
        return True
    return isinstance(value, ScalarBase) and type(value)._kind_ == "bool"


def _layout(fields: list[tuple[str, Any]]) -> tuple[list[int], int, int]:
    offsets, offset, max_align = [], 0, 1
    for _, t in fields:
        align = _alignment(t)
        offset = (offset + align - 1) // align * align
        offsets.append(offset)
        offset += _size(t)
        max_align = max(max_align, align)
    size = (offset + max_align - 1) // max_align * max_align
    return offsets, max(size, 1 if not fields else size), max_align


def struct(cls: type) -> type:
    """Decorator: turn an annotated class into a warp struct type (``@wp.struct``)."""
    if any(base is not object for base in cls.__bases__):
        raise RuntimeError("Warp structs must be defined as base classes")
    module = sys.modules.get(cls.__module__)
    namespace = dict(vars(module)) if module is not None else {}
    fields = []
    error = None
    for name, ann in cls.__dict__.get("__annotations__", {}).items():
        t = canonical_type(resolve_annotation(ann, namespace))
        if isinstance(t, StructType) and t._wp_struct_error_ is not None:
            error = error or f"field '{name}' of struct {cls.__name__}: {t._wp_struct_error_}"
        elif not (is_scalar_type(t) or isinstance(t, ArrayType) or getattr(t, "_wp_type_", False)):
            error = error or f"field '{name}' of struct {cls.__name__} has unsupported type {type_repr(t)}"
        fields.append((name, t))
    attrs: dict[str, Any] = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
    }
    attrs["_fields_"] = fields
    if error is None:
        offsets, size, align = _layout(fields)
        attrs.update({"_offsets_": offsets, "_size_in_bytes_": size, "_wp_alignment_": align})
    else:
        attrs["_wp_struct_error_"] = error
    return StructType(cls.__name__, (StructBase,), attrs)

