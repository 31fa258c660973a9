"""Translation of Python statements: the statement visitor, expression statements, ``if``,
``return`` and ``assert``; assignments (:mod:`~warp.compiler.frontend.assignments`) and loops
(:mod:`~warp.compiler.frontend.loops`) have their modules, composed here."""

from __future__ import annotations

import ast

from warp.compiler import ir
from warp.compiler.frontend.assignments import AssignmentsMixin, same_family
from warp.compiler.frontend.builder import PyObj
from warp.compiler.frontend.loops import LoopsMixin
from warp.errors import WarpCodegenError, WarpCodegenTypeError
from warp.types.array_type import FixedArrayType
from warp.types.scalars import bool as wp_bool
from warp.types.scalars import type_repr

#: the error for a kernel that returns a value or declares a return type (NVIDIA Warp's words)
KERNEL_RETURN_ERROR = (
    "Warp kernels cannot return values. Write results to output arguments, "
    "and omit the return annotation or use `-> None`."
)


class StatementsMixin(AssignmentsMixin, LoopsMixin):
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
            if v.type != t and v.is_const and same_family(v.type, t):
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
