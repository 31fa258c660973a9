"""Names and attributes in kernel code: what ``x``, ``wp.sin``, ``a.shape`` or ``v.x`` refer to.

A name is a local variable, else what the function's module or closure binds, else a kernel
builtin or a name of ``warp`` (``wp.<name>``, as NVIDIA Warp resolves it). An attribute of a
compile-time Python object is read in Python; one of a value is given by its type (arrays here,
other types through their ``getattr`` type hook).
"""

from __future__ import annotations

import ast
import builtins
import types
from typing import Any

from warp.compiler import ir
from warp.compiler.frontend.builder import PyObj, UndefinedNameError, UnknownAttributeError
from warp.compiler.frontend.builtin_names import BuiltinName, is_warp_namespace, warp_namespace
from warp.compiler.frontend.kernel_forms import array_ptr
from warp.compiler.frontend.pyobj import describe
from warp.compiler.frontend.python_values import PythonValuesMixin
from warp.compiler.frontend.type_handlers import type_hook
from warp.compiler.registry import builtin_registry
from warp.errors import WarpCodegenAttributeError, WarpCodegenTypeError
from warp.types.array_type import ArrayType
from warp.types.helpers import is_array
from warp.types.scalars import int32, type_repr

#: Kernel builtins of NVIDIA Warp that are the Python builtins of the same name in kernels.
WARP_PYTHON_ALIASES = {
    "float": builtins.float,  # wp.float(x): float32(x)
    "int": builtins.int,  # wp.int(x): int32(x)
    "print": builtins.print,
    "range": builtins.range,
    "reversed": builtins.reversed,
}

#: attributes of vector/matrix/quaternion/transform types in kernels (``type(v).dtype``,
#: ``v.dtype``, ``vec_t.length``: the scalar type and the number of components)
COMPOSITE_TYPE_ATTRS = {"dtype": "_wp_scalar_type_", "length": "_length_"}


class ArrayShape:
    """``a.shape`` of an array value, indexable with a constant dimension."""

    def __init__(self, array: ir.Value):
        self.array = array


class NameLookupMixin(PythonValuesMixin):
    """Visitor methods for names and attributes (mixed into the translator)."""

    def expr_Name(self, node: ast.Name) -> Any:
        local = self.lookup_var(node.id)
        if local is not None:
            return local
        found, obj = self.source.lookup(node.id)
        if not found:
            return self.warp_name(node)
        if is_array(obj):
            raise self.error(
                f"Invalid external reference type: {type(obj)}: '{node.id}' is an array defined outside "
                "the kernel (a module global or closure variable); kernels cannot read such arrays, "
                "whose contents would be frozen when the kernel compiles: pass it as a kernel argument",
                WarpCodegenTypeError,
                node,
            )
        return self.from_python(obj)

    def warp_name(self, node: ast.Name) -> Any:
        """A name the function's module does not define that is a kernel builtin or a name of
        ``warp`` (``expect_eq``, ``vec3``, ``mat44``): resolved as ``wp.<name>``, as NVIDIA Warp does."""
        if node.id in builtin_registry:
            return PyObj(BuiltinName(node.id))
        obj = getattr(warp_namespace(), node.id, None)
        if obj is None or isinstance(obj, types.ModuleType):
            raise self.error(
                f"Referencing undefined symbol: {node.id} (name '{node.id}' is not defined)",
                UndefinedNameError,
                node,
            )
        return self.from_python(obj)

    def expr_Attribute(self, node: ast.Attribute) -> Any:
        base = self.expr(node.value)
        if isinstance(base, PyObj):
            return self.python_attribute(base.obj, node)
        if isinstance(base.type, ArrayType) and node.attr == "shape":
            return PyObj(ArrayShape(base))
        if isinstance(base.type, ArrayType) and node.attr == "dtype":
            return PyObj(base.type.dtype)  # the element type: a.dtype(0), type comparisons
        if isinstance(base.type, ArrayType) and node.attr == "ndim":
            return self.const(base.type.ndim, int32)  # known from the type
        if isinstance(base.type, ArrayType) and node.attr == "ptr":
            return array_ptr(self, base)
        handler = type_hook(base.type, "getattr")
        if handler is not None:
            return handler(self, base, node.attr, node)
        raise self.error(
            f"values of type {type_repr(base.type)} have no attribute '{node.attr}' in kernels",
            WarpCodegenAttributeError,
            node,
        )

    def python_attribute(self, obj: Any, node: ast.Attribute) -> Any:
        if is_warp_namespace(obj):
            if node.attr in builtin_registry:
                return PyObj(BuiltinName(node.attr))
        if isinstance(obj, type) and hasattr(obj, "_shape_") and node.attr in COMPOSITE_TYPE_ATTRS:
            return self.from_python(getattr(obj, COMPOSITE_TYPE_ATTRS[node.attr]))  # type(v).dtype
        try:
            attr = getattr(obj, node.attr)
        except AttributeError:
            if is_warp_namespace(obj) and node.attr in WARP_PYTHON_ALIASES:
                return PyObj(WARP_PYTHON_ALIASES[node.attr])  # wp.print(x), for i in wp.range(n)
            if is_warp_namespace(obj):
                raise self.missing_builtin(node.attr, node, as_attribute=True) from None
            raise self.error(
                f"`{node.attr}` is not an attribute of '{describe(PyObj(obj))}'", UnknownAttributeError, node
            ) from None
        return self.from_python(attr)
