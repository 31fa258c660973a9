"""Mapping of warp types to LLVM types (SSA value form and in-memory storage form) and constants.

Scalars and arrays are mapped here directly; the core kinds (:mod:`warp.types.kinds`) by the
tables :data:`_KIND_TYPES` and :data:`_KIND_CONSTANTS`: vectors and quaternions/transforms are
LLVM arrays ``[N x T]``, matrices arrays of rows ``[R x [C x T]]``, structs literal structs of
their fields' storage types. Any other kernel type gives its own ``_wp_llvm_type_`` /
``_wp_llvm_constant_`` hooks (:mod:`warp.types.protocol`).
"""

from __future__ import annotations

from typing import Any, Callable

import llvmlite.ir as ir
from warp.compiler.lowering import bfloat16 as bf
from warp.errors import WarpCodegenTypeError
from warp.types import kinds
from warp.types.array_type import ArrayType
from warp.types.bfloat16_bits import round_scalar
from warp.types.scalars import bfloat16, is_scalar_type, type_repr

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
PTR = ir.PointerType()
VOID = ir.VoidType()

#: LLVM struct of an array value; its layout equals the 64-byte launch descriptor.
ARRAY_STRUCT = ir.LiteralStructType([PTR, PTR, ir.ArrayType(I32, 4), ir.ArrayType(I64, 4)])

_FLOATS = {16: ir.HalfType(), 32: ir.FloatType(), 64: ir.DoubleType()}


def llvm_type(t: Any) -> ir.Type:
    """LLVM type of an SSA value of warp type ``t`` (bool is ``i1``)."""
    if is_scalar_type(t):
        if t._kind_ == "bool":
            return I1
        if t._kind_ == "float":
            return bf.F32 if t is bfloat16 else _FLOATS[t._bits_]
        return ir.IntType(t._bits_)
    if isinstance(t, ArrayType):
        return ARRAY_STRUCT
    kind_type = _KIND_TYPES.get(kinds.kind_of(t)) if kinds.is_core_kind(t) else None
    if kind_type is not None:
        return kind_type(t)
    hook = getattr(t, "_wp_llvm_type_", None)
    if hook is not None:
        return hook()
    raise WarpCodegenTypeError(f"type {type_repr(t)} cannot be used in kernels")


def storage_type(t: Any) -> ir.Type:
    """LLVM type of ``t`` as stored in memory (bool is one byte, bfloat16 its 16-bit pattern)."""
    if is_scalar_type(t) and t._kind_ == "bool":
        return I8
    if bf.contains_bfloat16(t):
        return bf.storage_array_type(llvm_type(t))
    hook = getattr(t, "_wp_llvm_storage_type_", None)
    if hook is not None:
        return hook()
    return llvm_type(t)


def to_storage(builder: ir.IRBuilder, t: Any, value: ir.Value) -> ir.Value:
    """Convert an SSA value to its storage form (``i1`` -> ``i8``)."""
    if is_scalar_type(t) and t._kind_ == "bool":
        return builder.zext(value, I8)
    if bf.contains_bfloat16(t):
        return bf.map_components(builder, value, bf.to_bits)
    hook = getattr(t, "_wp_to_storage_", None)
    return hook(builder, value) if hook is not None else value


def from_storage(builder: ir.IRBuilder, t: Any, value: ir.Value) -> ir.Value:
    """Convert a loaded storage value to its SSA form (``i8`` -> ``i1``)."""
    if is_scalar_type(t) and t._kind_ == "bool":
        return builder.icmp_unsigned("!=", value, ir.Constant(I8, 0))
    if bf.contains_bfloat16(t):
        return bf.map_components(builder, value, bf.from_bits)
    hook = getattr(t, "_wp_from_storage_", None)
    return hook(builder, value) if hook is not None else value


