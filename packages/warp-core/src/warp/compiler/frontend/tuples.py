"""Tuples in kernel code: tuple displays, starred expressions, starred assignment targets, ``len``
and loops (list displays are refused with a hint).

Tuples are compile-time groupings of values (what a function returning several values, or
``wp.tuple(...)``, produces): they are unpacked, indexed with constants, measured with ``len``,
iterated over (the loop is unrolled) and spread into calls and other tuples with ``*``::

    q, r = divmod_f(a, b)          t = wp.tuple(a, b, c)        f(*t)
    first, *rest = t               n = len(t)                   u = (*t, 1.0)
    for x in t: ...                return *t, 2.0
"""

from __future__ import annotations

import ast
import itertools
from typing import TYPE_CHECKING, Any

from warp.compiler import ir
from warp.compiler.frontend.builder import FunctionBuilder, PyObj
from warp.compiler.frontend.type_handlers import type_hook
from warp.errors import WarpCodegenTypeError, WarpCodegenValueError
from warp.types.array_type import ArrayType
from warp.types.scalars import int32, type_repr

_temp_ids = itertools.count()


class TuplesMixin(FunctionBuilder):
    """Visitor helpers for tuples (mixed into the translator)."""

    if TYPE_CHECKING:  # defined by the expression and statement visitors

        def expr(self, node: ast.expr) -> Any: ...
        def python_value(self, obj: Any) -> ir.Value | None: ...
        def assign_to(self, target: ast.expr, value: Any, node: ast.AST) -> None: ...
        def block(self, stmts: list[ast.stmt]) -> None: ...

    def tuple_items(self, node: ast.expr) -> tuple[Any, ...]:
        """The items ``*node`` spreads: a tuple's items, a vector's or quaternion's components,
        a matrix's rows, or the elements of a constant slice of a 1-d array (``*arr[:3]``)."""
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            base = self.expr(node.value)
            if isinstance(base, ir.Value) and isinstance(base.type, ArrayType):
                return self.array_slice_items(base, node.slice, node)
            name = f"__star{next(_temp_ids)}"  # slice the value already evaluated, not a second one
            self.scope.vars[name] = base
            held = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node.value)
            item = self.expr(
                ast.copy_location(ast.Subscript(value=held, slice=node.slice, ctx=ast.Load()), node)
            )
        else:
            item = self.expr(node)
        if isinstance(item, PyObj) and isinstance(item.obj, tuple):
            return item.obj
        t = getattr(item, "type", None)
        shape = getattr(t, "_shape_", None)
        getitem = type_hook(t, "getitem")
        if isinstance(item, ir.Value) and shape and getitem is not None:
            return tuple(getitem(self, item, [self.const(i, int32)], node) for i in range(shape[0]))
        what = type_repr(t) if t is not None else type(getattr(item, "obj", item)).__name__
        raise self.error(
            f"Starred expressions are only supported for tuples, vectors, matrices, quaternions and "
            f"constant array slices; '{ast.unparse(node)}' is {what}",
            WarpCodegenTypeError,
            node,
        )

    def array_slice_items(self, arr: ir.Value, sl: ast.Slice, node: ast.AST) -> tuple[Any, ...]:
        """Elements ``arr[start:stop:step]`` of a 1-d array, for bounds that are constants."""
        if arr.type.ndim != 1:
            raise self.error(
                f"*arr[a:b] unpacks 1-d arrays only, got a {arr.type.ndim}-d array",
                WarpCodegenTypeError,
                node,
            )
        if sl.upper is None:
            raise self.error(
                "unpacking an array slice requires explicit upper bound (the array's length is not known "
                "at compile time)",
                WarpCodegenValueError,
                node,
            )
        bounds: list[int | None] = []
        for part, what in ((sl.lower, "start"), (sl.upper, "stop"), (sl.step, "step")):
            if part is None:
                bounds.append(None)
                continue
            value = self.expr(part)
            if not (
                isinstance(value, ir.Value)
                and value.is_const
                and getattr(value.type, "_kind_", None) in ("int", "uint")
            ):
                raise self.error(
                    f"Slice component must be a compile-time constant integer, got '{ast.unparse(part)}'",
                    WarpCodegenValueError,
                    part,
                )
            k = int(value.const)
            if k < 0:
                if what == "step":
                    raise self.error("array slice step cannot be negative", WarpCodegenValueError, part)
                raise self.error(
                    f"slice {what} {k} cannot be negative for arrays (length unknown at compile time)",
                    WarpCodegenValueError,
                    part,
                )
            bounds.append(k)
        if bounds[2] == 0:
            raise self.error("slice step cannot be zero", WarpCodegenValueError, node)
        indices = range(bounds[0] or 0, bounds[1] or 0, bounds[2] or 1)
        return tuple(
            self.call_builtin("array_load", [arr, self.const(i, int32)], node).result for i in indices
        )

    def expr_Tuple(self, node: ast.Tuple) -> Any:
        return PyObj(tuple(self.expand_starred(node.elts)))  # (*t, x) spreads t

    def expr_List(self, node: ast.List) -> Any:
        raise self.error(
            "List constructs are not supported in kernels. Use vectors like `wp.vec3()` for small "
            "fixed-size collections, or `wp.zeros(shape=N, dtype=...)` for stack-allocated arrays.",
            WarpCodegenTypeError,
            node,
        )

    def expand_starred(self, elts: list[ast.expr]) -> list[Any]:
        """Evaluate a list of expressions, spreading ``*t`` items in place."""
        out: list[Any] = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.tuple_items(e.value))
            else:
                out.append(self.expr(e))
        return out

    def expr_Starred(self, node: ast.Starred) -> Any:
        raise self.error(
            "a starred expression (*t) is only allowed in calls, tuples and assignments", node=node
        )

    def starred_call(self, node: ast.Call) -> ast.Call:
        """``f(a, *t, b)`` rewritten as ``f(a, t0, t1, b)`` over hidden variables holding t's items,
        so every kind of callee (builtins, constructors, user functions) sees plain arguments."""
        args: list[ast.expr] = []
        for a in node.args:
            if not isinstance(a, ast.Starred):
                args.append(a)
                continue
            for item in self.tuple_items(a.value):
                name = f"__star{next(_temp_ids)}"
                self.scope.vars[name] = item
                args.append(ast.copy_location(ast.Name(id=name, ctx=ast.Load()), a))
        return ast.copy_location(ast.Call(func=node.func, args=args, keywords=node.keywords), node)

    def assign_starred(self, target: ast.Tuple | ast.List, items: tuple[Any, ...], node: ast.AST) -> bool:
        """``a, *rest, z = t``: bind the starred name to a tuple of the middle items.

        Returns False when ``target`` has no starred element (the caller unpacks it as usual).
        """
        elts = target.elts
        stars = [i for i, e in enumerate(elts) if isinstance(e, ast.Starred)]
        if not stars:
            return False
        if len(stars) > 1:
            raise self.error("multiple starred expressions in assignment", node=node)
        k = stars[0]
        after = len(elts) - k - 1
        if len(items) < len(elts) - 1:
            raise self.error(
                f"cannot unpack {len(items)} values into at least {len(elts) - 1} targets",
                WarpCodegenValueError,
                node,
            )
        for t, v in zip(elts[:k], items[:k]):
            self.assign_to(t, v, node)
        star = elts[k]
        assert isinstance(star, ast.Starred)
        self.assign_to(star.value, PyObj(tuple(items[k : len(items) - after])), node)
        for t, v in zip(elts[k + 1 :], items[len(items) - after :]):
            self.assign_to(t, v, node)
        return True

    def len_of_tuple(self, node: ast.Call) -> ir.Value | None:
        """``len(t)`` of a tuple: a constant (None when the argument is not a tuple)."""
        if len(node.args) != 1 or node.keywords:
            return None
        arg = node.args[0]
        if isinstance(arg, ast.Tuple):
            return self.python_value(len(self.expand_starred(arg.elts)))
        item = self.lookup_var(arg.id) if isinstance(arg, ast.Name) else None
        if isinstance(item, PyObj) and isinstance(item.obj, tuple):
            return self.python_value(len(item.obj))
        return None

    def loop_over_tuple(self, items: tuple[Any, ...], node: ast.For) -> None:
        """``for x in t``: the body translated once per item (the loop is unrolled)."""
        if any(isinstance(n, (ast.Break, ast.Continue)) for s in node.body for n in ast.walk(s)):
            raise self.error("a loop over a tuple is unrolled and cannot contain break/continue", node=node)
        for item in items:
            self.assign_to(node.target, item, node)
            self.block(node.body)
            if self.scope.terminated:
                break
