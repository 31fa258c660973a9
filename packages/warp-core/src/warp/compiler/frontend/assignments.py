"""Assignments in kernel code: ``x = ...``, ``x: float = ...``, unpacking, stores into array
elements, components and fields, and augmented assignments (``a[i] += x`` is atomic, and so
are ``a[i] &= x``, ``|=`` and ``^=`` on 32/64-bit integer elements).

A variable keeps the type of its first binding (warp types are strict; a constant of the same
numeric family converts). Storing into a component or field of a value (``v.x = 1.0``,
``m[i, j] = 0.0``, ``s.f = x``) rebinds the variable to an updated copy.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from warp.compiler import ir
from warp.compiler.annotations import resolve_annotation
from warp.compiler.frontend import composite
from warp.compiler.frontend.builder import PyObj
from warp.compiler.frontend.builtin_names import BuiltinName
from warp.compiler.frontend.calls import bind_overload
from warp.compiler.frontend.expressions import ExpressionsMixin
from warp.compiler.frontend.gradients import check_function_rebind
from warp.compiler.frontend.operators import BINARY_OPS
from warp.compiler.frontend.type_handlers import type_hook
from warp.compiler.frontend.user_operators import call_operator, operator_function
from warp.errors import WarpCodegenTypeError, WarpCodegenValueError
from warp.types.array_type import ArrayType
from warp.types.composite_values import is_composite
from warp.types.scalars import int32, non_atomic_types, type_repr


class AssignmentsMixin(ExpressionsMixin):
    """Visitor methods for assignments (mixed into the translator)."""

    def stmt_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) != 1:
            raise self.error("chained assignment (a = b = ...) is not supported", node=node)
        target = node.targets[0]
        if isinstance(target, ast.Tuple) and self.is_tid_call(node.value):
            # i, j = wp.tid(): the number of targets selects the grid decomposition
            resolution = self.resolve_builtin("tid", [], node)
            op = self.emit("call", [], [int32] * len(target.elts), overload=resolution.overload)
            self.assign_to(target, PyObj(tuple(op.results)), node)
            return
        self.assign_to(target, self.expr(node.value), node)

    def is_tid_call(self, value: ast.expr) -> bool:
        if not isinstance(value, ast.Call) or value.args or value.keywords:
            return False
        callee = self.expr(value.func)
        return isinstance(callee, PyObj) and isinstance(callee.obj, BuiltinName) and callee.obj.name == "tid"

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            raise self.error("a declaration needs a value (x: float = 0.0)", node=node)
        ann = resolve_annotation(ast.unparse(node.annotation), {**self.source.globals, **self.source.closure})
        value = self.value(node.value)
        if value.weak:
            value = self.coerce(value, ann) if same_family(value.type, ann) else value
        if value.type != ann:
            raise self.error(
                f"'{ast.unparse(node.target)}' is declared {type_repr(ann)} but assigned "
                f"{type_repr(value.type)}",
                WarpCodegenTypeError,
                node,
            )
        self.assign_to(node.target, value, node)

    def assign_to(self, target: ast.expr, value: Any, node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.bind_name(target.id, value, node)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value.obj if isinstance(value, PyObj) and isinstance(value.obj, tuple) else None
            if items is None:
                raise self.error(
                    "only tuples (e.g. i, j = wp.tid()) can be unpacked", WarpCodegenTypeError, node
                )
            if self.assign_starred(target, items, node):  # first, *rest = t
                return
            if len(items) != len(target.elts):
                raise self.error(
                    f"cannot unpack {len(items)} values into {len(target.elts)} targets",
                    WarpCodegenValueError,
                    node,
                )
            for t, v in zip(target.elts, items):
                self.assign_to(t, v, node)
        elif isinstance(target, ast.Subscript):
            self.store_subscript(target, self.value_of(value, node), node)
        elif isinstance(target, ast.Attribute):
            self.store_attribute(target, self.value_of(value, node), node)
        else:
            raise self.error(f"cannot assign to '{ast.unparse(target)}'", node=node)

    def value_of(self, item: Any, node: ast.AST) -> ir.Value:
        if isinstance(item, ir.Value):
            return item
        value = self.python_value(item.obj) if isinstance(item, PyObj) else None
        if value is None:
            raise self.error("this value cannot be stored", WarpCodegenTypeError, node)
        return value

    def bind_name(self, name: str, value: Any, node: ast.AST) -> None:
        previous = self.lookup_var(name)
        check_function_rebind(self, name, previous, value, node)
        value = self.strong(value)
        # a view of another rank (sub = a[i]; sub = a[:2]) simply rebinds the name
        if (
            isinstance(value, ir.Value)
            and isinstance(previous, ir.Value)
            and previous.type != value.type
            and not _array_views_of(value.type, previous.type)
        ):
            if value.is_const and same_family(value.type, previous.type):
                value = self.const(value.const, previous.type)
            else:
                raise self.error(
                    f"variable '{name}' has type {type_repr(previous.type)} and cannot be assigned a "
                    f"{type_repr(value.type)} (warp types are strict; cast explicitly)",
                    WarpCodegenTypeError,
                    node,
                )
        self.assign_var(name, value)

    def store_subscript(self, target: ast.Subscript, value: ir.Value, node: ast.AST) -> None:
        """``base[idx] = value``: an array store, or an updated copy of a composite rebound upward."""
        base = self.expr(target.value)
        index_nodes = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
        if isinstance(base, ir.Value) and isinstance(base.type, ArrayType):
            indices = [self.index_value(i) for i in index_nodes]
            if len(indices) != base.type.ndim:
                raise self.error(
                    f"Incorrect number of indices specified for array indexing: a store into a "
                    f"{base.type.ndim}-d array needs {base.type.ndim} indices, got {len(indices)}",
                    node=node,
                )
            self.call_builtin("array_store", [base, *indices, value], node)
            return
        handler = type_hook(getattr(base, "type", None), "setitem")
        if handler is None:
            raise self.error(f"cannot assign to '{ast.unparse(target)}'", WarpCodegenTypeError, node)
        components = [self.component_index(i) for i in index_nodes]
        self.assign_to(target.value, handler(self, base, components, value, node), node)

    def store_attribute(self, target: ast.Attribute, value: ir.Value, node: ast.AST) -> None:
        """``base.attr = value``: an updated copy of a struct/composite, rebound upward."""
        base = self.expr(target.value)
        handler = type_hook(getattr(base, "type", None), "setattr")
        if handler is None:
            raise self.error(f"cannot assign to '{ast.unparse(target)}'", WarpCodegenTypeError, node)
        self.assign_to(target.value, handler(self, base, target.attr, value, node), node)

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        # the target is read and then written: evaluate each of its sub-expressions (indices,
        # bases) once, so a[f()].x *= 2 calls f once, as in Python
        outer, self.memo = self.memo, {}
        try:
            self.aug_assign(node)
        finally:
            self.memo = outer

    def aug_assign(self, node: ast.AugAssign) -> None:
        name = BINARY_OPS[type(node.op)]
        target = node.target
        if operator_function(self, name) is not None and self.user_aug_assign(name, node):
            return
        if isinstance(target, ast.Subscript):
            base = self.expr(target.value)
            if isinstance(base, ir.Value) and isinstance(base.type, ArrayType) and _atomic_update(
                name, base.type.dtype
            ):
                # a[i] += x is an atomic update, as in NVIDIA Warp, and so are a[i] &= x, |= x and
                # ^= x on 32/64-bit integers: concurrent threads updating one element all count.
                # 8/16-bit integers, which have no atomics, are read, updated and written back.
                index_nodes = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
                indices = [self.index_value(i) for i in index_nodes]
                value = self.value(node.value)
                self.call_builtin(f"atomic_{_ATOMIC_UPDATES[name]}", [base, *indices, value], node)
                return
        if name in _ATOMIC_UPDATES and isinstance(target, (ast.Subscript, ast.Attribute)):
            if self.component_atomic(target, name, node):
                return
        if isinstance(target, ast.Name):
            check_function_rebind(self, target.id, self.lookup_var(target.id), None, node)
        current = self.value(target) if not isinstance(target, ast.Name) else self.expr(target)
        if not isinstance(current, ir.Value):
            raise self.error(f"'{ast.unparse(target)}' is not a variable", node=node)
        result = self.call_builtin(name, [current, self.value(node.value)], node).result
        self.assign_to(target, result, node)

    def user_aug_assign(self, name: str, node: ast.AugAssign) -> bool:
        """``x op= v`` through the user's ``@wp.func`` overloading operator ``name``: the target
        is read, combined and written back (not atomically). False (the target's parts are
        memoized, nothing else emitted) when no overload accepts the operand types."""
        target = node.target
        if isinstance(target, ast.Name):
            check_function_rebind(self, target.id, self.lookup_var(target.id), None, node)
        current = self.expr(target)
        if not isinstance(current, ir.Value):
            return False
        rhs = self.value(node.value)
        bound = bind_overload(self, operator_function(self, name), [current, rhs], skip=self.source.func)
        if bound is None:
            return False
        result = call_operator(self, operator_function(self, name), name, *bound, node)
        self.assign_to(target, result, node)
        return True

    def component_atomic(self, target: ast.Subscript | ast.Attribute, name: str, node: ast.AugAssign) -> bool:
        """``a[i].x += v``, ``a[i][j] -= v``, ``a[i][r, c] += v``, ``a[i][1:] += w`` (and ``&=``,
        ``|=``, ``^=`` on integer components) on an array of vectors/matrices: an atomic update of
        the addressed components only (like ``a[i] += x``).

        The update is an atomic operation with a composite holding ``v`` in the addressed
        components and the identity elsewhere (-0.0 for +=, 0.0 for -=, 0 for integer += -= |= ^=,
        all bits set for &=), which the lowering leaves out. Returns False (nothing emitted) when
        ``target`` is not such a component.
        """
        inner = target.value
        if not isinstance(inner, ast.Subscript):
            return False
        base = self.expr(inner.value)
        if not (isinstance(base, ir.Value) and isinstance(base.type, ArrayType)):
            return False
        index_nodes = inner.slice.elts if isinstance(inner.slice, ast.Tuple) else [inner.slice]
        dtype = base.type.dtype
        if len(index_nodes) != base.type.ndim or not is_composite(dtype) or not _atomic_update(name, dtype):
            return False
        indices = [self.index_value(i) for i in index_nodes]
        scalar = dtype._wp_scalar_type_
        identity = self.const(tuple([_identity(name, scalar)] * math.prod(dtype._shape_)), dtype)
        if isinstance(target, ast.Attribute):
            delta = composite.setattr_(self, identity, target.attr, self.value(node.value), node)
        else:
            comp_nodes = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
            comp = [self.component_index(i) for i in comp_nodes]
            delta = composite.setitem(self, identity, comp, self.value(node.value), node)
        self.call_builtin(f"atomic_{_ATOMIC_UPDATES[name]}", [base, *indices, delta], node)
        return True


def _array_views_of(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are plain array types of one element type (their ranks may differ)."""
    return type(a) is ArrayType and type(b) is ArrayType and a.dtype == b.dtype


