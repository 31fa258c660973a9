"""Array subscripts with slices in kernel code: ``a[1:5]``, ``a[::-1]``, ``a[i, 1:3]``, ``a[::2, j]``.

Such a subscript is an array view of the same memory (as in NumPy and NVIDIA Warp): each sliced
dimension becomes an ``array_slice`` (Python's bounds: omitted, negative or past the end; a
negative step walks backwards), then each integer index an ``array_select`` (last dimension
first), which drops its dimension. A whole-dimension ``:`` costs nothing.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from warp.compiler import ir
from warp.compiler.frontend.builder import FunctionBuilder
from warp.errors import WarpCodegenError, WarpCodegenValueError
from warp.types.scalars import int32

#: bits of ``array_slice``'s ``given`` argument: which bounds the slice wrote (others are omitted)
START_GIVEN = 1
STOP_GIVEN = 2


class ArraySlicingMixin(FunctionBuilder):
    """Visitor helpers for slicing arrays (mixed into the translator)."""

    if TYPE_CHECKING:  # defined by the expression visitor

        def value(self, node: ast.expr) -> ir.Value: ...
        def index_value(self, node: ast.expr) -> ir.Value: ...

    def slice_array(self, base: ir.Value, index_nodes: list[ast.expr], node: ast.AST) -> ir.Value:
        """The view ``base[index_nodes]`` where at least one index is a slice."""
        ndim = base.type.ndim
        if len(index_nodes) > ndim:
            raise self.error(
                f"too many indices ({len(index_nodes)}) for a {ndim}-d array", WarpCodegenError, node
            )
        selected: list[tuple[int, ir.Value]] = []
        view = base
        for dim, index in enumerate(index_nodes):
            if not isinstance(index, ast.Slice):
                selected.append((dim, self.index_value(index)))
                continue
            if index.lower is None and index.upper is None and index.step is None:
                continue  # ':' keeps the whole dimension
            bounds, given = self.slice_bounds(index)
            args = [view, self.const(dim, int32), *bounds, self.const(given, int32)]
            view = self.call_builtin("array_slice", args, index).result
        for dim, value in reversed(selected):
            view = self.call_builtin("array_select", [view, self.const(dim, int32), value], node).result
        return view

    def slice_bounds(self, index: ast.Slice) -> tuple[list[ir.Value], int]:
        """(start, stop, step) of a slice of an array, and which of start/stop it wrote."""
        given = 0
        values: list[ir.Value] = []
        for part, bit in ((index.lower, START_GIVEN), (index.upper, STOP_GIVEN)):
            if part is None:
                values.append(self.const(0, int32))
            else:
                values.append(self.index_value(part))
                given |= bit
        if index.step is None:
            values.append(self.const(1, int32))
        else:
            step = self.index_value(index.step)
            if step.is_const and int(step.const) == 0:
                raise self.error("Slice step cannot be zero", WarpCodegenValueError, index.step)
            values.append(step)
        return values, given
