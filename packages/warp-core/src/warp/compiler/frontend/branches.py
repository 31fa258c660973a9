"""Values that depend on a branch taken at run time in kernel code.

``x if c else y`` (and ``and``/``or``, chained comparisons) build an ``if`` op whose branches
each compute their value, so that only the selected one runs. Variables rebound in a branch
(there, or in an ``if`` statement) are merged after the op; one first assigned in some branches
only is zero on the paths that do not assign it.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from warp.compiler import ir
from warp.compiler.frontend.python_values import PythonValuesMixin
from warp.errors import WarpCodegenTypeError
from warp.types.scalars import is_scalar_type, type_repr
from warp.types.scalars import bool as wp_bool

#: type kinds an untyped literal of a kind may adopt (as in binary operators: an int literal
#: does not become a float)
_LITERAL_FAMILIES = {"int": ("int", "uint"), "float": ("float",), "bool": ("bool",)}


class BranchesMixin(PythonValuesMixin):
    """Visitor methods for conditional values and the merge of branches (mixed into the translator)."""

    def as_bool(self, value: ir.Value, node: ast.AST) -> ir.Value:
        """``value`` converted to ``bool`` (non-zero test) for conditions."""
        if value.type is wp_bool:
            return value
        return self.call_builtin("bool", [self.strong(value)], node).result

    def expr_IfExp(self, node: ast.IfExp) -> ir.Value:
        """``x if c else y``: only the branch selected by ``c`` is evaluated (as in Python)."""
        cond = self.as_bool(self.value(node.test), node.test)
        if cond.is_const:
            return self.value(node.body if cond.const else node.orelse)
        return self.conditional_value(
            cond, lambda: self.value(node.body), lambda: self.value(node.orelse), node
        )

    def conditional_value(self, cond: ir.Value, then_fn: Any, else_fn: Any, node: ast.AST) -> ir.Value:
        """An ``if`` op whose result is ``then_fn()`` or ``else_fn()`` (each built in its branch).

        Variables rebound while building a branch (in-place builtins such as
        ``wp.randf(state)``) are merged after the op, as for an ``if`` statement.
        """
        before = self.scope.vars
        then_region, else_region = ir.Region(), ir.Region()
        with self.enter(then_region, before) as then_scope:
            a = then_fn()
        with self.enter(else_region, before) as else_scope:
            b = else_fn()
        # an untyped literal in one branch takes the other branch's type (1.0 if c else x64)
        a, b = self.settle_literal(then_region, a, b), self.settle_literal(else_region, b, a)
        if a.type != b.type:
            raise self.error(
                f"both branches of a conditional expression must have one type, got "
                f"{type_repr(a.type)} and {type_repr(b.type)}",
                WarpCodegenTypeError,
                node,
            )
        merged = self.merge_branches(before, [then_scope, else_scope], node, [then_region, else_region])
        for region, scope, value in ((then_region, then_scope, a), (else_region, else_scope, b)):
            region.ops.append(
                ir.Op("yield", [value, *(scope.vars[n] for n, _ in merged)], loc=self.loc(node))
            )
        op = self.emit_region_op("if", [cond], [then_region, else_region], [a.type, *(t for _, t in merged)])
        for (name, _), result in zip(merged, op.results[1:]):
            self.assign_var(name, result)
        return op.results[0]

    def settle_literal(self, region: ir.Region, value: ir.Value, other: ir.Value) -> ir.Value:
        """``value`` typed for a result shared with ``other`` (a weak literal adopts its type)."""
        if not value.weak:
            return value
        target = other.type if not other.weak else value.type
        if getattr(target, "_kind_", None) not in _LITERAL_FAMILIES.get(value.type._kind_, ()):
            target = value.type
        with self.enter(region, self.scope.vars):
            return self.const(_literal_as(value.const, target), target)

    def merge_branches(
        self, before: dict[str, Any], scopes: list[Any], node: ast.AST, regions: list[ir.Region]
    ) -> list[tuple[str, Any]]:
        """Variables whose value after a branch depends on the branch taken, with their types.

        A scalar or vector/matrix variable first assigned in some branches only stays visible
        after the branch (as in Python); on the paths that do not assign it, it is zero.
        """
        live = [(s, r) for s, r in zip(scopes, regions) if not s.terminated]
        names: list[str] = []
        for s, _ in live:
            names += [n for n in s.assigned if n not in names]
        merged = []
        for name in sorted(names):
            values = [s.vars.get(name) for s, _ in live]
            if any(v is None for v in values) and name not in before:
                values = self.zero_where_unassigned(name, live, values)
            if any(v is None for v in values):
                continue  # defined in one branch only, with no zero value: not visible after the if
            if not all(isinstance(v, ir.Value) for v in values):
                continue
            if all(v is values[0] for v in values) and name in before:
                continue
            types = {v.type for v in values}
            if len(types) != 1:
                raise self.error(
                    f"variable '{name}' gets different types in the branches of this if: "
                    + ", ".join(sorted(type_repr(t) for t in types)),
                    WarpCodegenTypeError,
                    node,
                )
            merged.append((name, values[0].type))
        return merged

    def zero_where_unassigned(
        self, name: str, live: list[tuple[Any, ir.Region]], values: list[Any]
    ) -> list[Any]:
        """``values`` of ``name`` per branch, a zero of its type built in the branches lacking it
        (unchanged when the type has no zero constant: structs, arrays, Python objects)."""
        known = next(v for v in values if v is not None)
        if not isinstance(known, ir.Value):
            return values
        type_ = known.type
        if is_scalar_type(type_):
            zero: Any = type_(0).value
        elif getattr(type_, "_wp_scalar_type_", None) is not None and hasattr(type_, "_shape_"):
            zero = (0,) * math.prod(type_._shape_)
        else:
            return values
        out = []
        for (scope, region), value in zip(live, values):
            if value is None:
                with self.enter(region, scope.vars):
                    value = self.const(zero, type_)
                scope.vars[name] = value
            out.append(value)
        return out


def _literal_as(value: Any, target: Any) -> Any:
    return (
        float(value) if target._kind_ == "float" else bool(value) if target._kind_ == "bool" else int(value)
    )
