"""Operators in kernel code: arithmetic and bitwise, unary, ``and``/``or`` and comparisons.

A binary operator takes the user's overload (a ``@wp.func`` named after it) when one accepts the
operand types, else the kernel builtin of its name (``add``, ``lt``, ...). ``and``/``or`` and
chained comparisons evaluate their operands left to right and only as far as needed, as in Python.
"""

from __future__ import annotations

import ast
from typing import Any

from warp.compiler import ir
from warp.compiler.frontend.branches import BranchesMixin
from warp.compiler.frontend.compile_time import CompileTimeMixin
from warp.compiler.frontend.structs import struct_operator
from warp.compiler.frontend.user_operators import user_operator
from warp.types.helpers import type_is_struct
from warp.types.scalars import comparison_type, is_float, is_int, is_scalar_type
from warp.types.scalars import bool as wp_bool

BINARY_OPS = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.MatMult: "matmul",
    ast.BitAnd: "bit_and",
    ast.BitOr: "bit_or",
    ast.BitXor: "bit_xor",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
}
UNARY_OPS = {ast.USub: "neg", ast.UAdd: "pos", ast.Not: "unot", ast.Invert: "invert"}
COMPARE_OPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}


def is_int_or_float(t: Any) -> bool:
    """True for a numeric scalar type (not bool)."""
    return is_int(t) or is_float(t)


class OperatorsMixin(BranchesMixin, CompileTimeMixin):
    """Visitor methods for operators and comparisons (mixed into the translator)."""

    def expr_BinOp(self, node: ast.BinOp) -> ir.Value:
        name = BINARY_OPS.get(type(node.op))
        if name is None:
            raise self.error(f"operator {type(node.op).__name__} is not supported", node=node)
        lhs, rhs = self.value(node.left), self.value(node.right)
        overloaded = user_operator(self, name, [lhs, rhs], node)
        if overloaded is not None:
            return overloaded
        if type_is_struct(lhs.type) or type_is_struct(rhs.type):
            return struct_operator(self, name, [lhs, rhs], node)  # overloaded by a @wp.func
        return self.call_builtin(name, [lhs, rhs], node).result

    def expr_UnaryOp(self, node: ast.UnaryOp) -> ir.Value:
        operand = self.value(node.operand)
        if isinstance(node.op, ast.USub) and operand.weak:
            return self.const(-operand.const, operand.type, weak=True)
        return self.call_builtin(UNARY_OPS[type(node.op)], [operand], node).result

    def expr_BoolOp(self, node: ast.BoolOp) -> ir.Value:
        """``a and b`` / ``a or b``: a bool; the right operand is evaluated only when needed."""
        is_and = isinstance(node.op, ast.And)
        return self.short_circuit(node.values, is_and, node)

    def short_circuit(self, operands: list[ast.expr], is_and: bool, node: ast.AST) -> ir.Value:
        """Left-to-right evaluation of an and/or chain, stopping when the result is decided.

        Each operand after the first is translated inside the branch of an ``if`` op taken
        only when the operands before it did not decide the result, so its loads, calls and
        atomics never run otherwise. Constant operands decide at compile time.
        """
        first = self.as_bool(self.value(operands[0]), operands[0])
        if len(operands) == 1:
            return first
        if first.is_const:
            if bool(first.const) != is_and:  # False and ..., True or ...: decided
                return first
            return self.short_circuit(operands[1:], is_and, node)
        def rest() -> ir.Value:
            tail = self.short_circuit(operands[1:], is_and, node)
            return self.const(bool(tail.const), wp_bool) if tail.is_const else tail

        def decided() -> ir.Value:
            return self.const(not is_and, wp_bool)

        then_fn, else_fn = (rest, decided) if is_and else (decided, rest)
        return self.conditional_value(first, then_fn, else_fn, node)

    def expr_Compare(self, node: ast.Compare) -> ir.Value:
        """``a < b``; a chain ``a < b < c`` is ``a < b and b < c`` with ``b`` evaluated once and
        ``c`` only when ``a < b`` holds (as in Python)."""
        folded = self.compare_compile_time(node)  # type(x) == wp.float64, a.dtype is float, ...
        if folded is not None:
            return folded
        return self.compare_chain(self.value(node.left), list(zip(node.ops, node.comparators)), node)

    def compare_chain(
        self, left: ir.Value, rest: list[tuple[ast.cmpop, ast.expr]], node: ast.AST
    ) -> ir.Value:
        op, right_node = rest[0]
        name = COMPARE_OPS.get(type(op))
        if name is None:
            raise self.error(f"comparison '{type(op).__name__}' is not supported in kernels", node=node)
        right = self.value(right_node)
        result = self.call_builtin(name, self.compared_literals(left, right), node).result
        if len(rest) == 1:
            return result
        false = lambda: self.const(False, wp_bool)  # noqa: E731
        return self.conditional_value(result, lambda: self.compare_chain(right, rest[1:], node), false, node)

    def compared_literals(self, left: ir.Value, right: ir.Value) -> list[ir.Value]:
        """Operands of a comparison, an integer literal compared with a float taking the float's
        type (``x == 1`` for a float ``x``: exact for every integer literal a float can hold), and
        two different numeric types converted to the one they compare in (``comparison_type``)."""
        out = [left, right]
        for i, (value, other) in enumerate(((left, right), (right, left))):
            if (
                value.weak
                and value.is_const
                and not other.weak
                and getattr(value.type, "_kind_", None) == "int"
                and getattr(other.type, "_kind_", None) == "float"
                and is_scalar_type(other.type)
            ):
                out[i] = self.const(float(value.const), other.type)
        a, b = (v.type for v in out)
        if a is not b and is_int_or_float(a) and is_int_or_float(b) and is_float(a) != is_float(b) or (
            a is not b and is_int_or_float(a) and is_int_or_float(b) and not (out[0].weak or out[1].weak)
        ):
            # float < int compares as floats, int32 < int64 as int64 (as in NVIDIA Warp); a literal
            # of the other's family takes the other's type instead (handled by overload resolution)
            out = [self.strong(v) for v in out]
            common = comparison_type(a, b)
            out = [v if v.type is common else self.call_builtin(common.__name__, [v]).result for v in out]
        return out
