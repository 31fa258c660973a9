"""LLVM representation of ``@wp.struct`` values: a literal struct of the fields' storage types."""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from warp.compiler.lowering import types as lt
from warp.compiler.lowering.context import LowerContext


#: LLVM forms of a struct (kept here under their old names; they live with the other kinds).
llvm_type = lt.struct_type
llvm_zero = lt.struct_zero
llvm_constant = lt.struct_constant


def field_index(cls: Any, name: str) -> int:
    return [n for n, _ in cls._fields_].index(name)


def lower_get(ctx: LowerContext, args: list, types: list) -> ir.Value:
    cls = types[0]
    index = ctx.op.attrs["field"]
    raw = ctx.builder.extract_value(args[0], index)
    return lt.from_storage(ctx.builder, cls._fields_[index][1], raw)


def lower_set(ctx: LowerContext, args: list, types: list) -> ir.Value:
    cls = types[0]
    index = ctx.op.attrs["field"]
    value = lt.to_storage(ctx.builder, cls._fields_[index][1], args[1])
    return ctx.builder.insert_value(args[0], value, index)
