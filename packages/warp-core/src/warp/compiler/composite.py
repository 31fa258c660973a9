"""LLVM representation of composite values (vectors, matrices, quaternions, transforms).

Vector-like types are LLVM arrays ``[N x T]``; matrices are arrays of rows ``[R x [C x T]]``.
Components are addressed with ``extractvalue``/``insertvalue`` paths (``[i]`` or ``[i, j]``).
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from warp.compiler.lowering import types as lt
from warp.compiler.lowering.context import LowerContext


#: LLVM type of a composite type (kept here under its old name).
llvm_type = lt.composite_type


def component_paths(cls: Any) -> list[list[int]]:
    """extractvalue index paths of all components in row-major order."""
    if cls._wp_kind_ == "matrix":
        rows, cols = cls._shape_
        return [[i, j] for i in range(rows) for j in range(cols)]
    return [[i] for i in range(cls._shape_[0])]


#: An LLVM constant from a flat sequence of component values (kept here under its old name).
llvm_constant = lt.composite_constant


def components(builder: ir.IRBuilder, cls: Any, value: ir.Value) -> list[ir.Value]:
    """All components of a composite value, row-major."""
    return [builder.extract_value(value, path) for path in component_paths(cls)]


def assemble(builder: ir.IRBuilder, cls: Any, parts: list[ir.Value]) -> ir.Value:
    """A composite value from its components, row-major."""
    agg: ir.Value = ir.Constant(llvm_type(cls), ir.Undefined)
    for path, part in zip(component_paths(cls), parts):
        agg = builder.insert_value(agg, part, path)
    return agg


def static_index(value: ir.Value, limit: int) -> int | None:
    """A constant component index (out of range: 0, as the dynamic form), or None if dynamic."""
    if isinstance(value, ir.Constant):
        k = int(value.constant)
        return k if 0 <= k < limit else 0
    return None


def clamped_index(builder: ir.IRBuilder, index: ir.Value, limit: int) -> ir.Value:
    """A dynamic component index counted from the end when negative (``v[-1]`` is the last
    component), then kept inside [0, limit) (an out-of-range index reads component 0)."""
    b = builder
    idx = b.sext(index, lt.I64) if index.type.width < 64 else index
    negative = b.icmp_signed("<", idx, ir.Constant(lt.I64, 0))
    idx = b.select(negative, b.add(idx, ir.Constant(lt.I64, limit)), idx)
    ok = b.icmp_unsigned("<", idx, ir.Constant(lt.I64, limit))
    return b.select(ok, idx, ir.Constant(lt.I64, 0))


def component_pointer(
    builder: ir.IRBuilder, slot: ir.Value, indices: list[ir.Value], dims: list[int]
) -> ir.Value:
    """Address of component ``[i][j]...`` (or of a matrix row) of the composite stored at ``slot``."""
    path = [ir.Constant(lt.I64, 0)]
    for index, dim in zip(indices, dims):
        k = static_index(index, dim)
        path.append(ir.Constant(lt.I32, k) if k is not None else clamped_index(builder, index, dim))
    # no source_etype: llvmlite then types the result from the slot's element type
    return builder.gep(slot, path)


def print_format(ctx: LowerContext, cls: Any, value: ir.Value) -> tuple[str, list[ir.Value]]:
    """printf format and arguments printing a composite value as NVIDIA Warp's kernels do.

    Components print with ``%g`` after conversion to float32 (integer vectors too):
    vectors as ``1 2 3 `` (each component followed by a space), matrices one such row per line,
    quaternions as ``x y z w`` and transforms as ``(px py pz) (qx qy qz qw)``. ``print`` adds
    the final newline.
    """
    scalar = cls._wp_scalar_type_
    parts = [_as_printf_double(ctx, part, scalar) for part in components(ctx.builder, cls, value)]
    kind = cls._wp_kind_
    if kind == "quaternion":
        return "%g %g %g %g", parts
    if kind == "transform":
        return "(%g %g %g) (%g %g %g %g)", parts
    if kind == "matrix":
        rows, cols = cls._shape_
        return "\n".join(["%g " * cols] * rows), parts
    return "%g " * len(parts), parts


def _as_printf_double(ctx: LowerContext, part: ir.Value, scalar: Any) -> ir.Value:
    """``float(part)`` promoted to double, as a C varargs ``%g`` argument."""
    b = ctx.builder
    if scalar._kind_ == "float" and part.type == ir.FloatType():  # float32, bfloat16
        as_float = part
    elif scalar._kind_ == "float":
        convert = b.fptrunc if scalar._bits_ == 64 else b.fpext
        as_float = convert(part, ir.FloatType())
    elif scalar._kind_ == "int":
        as_float = b.sitofp(part, ir.FloatType())
    elif scalar._kind_ == "uint":
        as_float = b.uitofp(part, ir.FloatType())
    else:
        as_float = b.uitofp(part, ir.FloatType())
    return b.fpext(as_float, ir.DoubleType())
