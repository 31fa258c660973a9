"""LLVM representation of ``@wp.struct`` values: a literal struct of the fields' storage types."""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from warp.compiler.lowering import bfloat16 as bf
from warp.compiler.lowering import types as lt
from warp.errors import WarpCodegenTypeError
from warp.types.array_type import ArrayType
from warp.types.composite import is_composite
from warp.types.scalars import is_scalar_type


def llvm_type(cls: Any) -> ir.Type:
    """LLVM literal struct type of a warp struct (same layout as its NumPy dtype).

    A struct without fields occupies one byte, as in C++ (and in its NumPy dtype and argument
    packing): its LLVM type is ``{i8}``, not ``{}`` (of size 0, which would move the fields after
    it in an enclosing struct)."""
    if cls._wp_struct_error_ is not None:  # a field of a type that is not a warp type
        raise WarpCodegenTypeError(cls._wp_struct_error_)
    if not cls._fields_:
        return ir.LiteralStructType([lt.I8])
    return ir.LiteralStructType([lt.storage_type(t) for _, t in cls._fields_])


def llvm_zero(cls: Any) -> ir.Constant:
    """The all-zero value of a struct."""
    return ir.Constant(llvm_type(cls), None)


def llvm_constant(cls: Any, value: Any) -> ir.Constant:
    """The LLVM constant of a struct instance (``wp.static(make_struct(...))``, a global instance);
    ``None`` gives the zero value. Array fields must be unset (an array is not a constant)."""
    if value is None or not cls._fields_:
        return llvm_zero(cls)
    parts = []
    for name, t in cls._fields_:
        v = getattr(value, name)
        if isinstance(t, ArrayType):
            if v is not None:
                raise WarpCodegenTypeError(
                    f"a {cls.__name__} value used as a constant has array field '{name}' set; arrays "
                    "cannot be compile-time constants (pass the struct as a kernel argument)"
                )
            parts.append(ir.Constant(lt.storage_type(t), None))
            continue
        if bf.contains_bfloat16(t):
            raise WarpCodegenTypeError(
                f"a {cls.__name__} value used as a constant has bfloat16 field '{name}', which struct "
                "constants do not support (pass the struct as a kernel argument)"
            )
        if is_scalar_type(t) and t._kind_ == "bool":
            parts.append(ir.Constant(lt.I8, int(bool(v))))
        elif is_composite(t):
            parts.append(lt.constant(t, tuple(v._data.reshape(-1).tolist())))
        else:
            parts.append(lt.constant(t, v))
    return ir.Constant(llvm_type(cls), parts)


def field_index(cls: Any, name: str) -> int:
    return [n for n, _ in cls._fields_].index(name)


def lower_get(ctx: Any, args: list, types: list) -> ir.Value:
    cls = types[0]
    index = ctx.current_op.attrs["field"]
    raw = ctx.builder.extract_value(args[0], index)
    return lt.from_storage(ctx.builder, cls._fields_[index][1], raw)


def lower_set(ctx: Any, args: list, types: list) -> ir.Value:
    cls = types[0]
    index = ctx.current_op.attrs["field"]
    value = lt.to_storage(ctx.builder, cls._fields_[index][1], args[1])
    return ctx.builder.insert_value(args[0], value, index)


def print_format(ctx: Any, cls: Any, value: ir.Value) -> tuple[str, list[ir.Value]]:
    """printf format and arguments printing a struct as ``Name(field=value, ...)`` (fields in
    their own kernel print format; NVIDIA Warp does not document how it prints structs)."""
    from warp.compiler.lowering.printing import format_value

    pieces, args = [], []
    for index, (name, t) in enumerate(cls._fields_):
        field = lt.from_storage(ctx.builder, t, ctx.builder.extract_value(value, index))
        fmt, vals = format_value(ctx, field, t)
        pieces.append(f"{name}={fmt}")
        args += vals
    return f"{cls.__name__}(" + ", ".join(pieces) + ")", args
