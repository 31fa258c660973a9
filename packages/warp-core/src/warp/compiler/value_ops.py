"""The overloads of the IR operations that build and take apart composite and struct values.

The frontend emits them for constructors (``vec3(a, b, c)``, ``vec3(x)``, ``vec3d(v)``) and
struct field access (``s.x``, ``s.x = v``); they are not looked up by name, each op carries its
overload. Passes and derivative rules recognize the operations by these objects
(``op.overload is CONSTRUCT``). A struct field op names its field in the op attribute
``"field"``.
"""

from __future__ import annotations

import math

import llvmlite.ir as ir

from warp.compiler import composite as lc
from warp.compiler import struct_lowering as sl
from warp.compiler.lowering.context import LowerContext
from warp.compiler.registry import Overload
from warp.core_builtins.casts import convert
from warp.types.composite_values import is_composite


def _lower_components(ctx: LowerContext, args: list, types: list) -> ir.Value:
    cls = ctx.op.results[0].type
    parts: list[ir.Value] = []
    for a, t in zip(args, types):
        parts += lc.components(ctx.builder, t, a) if is_composite(t) else [a]
    return lc.assemble(ctx.builder, cls, parts)


def _lower_fill(ctx: LowerContext, args: list, types: list) -> ir.Value:
    cls = ctx.op.results[0].type
    return lc.assemble(ctx.builder, cls, [args[0]] * math.prod(cls._shape_))


def _lower_convert(ctx: LowerContext, args: list, types: list) -> ir.Value:
    cls = ctx.op.results[0].type
    src = types[0]
    parts = [
        convert(ctx, c, src._wp_scalar_type_, cls._wp_scalar_type_)
        for c in lc.components(ctx.builder, src, args[0])
    ]
    return lc.assemble(ctx.builder, cls, parts)


#: a composite value from its components (scalars, or composites whose components are spliced in)
CONSTRUCT = Overload("construct", (), None, lower=_lower_components, doc="Composite from components.")
#: a composite value with every component equal to the one argument
FILL = Overload("construct_fill", (), None, lower=_lower_fill, doc="Composite with every component equal.")
#: a composite value converted from one of the same shape and another component type
CONVERT = Overload(
    "construct_convert", (), None, lower=_lower_convert, doc="Composite with converted component type."
)
#: a struct field's value (the field index is the op attribute "field")
GET_FIELD = Overload("struct_get", (), None, lower=sl.lower_get, doc="Read a struct field.")
#: a copy of a struct with one field replaced (the field index is the op attribute "field")
SET_FIELD = Overload(
    "struct_set", (), None, lower=sl.lower_set, doc="Copy of a struct with one field replaced."
)

__all__ = ["CONSTRUCT", "CONVERT", "FILL", "GET_FIELD", "SET_FIELD"]
