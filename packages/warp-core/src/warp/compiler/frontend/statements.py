"""Translation of Python statements: assignment, if/for/while, break/continue/return."""

from __future__ import annotations

import ast
import builtins
import math
from typing import Any

from warp.compiler import ir
from warp.compiler.frontend import composite
from warp.compiler.frontend.builder import LoopFrame, PyObj
from warp.compiler.frontend.calls import bind_overload
from warp.compiler.frontend.user_operators import call_operator, operator_function
from warp.compiler.frontend.compile_time import uses_static_on
from warp.compiler.frontend.expressions import ExpressionsMixin
from warp.compiler.frontend.operators import BINARY_OPS
from warp.compiler.frontend.gradients import check_function_rebind
from warp.compiler.frontend.names import assigned_names, rebound_names
from warp.compiler.frontend.type_handlers import type_hook
from warp.errors import WarpCodegenError, WarpCodegenTypeError, WarpCodegenValueError
from warp.types.array_type import ArrayType, FixedArrayType
from warp.types.composite import is_composite
from warp.types.scalars import bool as wp_bool
from warp.types.scalars import int32, is_int, is_scalar_type, non_atomic_types, type_repr
from warp.compiler.options import max_unroll
from warp.compiler.frontend.builtin_names import BuiltinName
from warp.compiler.annotations import resolve_annotation

#: the error for a kernel that returns a value or declares a return type (NVIDIA Warp's words)
KERNEL_RETURN_ERROR = (
    "Warp kernels cannot return values. Write results to output arguments, "
    "and omit the return annotation or use `-> None`."
)


