"""LLVM representation of composite values (vectors, matrices, quaternions, transforms).

Vector-like types are LLVM arrays ``[N x T]``; matrices are arrays of rows ``[R x [C x T]]``.
Components are addressed with ``extractvalue``/``insertvalue`` paths (``[i]`` or ``[i, j]``).
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from warp.compiler.lowering import types as lt


def llvm_type(cls: Any) -> ir.Type:
    """LLVM type of a composite type."""
    scalar = lt.llvm_type(cls._wp_scalar_type_)
    if cls._wp_kind_ == "matrix":
        rows, cols = cls._shape_
        return ir.ArrayType(ir.ArrayType(scalar, cols), rows)
    return ir.ArrayType(scalar, cls._shape_[0])


def component_paths(cls: Any) -> list[list[int]]:
    """extractvalue index paths of all components in row-major order."""
    if cls._wp_kind_ == "matrix":
        rows, cols = cls._shape_
        return [[i, j] for i in range(rows) for j in range(cols)]
    return [[i] for i in range(cls._shape_[0])]


def llvm_constant(cls: Any, value: Any) -> ir.Constant:
    """An LLVM constant from a flat sequence of component values."""
    flat = list(value)
    scalar = cls._wp_scalar_type_
    if cls._wp_kind_ == "matrix":
        rows, cols = cls._shape_
        return ir.Constant(
            llvm_type(cls),
            [ir.Constant(ir.ArrayType(lt.llvm_type(scalar), cols), [lt.constant(scalar, v) for v in flat[r * cols:(r + 1) * cols]])
             for r in range(rows)],
        )
    return ir.Constant(llvm_type(cls), [lt.constant(scalar, v) for v in flat])


def components(builder: ir.IRBuilder, cls: Any, value: ir.Value) -> list[ir.Value]:
    """All components of a composite value, row-major."""
    return [builder.extract_value(value, path) for path in component_paths(cls)]


def assemble(builder: ir.IRBuilder, cls: Any, parts: list[ir.Value]) -> ir.Value:
    """A composite value from its components, row-major."""
    agg: ir.Value = ir.Constant(llvm_type(cls), ir.Undefined)
    for path, part in zip(component_paths(cls), parts):
        agg = builder.insert_value(agg, part, path)
    return agg


def print_format(ctx: Any, cls: Any, value: ir.Value) -> tuple[str, list[ir.Value]]:
    """printf format and arguments for a composite value, e.g. ``[1 2 3]``."""
    from warp.compiler.lowering.printing import format_value

    scalar = cls._wp_scalar_type_
    if cls._wp_kind_ == "matrix":
        rows, cols = cls._shape_
        fmt_rows, args = [], []
        for r in range(rows):
            items = []
            for c in range(cols):
                fmt, vals = format_value(ctx, ctx.builder.extract_value(value, [r, c]), scalar)
                items.append(fmt)
                args += vals
            fmt_rows.append("[" + ", ".join(items) + "]")
        return "[" + ",\n ".join(fmt_rows) + "]", args
    items, args = [], []
    for part in components(ctx.builder, cls, value):
        fmt, vals = format_value(ctx, part, scalar)
        items.append(fmt)
        args += vals
    return "[" + ", ".join(items) + "]", args
