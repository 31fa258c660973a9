"""Lowering of ``print(...)`` and ``wp.printf`` in kernels: a format string and C varargs.

The call itself is the target's (:meth:`warp.targets.base.Target.emit_printf`: C ``printf`` on
the CPU, ``vprintf`` with packed arguments on CUDA); arguments are promoted as C varargs first
(float to double, small integers to int).
"""

from __future__ import annotations

from typing import Any, Callable

import llvmlite.ir as ir

from warp.compiler import composite as lc
from warp.compiler.lowering import types as lt
from warp.compiler.lowering.context import LowerContext
from warp.types import kinds
from warp.types.array_type import ArrayType
from warp.types.scalars import is_scalar_type, type_repr

_INT_FORMATS = {("int", 64): "%lld", ("uint", 64): "%llu", ("uint", 32): "%u"}


def _scalar_piece(ctx: LowerContext, value: ir.Value, t: Any) -> tuple[str, list[ir.Value]]:
    b = ctx.builder
    if t._kind_ == "bool":
        text = b.select(value, ctx.global_string("True"), ctx.global_string("False"))
        return "%s", [text]
    if t._kind_ == "float":
        if t._bits_ != 64:
            value = b.fpext(value, ir.DoubleType())
        return "%g", [value]
    fmt = _INT_FORMATS.get((t._kind_, t._bits_))
    if fmt is not None:
        return fmt, [value]
    widened = b.sext(value, lt.I32) if t._kind_ == "int" else b.zext(value, lt.I32)
    return ("%d" if t._kind_ == "int" else "%u"), [widened]


def format_value(ctx: LowerContext, value: ir.Value, t: Any) -> tuple[str, list[ir.Value]]:
    """printf format and arguments printing ``value`` of warp type ``t``."""
    if is_scalar_type(t):
        return _scalar_piece(ctx, value, t)
    if isinstance(t, ArrayType):
        data = ctx.builder.extract_value(value, 0)
        return f"array(dtype={type_repr(t.dtype)}, ptr=%p)", [data]
    kind_format = _KIND_FORMATS.get(kinds.kind_of(t)) if kinds.is_core_kind(t) else None
    if kind_format is not None:
        return kind_format(ctx, t, value)
    hook = getattr(t, "_wp_print_", None)
    if hook is not None:
        return hook(ctx, value)
    return f"<{type_repr(t)}>", []


def struct_format(ctx: LowerContext, cls: Any, value: ir.Value) -> tuple[str, list[ir.Value]]:
    """printf format and arguments printing a struct as ``Name(field=value, ...)`` (fields in
    their own kernel print format; NVIDIA Warp does not document how it prints structs)."""
    pieces, args = [], []
    for index, (name, t) in enumerate(cls._fields_):
        field = lt.from_storage(ctx.builder, t, ctx.builder.extract_value(value, index))
        fmt, vals = format_value(ctx, field, t)
        pieces.append(f"{name}={fmt}")
        args += vals
    return f"{cls.__name__}(" + ", ".join(pieces) + ")", args


#: How a value of each core kind prints.
_KIND_FORMATS: dict[str, Callable[[LowerContext, Any, ir.Value], tuple[str, list[ir.Value]]]] = {
    **{kind: lc.print_format for kind in kinds.COMPOSITE_KINDS},
    kinds.STRUCT: struct_format,
}


def lower_print(ctx: LowerContext, pieces: list[str | None], values: list[tuple[ir.Value, Any]]) -> None:
    """Emit one printf for a print() call mixing string literals (``pieces``) and values."""
    fmt_parts: list[str] = []
    args: list[ir.Value] = []
    it = iter(values)
    for piece in pieces:
        if piece is not None:
            fmt_parts.append(piece.replace("%", "%%"))
        else:
            value, t = next(it)
            fmt, vals = format_value(ctx, value, t)
            fmt_parts.append(fmt)
            args += vals
    emit_printf(ctx, ctx.global_string(" ".join(fmt_parts) + "\n"), args)


def lower_printf(ctx: LowerContext, fmt: str, values: list[tuple[ir.Value, Any]]) -> None:
    """Emit a C ``printf`` with a user format; floats are promoted to double as C varargs require."""
    args = []
    b = ctx.builder
    for value, t in values:
        if is_scalar_type(t) and t._kind_ == "float" and t._bits_ != 64:
            value = b.fpext(value, ir.DoubleType())
        elif is_scalar_type(t) and t._kind_ == "bool":
            value = b.zext(value, lt.I32)
        elif is_scalar_type(t) and t._bits_ < 32:
            value = b.sext(value, lt.I32) if t._kind_ == "int" else b.zext(value, lt.I32)
        elif not is_scalar_type(t):
            raise TypeError(f"printf arguments must be scalars, got {type_repr(t)}")
        args.append(value)
    emit_printf(ctx, ctx.global_string(fmt), args)


def emit_printf(ctx: LowerContext, fmt: ir.Value, args: list[ir.Value]) -> None:
    """Call the target's ``printf(fmt, args...)`` (:meth:`warp.targets.base.Target.emit_printf`)."""
    ctx.target.emit_printf(ctx, fmt, args)