class StatementsMixin(ExpressionsMixin):
    """Visitor methods for statements."""

    is_kernel: bool  # set by the translator: translating a kernel (not a function)

    def block(self, stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            if self.scope.terminated:
                return  # code after break/continue/return is unreachable
            self.node = stmt
            method = getattr(self, f"stmt_{type(stmt).__name__}", None)
            if method is None:
                raise self.error(
                    f"'{type(stmt).__name__}' statements are not supported in kernels", node=stmt
                )
            method(stmt)

    # -- simple statements ----------------------------------------------------------------
    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        self.expr(node.value)

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
            value = self.coerce(value, ann) if _same_family(value.type, ann) else value
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
            if value.is_const and _same_family(value.type, previous.type):
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
            if (isinstance(base, ir.Value) and isinstance(base.type, ArrayType) and name in ("add", "sub")
                    and not _narrow_integer_elements(base.type.dtype)):
                # a[i] += x is an atomic update, as in NVIDIA Warp (8/16-bit integers, which have
                # no atomics, are read, updated and written back, as there)
                index_nodes = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
                indices = [self.index_value(i) for i in index_nodes]
                value = self.value(node.value)
                self.call_builtin(f"atomic_{name}", [base, *indices, value], node)
                return
        if name in ("add", "sub") and isinstance(target, (ast.Subscript, ast.Attribute)):
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
        """``a[i].x += v``, ``a[i][j] -= v``, ``a[i][r, c] += v``, ``a[i][1:] += w`` on an array of
        vectors/matrices: an atomic update of the addressed components only (like ``a[i] += x``).

        The update is an atomic add of a composite holding ``v`` in the addressed components and
        the identity elsewhere (-0.0 for +=, 0.0 for -=, 0 for integers), which the lowering
        leaves out. Returns False (nothing emitted) when ``target`` is not such a component.
        """
        inner = target.value
        if not isinstance(inner, ast.Subscript):
            return False
        base = self.expr(inner.value)
        if not (isinstance(base, ir.Value) and isinstance(base.type, ArrayType)):
            return False
        index_nodes = inner.slice.elts if isinstance(inner.slice, ast.Tuple) else [inner.slice]
        dtype = base.type.dtype
        if len(index_nodes) != base.type.ndim or not is_composite(dtype):
            return False
        indices = [self.index_value(i) for i in index_nodes]
        scalar = dtype._wp_scalar_type_
        fill = (-0.0 if name == "add" else 0.0) if scalar._kind_ == "float" else 0
        identity = self.const(tuple([fill] * math.prod(dtype._shape_)), dtype)
        if isinstance(target, ast.Attribute):
            delta = composite.setattr_(self, identity, target.attr, self.value(node.value), node)
        else:
            comp_nodes = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
            comp = [self.component_index(i) for i in comp_nodes]
            delta = composite.setitem(self, identity, comp, self.value(node.value), node)
        self.call_builtin(f"atomic_{name}", [base, *indices, delta], node)
        return True

    def stmt_Return(self, node: ast.Return) -> None:
        if self.is_kernel and node.value is not None:  # `return None` included
            raise self.error(KERNEL_RETURN_ERROR, WarpCodegenTypeError, node)
        if node.value is None:
            values: list[ir.Value] = []
        else:
            result = self.expr(node.value)
            items = result.obj if isinstance(result, PyObj) and isinstance(result.obj, tuple) else (result,)
            values = [self.value_of(self.strong(v) if isinstance(v, ir.Value) else v, node) for v in items]
        values = self.check_return(values, node)
        self.emit("return", values)
        self.scope.terminated = True

    def check_return(self, values: list[ir.Value], node: ast.AST) -> list[ir.Value]:
        if self.is_kernel and values:
            raise self.error(KERNEL_RETURN_ERROR, WarpCodegenTypeError, node)
        for v in values:
            if isinstance(v.type, FixedArrayType):
                raise self.error(
                    "a kernel-local array (wp.zeros/wp.empty in kernel code) cannot be returned from a "
                    "function: its elements live on the function's stack; create it in the caller and "
                    "pass it in (functions see and may modify the caller's elements)",
                    WarpCodegenTypeError,
                    node,
                )
        if self.return_types is None:
            self.return_types = [v.type for v in values]
            return values
        expected = self.return_types
        if len(values) != len(expected):
            message = self.return_mismatch(values)
            message = message or f"returns {len(values)} values here but {len(expected)} elsewhere"
            raise self.error(message, WarpCodegenTypeError, node)
        out = []
        for v, t in zip(values, expected):
            if v.type != t and v.is_const and _same_family(v.type, t):
                v = self.const(v.const, t)
            out.append(v)
        for v, t in zip(out, expected):
            if v.type != t:
                message = self.return_mismatch(out)
                message = message or f"returns {type_repr(v.type)} here but {type_repr(t)} is expected"
                raise self.error(message, WarpCodegenTypeError, node)
        return out

    def return_mismatch(self, values: list[ir.Value]) -> str | None:
        """NVIDIA Warp's words for a return that does not match the declared annotation (None
        when the return types were inferred from an earlier return)."""
        if self.return_annotation is None or self.return_types is None:
            return None
        head = f"The function `{self.name}` has its return type annotated as"
        expected = self.return_types
        if len(values) != len(expected):
            n = len(expected)
            what = f"`{self.return_annotation}`" if n == 1 else f"a tuple of {n} elements"
            return f"{head} {what} but the code returns {len(values)} values."
        if len(values) == 1:
            got = type_repr(values[0].type)
            return f"{head} `{self.return_annotation}` but the code returns a value of type `{got}`."
        types = ", ".join(type_repr(v.type) for v in values)
        return f"{head} `{self.return_annotation}` but the code returns a tuple with types `({types})`."

    # -- if -------------------------------------------------------------------------------
    def stmt_If(self, node: ast.If) -> None:
        cond_any = self.expr(node.test)
        if isinstance(cond_any, PyObj):  # compile-time condition on a Python object
            taken = bool(cond_any.obj)
            self.block(node.body if taken else node.orelse)
            return
        cond = self.as_bool(cond_any, node.test)
        if cond.is_const:  # static branch: only the taken side is compiled
            self.block(node.body if cond.const else node.orelse)
            return
        before = self.scope.vars
        then_region, else_region = ir.Region(), ir.Region()
        with self.enter(then_region, before) as then_scope:
            self.block(node.body)
        with self.enter(else_region, before) as else_scope:
            self.block(node.orelse)
        self.node = node
        merged = self.merge_branches(before, [then_scope, else_scope], node, [then_region, else_region])
        types = [t for _, t in merged]
        for region, scope in ((then_region, then_scope), (else_region, else_scope)):
            if not scope.terminated:
                region.ops.append(ir.Op("yield", [scope.vars[n] for n, _ in merged], loc=self.loc(node)))
        op = self.emit_region_op("if", [cond], [then_region, else_region], types)
        for (name, _), result in zip(merged, op.results):
            self.assign_var(name, result)
        if then_scope.terminated and else_scope.terminated:
            self.scope.terminated = True
        for scope in (then_scope, else_scope):
            if not scope.terminated:
                for name, value in scope.vars.items():
                    if not isinstance(value, ir.Value) and name not in before:
                        self.scope.vars[name] = value

    # -- loops ----------------------------------------------------------------------------
    def stmt_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error("for ... else is not supported", node=node)
        if not isinstance(node.target, ast.Name):
            raise self.error("the loop variable must be a single name", node=node)
        it = node.iter
        backwards = False
        if isinstance(it, ast.Call) and self.is_builtin(it.func, builtins.reversed):
            backwards = True
            if len(it.args) != 1 or it.keywords:
                raise self.error("reversed() takes one range(...) argument", node=it)
            it = it.args[0]
        if not (isinstance(it, ast.Call) and self.is_builtin(it.func, builtins.range)):
            iterate = self.expr(it)
            if isinstance(iterate, PyObj) and isinstance(iterate.obj, tuple) and not backwards:
                self.loop_over_tuple(iterate.obj, node)  # unrolled
                return
            handler = type_hook(getattr(iterate, "type", None), "iterate")
            if handler is None or backwards:
                raise self.error("kernels can only loop over range(...) or reversed(range(...))", node=it)
            handler(self, iterate, node)
            return
        start, stop, step = self.range_bounds(it)
        if backwards:
            start, stop, step = self.reverse_range(start, stop, step, it)
        constant = start.is_const and stop.is_const and step.is_const
        if uses_static_on(self, node.body, node.target.id):
            # wp.static(...) reads the loop variable: every iteration must be translated separately
            if not constant:
                raise self.error(
                    f"the loop variable '{node.target.id}' is used in wp.static(...), so the loop must be "
                    "unrolled, but its range is not known at compile time", WarpCodegenValueError, node)
            self.unrolled_loop(node, start, stop, step)
            return
        if constant and not _has_jumps(node.body):
            count = len(builtins.range(start.const, stop.const, step.const))
            if count <= max_unroll():
                for i in builtins.range(start.const, stop.const, step.const):
                    self.assign_var(node.target.id, self.const(i, start.type))
                    self.block(node.body)
                    if self.scope.terminated:
                        break
                return
        self.dynamic_loop("for", node, [start, stop, step], induction=(node.target.id, start.type))

    def unrolled_loop(self, node: ast.For, start: ir.Value, stop: ir.Value, step: ir.Value) -> None:
        """Translate the body once per iteration; a break/continue under compile-time
        conditions (``if wp.static(i % 2 == 0): continue``) ends the unrolling / the iteration."""
        assert isinstance(node.target, ast.Name)  # stmt_For refuses other loop variables
        frame = LoopFrame([], unrolled_scope=self.scope)
        self.loops.append(frame)
        try:
            for i in builtins.range(start.const, stop.const, step.const):
                self.assign_var(node.target.id, self.const(i, start.type))
                self.block(node.body)
                jumped, frame.jumped = frame.jumped, None
                if jumped is not None:
                    self.scope.terminated = False
                    if jumped == "break":
                        break
                elif self.scope.terminated:
                    break  # return
        finally:
            self.loops.pop()

    def range_bounds(self, it: ast.Call) -> tuple[ir.Value, ir.Value, ir.Value]:
        """(start, stop, step) of a ``range(...)`` call, as values of one integer type."""
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.error("range() takes 1 to 3 positional arguments", node=it)
        values = [self.value(a) for a in it.args]
        # a constant bool counts as 0 or 1, as in Python (range(wp.static(flag)))
        values = [
            self.const(int(v.const), int32, weak=True) if v.is_const and v.type is wp_bool else v
            for v in values
        ]
        # an integer literal takes int32 (or the type of the other arguments); a float literal stays float
        typed = [v.type for v in values if not v.weak and is_int(v.type)]
        target = typed[0] if typed else int32
        args = [self.strong(self.coerce(v, target) if v.weak and is_int(v.type) else v) for v in values]
        for a, a_node in zip(args, it.args):
            if not is_int(a.type):
                raise self.error(
                    f"range() arguments must be integers, got {type_repr(a.type)}",
                    WarpCodegenTypeError,
                    a_node,
                )
        if len({a.type for a in args}) != 1:
            raise self.error("range() arguments must have one integer type", WarpCodegenTypeError, it)
        t = args[0].type
        if len(args) == 1:
            start, stop, step = self.const(0, t), args[0], self.const(1, t)
        elif len(args) == 2:
            start, stop, step = args[0], args[1], self.const(1, t)
        else:
            start, stop, step = args
        if step.is_const and step.const == 0:
            raise self.error("range() step must not be zero", WarpCodegenValueError, it)
        return start, stop, step

    def reverse_range(
        self, start: ir.Value, stop: ir.Value, step: ir.Value, node: ast.AST
    ) -> tuple[ir.Value, ir.Value, ir.Value]:
        """Bounds of ``reversed(range(start, stop, step))``."""
        if not step.is_const:
            return self.reverse_range_runtime_step(start, stop, step, node)
        s, t = step.const, start.type
        if start.is_const and stop.is_const:
            r = builtins.range(start.const, stop.const, s)[::-1]
            return self.const(r.start, t), self.const(r.stop, t), self.const(r.step, t)
        call = lambda name, a, b: self.call_builtin(name, [a, b], node).result  # noqa: E731
        span = call("sub", stop, start) if s > 0 else call("sub", start, stop)
        count = call("div", call("add", span, self.const(abs(s) - 1, t)), self.const(abs(s), t))
        last = call("add", start, call("mul", call("sub", count, self.const(1, t)), step))
        end = call("sub", start, self.const(1, t)) if s > 0 else call("add", start, self.const(1, t))
        return last, end, self.const(-s, t)

    def reverse_range_runtime_step(
        self, start: ir.Value, stop: ir.Value, step: ir.Value, node: ast.AST
    ) -> tuple[ir.Value, ir.Value, ir.Value]:
        """``reversed(range(start, stop, step))`` for a step of unknown sign: with
        ``n = ceil((stop - start) / step) = -((start - stop) // step)`` (floor division), it is
        ``range(start + (n - 1) * step, start - step, -step)``, empty when ``n <= 0``."""
        call = lambda name, *args: self.call_builtin(name, list(args), node).result  # noqa: E731
        one = self.const(1, start.type)
        n = call("neg", call("floordiv", call("sub", start, stop), step))
        last = call("add", start, call("mul", call("sub", n, one), step))
        return last, call("sub", start, step), call("neg", step)

    def is_builtin(self, func_node: ast.expr, target: object) -> bool:
        resolved = self.expr(func_node)
        return isinstance(resolved, PyObj) and resolved.obj is target

    def stmt_While(self, node: ast.While) -> None:
        if node.orelse:
            raise self.error("while ... else is not supported", node=node)
        self.dynamic_loop("while", node, [], induction=None)

    def dynamic_loop(
        self, kind: str, node: Any, bounds: list[ir.Value], induction: tuple[str, Any] | None
    ) -> None:
        """Emit a ``for``/``while`` op carrying the variables the body reassigns."""
        # a while condition may update variables too: while wp.hash_grid_query_next(query, index)
        scanned = node.body if kind == "for" else [ast.Expr(node.test), *node.body]
        # names first bound in the loop stay visible after it, as in Python (zero if it never ran)
        for name, t in self.loop_defined_names(kind, node, scanned, induction):
            self.assign_var(name, self.zero_value(t))
        skip = set()
        if induction:  # the loop variable keeps its last value when it is defined (and read) after
            before = self.lookup_var(induction[0])
            if not (isinstance(before, ir.Value) and before.type == induction[1]) or not self.read_after(
                induction[0], node
            ):
                skip.add(induction[0])
        rebound = rebound_names(scanned)
        names = assigned_names(scanned)
        if induction and induction[0] not in skip and induction[0] not in names:
            names = [induction[0], *names]
        carried = [
            n
            for n in names
            if n not in skip
            and isinstance(self.lookup_var(n), ir.Value)
            # a[i] = x does not rebind an array a; a = wp.zeros(...) does
            and (not isinstance(self.lookup_var(n).type, ArrayType) or n in rebound)
        ]
        init = [self.lookup_var(n) for n in carried]
        outer = self.scope.vars
        regions = []
        if kind == "while":
            cond_region = ir.Region(params=[ir.Value(v.type, n) for n, v in zip(carried, init)])
            with self.enter(cond_region, {**outer, **dict(zip(carried, cond_region.params))}):
                self.node = node
                flag = self.as_bool(self.value(node.test), node.test)
                after_test = [self.lookup_var(n) for n in carried]
                cond_region.ops.append(ir.Op("condition", [flag, *after_test], loc=self.loc(node)))
            regions.append(cond_region)
        body_params = [ir.Value(v.type, n) for n, v in zip(carried, init)]
        if induction:
            body_params.insert(0, ir.Value(induction[1], induction[0]))
        body = ir.Region(params=body_params)
        inner_vars = {**outer, **dict(zip(carried, body_params[1:] if induction else body_params))}
        if induction:
            inner_vars[induction[0]] = body_params[0]
        self.loops.append(LoopFrame(carried))
        with self.enter(body, inner_vars) as scope:
            self.block(node.body)
            if not scope.terminated:
                body.ops.append(ir.Op("yield", self.carried_values(node), loc=self.loc(node)))
        self.loops.pop()
        regions.append(body)
        self.node = node
        op = self.emit_region_op(kind, [*bounds, *init], regions, [v.type for v in init])
        for name, result in zip(carried, op.results):
            self.assign_var(name, result)

    def loop_defined_names(
        self, kind: str, node: Any, scanned: list[ast.stmt], induction: tuple[str, Any] | None
    ) -> list[tuple[str, Any]]:
        """Names a loop binds that are not defined before it, with their types: the loop
        variable, and variables assigned in the body (typed by translating the body once)."""
        end = getattr(node, "end_lineno", None) or node.lineno
        read_after = {
            n.id
            for n in ast.walk(self.source.tree)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.lineno > end
        }
        # only names read after the loop: carrying others would cost adjoint storage for nothing
        fresh = [n for n in assigned_names(scanned) if n in read_after and self.lookup_var(n) is None]
        out: list[tuple[str, Any]] = []
        if induction and induction[0] in read_after and self.lookup_var(induction[0]) is None:
            out.append(induction)
            fresh = [n for n in fresh if n != induction[0]]
        if not fresh:
            return out
        inner = dict(self.scope.vars)
        if induction:
            inner[induction[0]] = ir.Value(induction[1], induction[0])
        self.loops.append(LoopFrame([]))
        try:
            with self.enter(ir.Region(params=[]), inner) as scope:  # a probe: its ops are dropped
                if kind == "while":
                    self.value(node.test)
                self.block(node.body)
                found = {n: scope.vars.get(n) for n in fresh}
        finally:
            self.loops.pop()
        for n in fresh:
            v = found[n]
            if isinstance(v, ir.Value) and self.zero_value_type(v.type):
                out.append((n, v.type))
        return out

    def read_after(self, name: str, node: ast.AST) -> bool:
        """True if ``name`` is read on a line after the end of ``node`` in this function."""
        end = int(getattr(node, "end_lineno", None) or getattr(node, "lineno", 0) or 0)
        return any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and n.lineno > end
            for n in ast.walk(self.source.tree)
        )

    @staticmethod
    def zero_value_type(t: Any) -> bool:
        """True for types :meth:`zero_value` makes (scalars, vectors/matrices, structs)."""
        kind = getattr(t, "_wp_kind_", "")
        return is_scalar_type(t) or bool(getattr(t, "_shape_", None)) or kind == "struct"

    def zero_value(self, t: Any) -> ir.Value:
        """The zero of ``t`` (a scalar, vector/matrix/quaternion/transform or struct type)."""
        if is_scalar_type(t):
            return self.const(False if t._kind_ == "bool" else 0.0 if t._kind_ == "float" else 0, t)
        if getattr(t, "_shape_", None):
            return self.const(tuple(0 for _ in range(math.prod(t._shape_))), t)
        return self.const(None, t)

    def carried_values(self, node: ast.AST) -> list[ir.Value]:
        """Current values of the innermost loop's carried variables (types must not change)."""
        frame = self.loops[-1]
        values = []
        for name in frame.carried:
            v = self.lookup_var(name)
            if not isinstance(v, ir.Value):
                raise self.error(f"variable '{name}' is not a value at the end of the loop body", node=node)
            values.append(v)
        return values

    def stmt_Break(self, node: ast.Break) -> None:
        self.loop_jump("break", node)

    def stmt_Continue(self, node: ast.Continue) -> None:
        self.loop_jump("continue", node)

    def loop_jump(self, kind: str, node: ast.AST) -> None:
        if not self.loops:
            raise self.error(f"'{kind}' outside a loop", node=node)
        frame = self.loops[-1]
        if frame.unrolled_scope is not None:
            if self.scope is not frame.unrolled_scope:
                raise self.error(
                    f"this loop is unrolled (its variable is used in wp.static(...)), so a '{kind}' in it "
                    "must depend on compile-time conditions only (if wp.static(...):)",
                    WarpCodegenError,
                    node,
                )
            frame.jumped = kind
            self.scope.terminated = True
            return
        self.emit(kind, self.carried_values(node))
        self.scope.terminated = True

    def stmt_Assert(self, node: ast.Assert) -> None:
        """``assert cond[, "message"]``: checked in debug mode (see :mod:`warp.core_builtins.assertions`)."""
        message = ""
        if node.msg is not None:
            msg = self.expr(node.msg)
            if not (isinstance(msg, PyObj) and isinstance(msg.obj, str)):
                raise self.error(
                    "the message of an assert in a kernel must be a string known at compile time",
                    WarpCodegenError,
                    node.msg,
                )
            message = msg.obj
        cond = self.expr(node.test)
        if isinstance(cond, PyObj):  # a compile-time condition on a Python object
            cond = self.const(bool(cond.obj), wp_bool)
        op = self.call_builtin("assert_condition", [self.as_bool(cond, node.test)], node)
        op.attrs["assert_source"] = ast.unparse(ast.Assert(test=node.test, msg=None))
        op.attrs["assert_message"] = message


def _array_views_of(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are plain array types of one element type (their ranks may differ)."""
    return type(a) is ArrayType and type(b) is ArrayType and a.dtype == b.dtype


def _same_family(a: Any, b: Any) -> bool:
    ka, kb = getattr(a, "_kind_", None), getattr(b, "_kind_", None)
    return (ka == kb == "float") or (ka in ("int", "uint") and kb in ("int", "uint"))


def _has_jumps(stmts: list[ast.stmt]) -> bool:
    """True if the statements contain break/continue belonging to this loop level."""
    for stmt in stmts:
        for child in ast.walk(stmt):
            if isinstance(child, (ast.Break, ast.Continue)):
                return True
    return False


def _narrow_integer_elements(dtype: object) -> bool:
    """Whether array elements of ``dtype`` are (vectors/matrices of) 8- or 16-bit integers."""
    return getattr(dtype, "_wp_scalar_type_", dtype) in non_atomic_types
