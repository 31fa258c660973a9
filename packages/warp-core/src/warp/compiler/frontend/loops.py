"""Loops in kernel code: ``for`` over ``range``/``reversed(range)`` (unrolled when short and
constant, or when ``wp.static`` reads the loop variable), over tuples and iterable values,
``while``, ``break`` and ``continue``.

A loop that runs at run time is a ``for``/``while`` op carrying the variables its body rebinds;
names first bound in the loop and read after it stay visible (zero if the loop never ran).
"""

from __future__ import annotations

import ast
import builtins
import math
from typing import Any

from warp.compiler import ir
from warp.compiler.frontend.builder import LoopFrame, PyObj
from warp.compiler.frontend.compile_time import uses_static_on
from warp.compiler.frontend.expressions import ExpressionsMixin
from warp.compiler.frontend.names import assigned_names, rebound_names
from warp.compiler.frontend.type_handlers import type_hook
from warp.compiler.options import max_unroll
from warp.errors import WarpCodegenError, WarpCodegenTypeError, WarpCodegenValueError
from warp.types.array_type import ArrayType
from warp.types.scalars import bool as wp_bool
from warp.types.scalars import int32, is_int, is_scalar_type, type_repr


class LoopsMixin(ExpressionsMixin):
    """Visitor methods for loops (mixed into the translator)."""

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


def _has_jumps(stmts: list[ast.stmt]) -> bool:
    """True if the statements contain break/continue belonging to this loop level."""
    for stmt in stmts:
        for child in ast.walk(stmt):
            if isinstance(child, (ast.Break, ast.Continue)):
                return True
    return False