def same_family(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are both float types, or both integer types (signed or not)."""
    ka, kb = getattr(a, "_kind_", None), getattr(b, "_kind_", None)
    return (ka == kb == "float") or (ka in ("int", "uint") and kb in ("int", "uint"))


#: augmented assignments to array elements that are atomic updates: operator -> atomic_<kind>
_ATOMIC_UPDATES = {"add": "add", "sub": "sub", "bit_and": "and", "bit_or": "or", "bit_xor": "xor"}


def _atomic_update(name: str, dtype: object) -> bool:
    """Whether ``a[i] <op>= x`` on elements of ``dtype`` is an atomic update: += and -= except on
    8/16-bit integers (no atomics; read, updated and written back, as in NVIDIA Warp), the bitwise
    &= |= ^= on 32/64-bit integers (elsewhere they are not atomic, or not defined at all)."""
    scalar = getattr(dtype, "_wp_scalar_type_", dtype)
    if name in ("add", "sub"):
        return scalar not in non_atomic_types
    if name in _ATOMIC_UPDATES:
        return getattr(scalar, "_kind_", None) in ("int", "uint") and scalar not in non_atomic_types
    return False


def _identity(name: str, scalar: Any) -> float | int:
    """The operand of ``name`` that leaves a component of type ``scalar`` unchanged."""
    if scalar._kind_ == "float":
        return -0.0 if name == "add" else 0.0
    if name == "bit_and":
        return (1 << scalar._bits_) - 1 if scalar._kind_ == "uint" else -1
    return 0