def alignment(t: Any) -> int:
    """Natural alignment in bytes of one element of ``t`` in memory."""
    if is_scalar_type(t):
        return max(1, t._bits_ // 8)
    if isinstance(t, ArrayType):
        return 8
    return getattr(t, "_wp_alignment_", 8)


def constant(t: Any, value: Any) -> ir.Constant:
    """An LLVM constant of warp type ``t``."""
    ty = llvm_type(t)
    if is_scalar_type(t):
        if t._kind_ == "bool":
            return ir.Constant(I1, int(bool(value)))
        if t is bfloat16:
            return ir.Constant(ty, round_scalar(value))
        if t._kind_ == "float":
            return ir.Constant(ty, float(value))
        return ir.Constant(ty, int(value) & ((1 << t._bits_) - 1))
    kind_constant = _KIND_CONSTANTS.get(kinds.kind_of(t)) if kinds.is_core_kind(t) else None
    if kind_constant is not None:
        return kind_constant(t, value)
    hook = getattr(t, "_wp_llvm_constant_", None)
    if hook is not None:
        return hook(value)
    raise WarpCodegenTypeError(f"no constants of type {type_repr(t)}")


def composite_type(cls: Any) -> ir.Type:
    """LLVM type of a composite type (vector, matrix, quaternion, transform)."""
    scalar = llvm_type(cls._wp_scalar_type_)
    if cls._wp_kind_ == kinds.MATRIX:
        rows, cols = cls._shape_
        return ir.ArrayType(ir.ArrayType(scalar, cols), rows)
    return ir.ArrayType(scalar, cls._shape_[0])


def composite_constant(cls: Any, value: Any) -> ir.Constant:
    """An LLVM constant of a composite type from a flat sequence of component values."""
    flat = list(value)
    scalar = cls._wp_scalar_type_
    if cls._wp_kind_ == kinds.MATRIX:
        rows, cols = cls._shape_
        return ir.Constant(
            composite_type(cls),
            [
                ir.Constant(
                    ir.ArrayType(llvm_type(scalar), cols),
                    [constant(scalar, v) for v in flat[r * cols:(r + 1) * cols]],
                )
                for r in range(rows)
            ],
        )
    return ir.Constant(composite_type(cls), [constant(scalar, v) for v in flat])


def struct_type(cls: Any) -> ir.Type:
    """LLVM literal struct type of a warp struct (same layout as its NumPy dtype).

    A struct without fields occupies one byte, as in C++ (and in its NumPy dtype and argument
    packing): its LLVM type is ``{i8}``, not ``{}`` (of size 0, which would move the fields after
    it in an enclosing struct)."""
    if cls._wp_struct_error_ is not None:  # a field of a type that is not a warp type
        raise WarpCodegenTypeError(cls._wp_struct_error_)
    if not cls._fields_:
        return ir.LiteralStructType([I8])
    return ir.LiteralStructType([storage_type(t) for _, t in cls._fields_])


def struct_zero(cls: Any) -> ir.Constant:
    """The all-zero value of a struct."""
    return ir.Constant(struct_type(cls), None)


def struct_constant(cls: Any, value: Any) -> ir.Constant:
    """The LLVM constant of a struct instance (``wp.static(make_struct(...))``, a global instance);
    ``None`` (or a non-instance: ``T()`` met as a zero) gives the zero value. Array fields must
    be unset (an array is not a constant)."""
    if not isinstance(value, cls) or not cls._fields_:
        return struct_zero(cls)
    parts = []
    for name, t in cls._fields_:
        v = getattr(value, name)
        if isinstance(t, ArrayType):
            if v is not None:
                raise WarpCodegenTypeError(
                    f"a {cls.__name__} value used as a constant has array field '{name}' set; arrays "
                    "cannot be compile-time constants (pass the struct as a kernel argument)"
                )
            parts.append(ir.Constant(storage_type(t), None))
            continue
        if bf.contains_bfloat16(t):
            raise WarpCodegenTypeError(
                f"a {cls.__name__} value used as a constant has bfloat16 field '{name}', which struct "
                "constants do not support (pass the struct as a kernel argument)"
            )
        if is_scalar_type(t) and t._kind_ == "bool":
            parts.append(ir.Constant(I8, int(bool(v))))
        elif kinds.kind_of(t) in kinds.COMPOSITE_KINDS:
            parts.append(constant(t, tuple(v._data.reshape(-1).tolist())))
        else:
            parts.append(constant(t, v))
    return ir.Constant(struct_type(cls), parts)


#: LLVM type of a value of each core kind.
_KIND_TYPES: dict[str, Callable[[Any], ir.Type]] = {
    **{kind: composite_type for kind in kinds.COMPOSITE_KINDS},
    kinds.STRUCT: struct_type,
}

#: LLVM constant of a Python value of each core kind.
_KIND_CONSTANTS: dict[str, Callable[[Any, Any], ir.Constant]] = {
    **{kind: composite_constant for kind in kinds.COMPOSITE_KINDS},
    kinds.STRUCT: struct_constant,
}
