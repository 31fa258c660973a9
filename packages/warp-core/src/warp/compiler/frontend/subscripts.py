"""Subscripts in kernel code: array elements and views, components of vectors and matrices,
and constant indices of compile-time objects (tuples, ``a.shape``, generic types)."""

from __future__ import annotations

import ast
from typing import Any

from warp.compiler import ir
from warp.compiler.frontend.array_slicing import ArraySlicingMixin
from warp.compiler.frontend.builder import PyObj
from warp.compiler.frontend.name_lookup import ArrayShape
from warp.compiler.frontend.pyobj import describe
from warp.compiler.frontend.python_values import PythonValuesMixin
from warp.compiler.frontend.type_handlers import type_hook
from warp.errors import WarpCodegenError, WarpCodegenTypeError, WarpCodegenValueError
from warp.types.array_type import ArrayType, FixedArrayType
from warp.types.scalars import int32, type_repr


class IndexErrorCodegen(WarpCodegenError, IndexError):
    """A constant index is out of range at compile time."""


class SubscriptsMixin(PythonValuesMixin, ArraySlicingMixin):
    """Visitor methods for subscripts (mixed into the translator)."""

    def expr_Subscript(self, node: ast.Subscript) -> Any:
        base = self.expr(node.value)
        index_nodes = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if isinstance(base, PyObj):
            return self.python_subscript(base.obj, index_nodes, node)
        if isinstance(base.type, ArrayType):
            if any(isinstance(i, ast.Slice) for i in index_nodes):
                return self.slice_array(base, index_nodes, node)
            indices = [self.index_value(i) for i in index_nodes]
            if len(indices) > base.type.ndim:
                raise self.error(
                    f"too many indices ({len(indices)}) for a {base.type.ndim}-d array",
                    WarpCodegenError,
                    node,
                )
            name = "array_load" if len(indices) == base.type.ndim else "array_view"
            return self.call_builtin(name, [base, *indices], node).result
        handler = type_hook(base.type, "getitem")
        if handler is not None:
            return handler(self, base, [self.component_index(i) for i in index_nodes], node)
        raise self.error(
            f"values of type {type_repr(base.type)} cannot be indexed", WarpCodegenTypeError, node
        )

    def index_value(self, node: ast.expr) -> ir.Value:
        if isinstance(node, ast.Slice):
            raise self.error("slices are not supported in kernels; index with integers", node=node)
        value = self.strong(self.value(node))
        if getattr(value.type, "_kind_", None) not in ("int", "uint"):
            raise self.error(
                f"array indices must be integers, got {type_repr(value.type)}", WarpCodegenTypeError, node
            )
        return value

    def component_index(self, node: ast.expr) -> ir.Value | slice:
        """An index of a vector/matrix component: an integer value, or a slice of constants."""
        if not isinstance(node, ast.Slice):
            return self.index_value(node)
        bounds: list[int | None] = []
        for part in (node.lower, node.upper, node.step):
            if part is None:
                bounds.append(None)
                continue
            value = self.value(part)
            if not value.is_const or getattr(value.type, "_kind_", None) not in ("int", "uint"):
                raise self.error(
                    f"slice bounds of vectors and matrices must be integer constants, got "
                    f"'{ast.unparse(part)}'",
                    WarpCodegenValueError,
                    part,
                )
            bounds.append(int(value.const))
        if bounds[2] == 0:
            raise self.error("slice step cannot be zero", WarpCodegenValueError, node)
        return slice(*bounds)

    def python_subscript(self, obj: Any, index_nodes: list[ast.expr], node: ast.AST) -> Any:
        if len(index_nodes) != 1:
            raise self.error("expected a single index", node=node)
        idx = self.expr(index_nodes[0])
        if not (isinstance(idx, ir.Value) and idx.is_const):
            raise self.error(
                "this index must be a compile-time constant", WarpCodegenValueError, index_nodes[0]
            )
        k = int(idx.const)
        if isinstance(obj, ArrayShape):
            ndim = obj.array.type.ndim
            if ndim <= k < 4:  # arrays hold four extents, zero past their dimensions (as in NVIDIA Warp)
                return self.const(0, int32)
            if not 0 <= k < ndim:
                raise self.error(
                    f"shape index {k} out of range for a {ndim}-d array", IndexErrorCodegen, node
                )
            if isinstance(obj.array.type, FixedArrayType):  # wp.zeros in kernels: known shape
                return self.const(obj.array.type.shape[k], int32)
            return self.call_builtin("array_shape", [obj.array, self.const(k, int32)], node).result
        if isinstance(obj, tuple):
            if not -len(obj) <= k < len(obj):
                raise self.error(f"tuple index {k} out of range", IndexErrorCodegen, node)
            return obj[k]
        hook = getattr(obj, "__class_getitem__", None) or getattr(obj, "__getitem__", None)
        if hook is not None:
            return self.from_python(obj[k])
        raise self.error(f"'{describe(PyObj(obj))}' cannot be indexed", WarpCodegenTypeError, node)
