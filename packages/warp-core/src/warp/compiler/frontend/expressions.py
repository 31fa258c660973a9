"""Translation of Python expressions in kernel code to IR values."""

from __future__ import annotations

import ast
import builtins
import math
import types
from typing import Any

import numpy as np

from warp.compiler import ir
from warp.compiler.callables import UserFunction, UserKernel
from warp.compiler.frontend.array_slicing import ArraySlicingMixin
from warp.compiler.frontend.builder import PyObj, UndefinedNameError, UnknownAttributeError
from warp.compiler.frontend.builtin_names import BuiltinName, is_warp_namespace, warp_namespace
from warp.compiler.frontend.compile_time import CompileTimeMixin, static
from warp.compiler.static_values import has_static_value
from warp.compiler.frontend.kernel_forms import array_ptr, kernel_form
from warp.compiler.frontend.tuples import TuplesMixin
from warp.compiler.frontend.type_handlers import call_hook, type_hook
from warp.compiler.registry import builtin_registry
from warp.errors import (
    WarpCodegenAttributeError,
    WarpCodegenError,
    WarpCodegenTypeError,
    WarpCodegenValueError,
)
from warp.types.array_type import ArrayType, FixedArrayType
from warp.types.helpers import is_array, type_is_struct
from warp.types.scalars import (
    ScalarBase, canonical_type, comparison_type, dtype_from_numpy, float32, int32, int64, is_float, is_int,
    is_scalar_type, type_repr,
)
from warp.types.scalars import scalar_and_bool_types
from warp.types.scalars import bool as wp_bool
from warp.compiler.frontend.calls import bind_user_call
from warp.compiler.frontend.structs import struct_operator
from warp.compiler.frontend.user_operators import user_operator

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

#: Python builtins usable in kernels, mapped to kernel builtin names.
PYTHON_BUILTINS = {
    builtins.min: "min",
    builtins.max: "max",
    builtins.abs: "abs",
    builtins.round: "round",
    builtins.len: "len",
    builtins.print: "print",
    builtins.pow: "pow",
}

#: Kernel builtins of NVIDIA Warp that are the Python builtins of the same name in kernels.
WARP_PYTHON_ALIASES = {
    "float": builtins.float,  # wp.float(x): float32(x)
    "int": builtins.int,  # wp.int(x): int32(x)
    "print": builtins.print,
    "range": builtins.range,
    "reversed": builtins.reversed,
}


def is_int_or_float(t: Any) -> bool:
    """True for a numeric scalar type (not bool)."""
    return is_int(t) or is_float(t)


class ArrayShape:
    """``a.shape`` of an array value, indexable with a constant dimension."""

    def __init__(self, array: ir.Value):
        self.array = array


class ExpressionsMixin(CompileTimeMixin, TuplesMixin, ArraySlicingMixin):
    """Visitor methods for expressions; ``expr`` returns an ir.Value or a PyObj."""

    def expr(self, node: ast.expr) -> Any:
        memo = self.memo
        if memo is not None and node in memo:
            return memo[node]
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise self.error(f"Construct `ast.{type(node).__name__}` not supported in kernels.", node=node)
        result = method(node)
        if memo is not None:
            memo[node] = result
        return result

    def value(self, node: ast.expr) -> ir.Value:
        """Translate ``node`` and require a runtime value (compile-time Python numbers become constants)."""
        return self.as_value(self.expr(node), node)

    def as_value(self, result: Any, node: ast.expr) -> ir.Value:
        """``result`` (what ``node`` translated to) as a runtime value, or a located error."""
        if isinstance(result, ir.Value):
            return result
        converted = self.python_value(result.obj if isinstance(result, PyObj) else result)
        if converted is None:
            raise self.error(
                f"'{ast.unparse(node)}' ({_describe(result)}) cannot be used as a value in kernels",
                WarpCodegenTypeError,
                node,
            )
        return converted

    def python_value(self, obj: Any) -> ir.Value | None:
        """An IR constant for a Python/NumPy/warp scalar, or None if ``obj`` is not one."""
        if isinstance(obj, (bool, np.bool_)):
            return self.const(bool(obj), wp_bool)
        if isinstance(obj, int):
            return self.const(obj, int32 if -(2**31) <= obj < 2**31 else int64, weak=True)
        if isinstance(obj, float):
            return self.const(obj, float32, weak=True)
        if isinstance(obj, ScalarBase):
            return self.const(obj.value, type(obj))
        if isinstance(obj, np.generic):
            t = dtype_from_numpy(obj.dtype)
            return self.const(obj.item(), t)
        to_ir = getattr(type(obj), "_wp_constant_", None)
        if to_ir is not None:
            return to_ir(self, obj)
        return None

    def from_python(self, obj: Any) -> Any:
        """Wrap a Python object met by name: scalars become constants, the rest a PyObj."""
        value = self.python_value(obj)
        return value if value is not None else PyObj(obj)

    # -- leaves ---------------------------------------------------------------------------
    def expr_Constant(self, node: ast.Constant) -> Any:
        if isinstance(node.value, str):
            return PyObj(node.value)
        if node.value is None:
            return PyObj(None)
        value = self.python_value(node.value)
        if value is None:
            raise self.error(f"literal {node.value!r} is not supported in kernels", node=node)
        return value

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
                f"`{node.attr}` is not an attribute of '{_describe(PyObj(obj))}'", UnknownAttributeError, node
            ) from None
        return self.from_python(attr)

    def expr_Tuple(self, node: ast.Tuple) -> Any:
        return PyObj(tuple(self.expand_starred(node.elts)))  # (*t, x) spreads t

    def expr_List(self, node: ast.List) -> Any:
        raise self.error(
            "List constructs are not supported in kernels. Use vectors like `wp.vec3()` for small "
            "fixed-size collections, or `wp.zeros(shape=N, dtype=...)` for stack-allocated arrays.",
            WarpCodegenTypeError,
            node,
        )

    # -- operators ------------------------------------------------------------------------
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

    def as_bool(self, value: ir.Value, node: ast.AST) -> ir.Value:
        """``value`` converted to ``bool`` (non-zero test) for conditions."""
        if value.type is wp_bool:
            return value
        return self.call_builtin("bool", [self.strong(value)], node).result

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

    def expr_IfExp(self, node: ast.IfExp) -> ir.Value:
        """``x if c else y``: only the branch selected by ``c`` is evaluated (as in Python)."""
        cond = self.as_bool(self.value(node.test), node.test)
        if cond.is_const:
            return self.value(node.body if cond.const else node.orelse)
        return self.conditional_value(
            cond, lambda: self.value(node.body), lambda: self.value(node.orelse), node
        )

    # -- subscripts -----------------------------------------------------------------------
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
        raise self.error(f"'{_describe(PyObj(obj))}' cannot be indexed", WarpCodegenTypeError, node)

    # -- calls ----------------------------------------------------------------------------
    def expr_Call(self, node: ast.Call) -> Any:
        if any(isinstance(a, ast.Starred) for a in node.args):
            node = self.starred_call(node)  # f(*t): the tuple's items as arguments
        if len(node.args) == 1 and not node.keywords and has_static_value(self.source.func, node.args[0]):
            return static._wp_call_(self, node)  # resolved at declaration, whatever the name means now
        callee = self.callee(node.func)
        if not isinstance(callee, PyObj):
            raise self.error(f"'{ast.unparse(node.func)}' is not callable", WarpCodegenTypeError, node)
        return self.call_object(callee.obj, node)

    def callee(self, func: ast.expr) -> Any:
        """What a call calls; ``wp.name(...)`` / ``module.name(...)`` naming nothing is reported as
        a function that cannot be found."""
        if not isinstance(func, ast.Attribute):
            return self.expr(func)
        base = self.expr(func.value)
        if not isinstance(base, PyObj):
            return self.expr(func)
        try:
            return self.python_attribute(base.obj, func)
        except UnknownAttributeError as exc:
            message = f"Could not find function {ast.unparse(func)} ({exc.raw_message})"
            raise self.error(message, WarpCodegenAttributeError, func) from None

    def call_object(self, target: Any, node: ast.Call) -> Any:
        if isinstance(target, UserFunction):
            return self.call_user_function(target, node)
        if isinstance(target, UserKernel):
            raise self.error(
                f"kernel '{target.name}' cannot be called from kernel code; make it a @wp.func", node=node
            )
        if target is builtins.print:
            return self.call_print(node)
        if target is builtins.type:
            return self.call_type(node)
        if target is builtins.len:
            length = self.len_of_tuple(node)  # len(t) of a tuple is a constant
            if length is not None:
                return length
        if isinstance(target, BuiltinName):
            ctor = canonical_type(getattr(warp_namespace(), target.name, None))
            if is_scalar_type(ctor) and not node.keywords:
                return self.call_scalar_constructor(ctor, node)  # wp.float64(literal): exact
            return self.call_named_builtin(target.name, node)
        form = kernel_form(target)  # wp.zeros, wp.empty, wp.copy, wp.array(ptr=...) in kernels
        if form is not None:
            return form(self, node)
        if target in PYTHON_BUILTINS:
            return self.call_named_builtin(PYTHON_BUILTINS[target], node)
        if target is builtins.range:
            raise self.error("range() may only be used as the iterable of a for loop", node=node)
        ctor = canonical_type(target)
        if is_scalar_type(ctor):
            return self.call_scalar_constructor(ctor, node)
        special = call_hook(target)
        if special is not None:
            return special(self, node)
        raise self.error(
            f"'{ast.unparse(node.func)}' ({_describe(PyObj(target))}) cannot be called in kernels",
            WarpCodegenTypeError,
            node,
        )

    def call_args(self, node: ast.Call) -> list[ir.Value]:
        if node.keywords:
            raise self.error(
                f"keyword arguments are not supported for '{ast.unparse(node.func)}'", node=node
            )
        return [self.value(a) for a in node.args]

    def builtin_call_args(self, name: str, node: ast.Call) -> list[ir.Value]:
        """The arguments of a registry builtin call; keywords name its parameters
        (``wp.expect_near(a, b, tolerance=t)``, ``wp.pow(x=a, y=b)``) and are put in their place."""
        if not node.keywords:
            return self.call_args(node)
        args = [self.value(a) for a in node.args]
        names = [kw.arg for kw in node.keywords]
        builtin = builtin_registry.get(name)
        for overload in builtin.overloads if builtin is not None and None not in names else ():
            rest = [p for p, _ in overload.params][len(args):]
            if not overload.variadic and len(rest) == len(names) and set(rest) == set(names):
                values = {kw.arg: self.value(kw.value) for kw in node.keywords}
                return args + [values[p] for p in rest]
        raise self.error(
            f"wp.{name}() got unexpected keyword arguments ({', '.join(str(n) for n in names)}) after "
            f"{len(args)} positional arguments",
            WarpCodegenTypeError,
            node,
        )

    def call_named_builtin(self, name: str, node: ast.Call) -> Any:
        args = self.builtin_call_args(name, node)
        ctor = _SCALARS_BY_NAME.get(name)
        if ctor is not None and ctor._kind_ == "float" and len(args) == 1 and _named_number(args[0]):
            # wp.float64(x) of ``x = 0.1`` converts the Python value (full precision), as of a literal
            return self.const(float(args[0].const), ctor)
        op = self.call_builtin(name, args, node)
        results = op.results
        overload = op.attrs.get("overload") or op.attrs.get("builtin")
        updated = overload.updated_args() if overload is not None else ()
        if updated:
            # in-place builtins (wp.randf(state)) and output parameters (the face of
            # wp.mesh_query_point) return the arguments' new values last: rebind the variables
            split = len(results) - len(updated)
            results, new_values = results[:split], results[split:]
            for position, value in zip(updated, new_values):
                self.rebind_output(name, overload, position, value, node)
        if len(results) == 1:
            return results[0]
        return PyObj(tuple(results)) if results else PyObj(None)

    def rebind_output(self, name: str, overload: Any, position: int, value: ir.Value, node: ast.Call) -> None:
        """Bind the variable passed at ``position`` of a call to the builtin's updated value."""
        arg = node.args[position] if position < len(node.args) else None
        if isinstance(arg, ast.Name) and isinstance(self.lookup_var(arg.id), ir.Value):
            self.assign_var(arg.id, value)
            return
        if overload.mutated_args:  # declared outputs must land somewhere
            pname = overload.params[position][0] if position < len(overload.params) else str(position)
            raise self.error(
                f"argument '{pname}' of wp.{name} is an output: pass a local variable of type "
                f"{type_repr(value.type)} (e.g. {pname} = {type_repr(value.type)}(0) before the call)",
                WarpCodegenTypeError,
                arg if arg is not None else node,
            )

    def call_scalar_constructor(self, ctor: Any, node: ast.Call) -> ir.Value:
        args = self.call_args(node)
        if len(args) == 0:
            return self.const(0, ctor)
        if len(args) != 1:
            raise self.error(f"{type_repr(ctor)}() takes one argument", WarpCodegenTypeError, node)
        arg = args[0]
        if arg.is_const and is_scalar_type(arg.type):
            # a literal (or a name bound to one) converts from its exact value; a typed constant
            # from its typed value
            value = arg.const if arg.weak or _named_number(arg) else arg.type(arg.const).value
            return self.const(_folded_cast(value, arg.type, ctor), ctor)
        return self.call_builtin(ctor.__name__, [arg], node).result

    def call_user_function(self, fn: Any, node: ast.Call) -> Any:
        overload, args = bind_user_call(self, fn, node)
        # a tuple argument's type is the tuple of its items' types; its items pass one by one
        types = tuple(tuple(a.type for a in arg) if isinstance(arg, tuple) else arg.type for arg in args)
        flat = [a for arg in args for a in (arg if isinstance(arg, tuple) else (arg,))]
        spec = fn.specialization(overload, types)
        op = self.emit("call_func", flat, spec.return_types, func=spec)
        if len(op.results) == 1:
            return op.result
        return PyObj(tuple(op.results)) if op.results else PyObj(None)

    def call_print(self, node: ast.Call) -> PyObj:
        parts: list[Any] = []
        for a in node.args:
            item = self.expr(a)
            if isinstance(item, PyObj) and isinstance(item.obj, str):
                parts.append(item.obj)
            else:
                parts.append(self.strong(self.value(a)))
        values = [p for p in parts if isinstance(p, ir.Value)]
        texts = [p if isinstance(p, str) else None for p in parts]
        self.emit("print", values, [], pieces=texts)
        return PyObj(None)


#: attributes of vector/matrix/quaternion/transform types in kernels (``type(v).dtype``,
#: ``v.dtype``, ``vec_t.length``: the scalar type and the number of components)
COMPOSITE_TYPE_ATTRS = {"dtype": "_wp_scalar_type_", "length": "_length_"}

#: ``wp.float64``, ``wp.uint8``, ... by the name the kernel uses for them
_SCALARS_BY_NAME = {t.__name__: t for t in scalar_and_bool_types}

def _named_number(value: ir.Value) -> bool:
    """A numeric literal bound to a name (typed when bound, its Python value kept)."""
    kind = getattr(value.type, "_kind_", None)
    return value.literal and not value.weak and kind in ("float", "int", "uint")


#: type kinds an untyped literal of a kind may adopt (as in binary operators: an int literal
#: does not become a float)
_LITERAL_FAMILIES = {"int": ("int", "uint"), "float": ("float",), "bool": ("bool",)}


def _folded_cast(value: Any, src: Any, dst: Any) -> Any:
    """``dst(value)`` at compile time with the runtime conversion's rules (a float converted to
    an integer type truncates and saturates, NaN gives 0)."""
    if src._kind_ == "float" and dst._kind_ in ("int", "uint"):
        if value != value:
            return 0
        bits = dst._bits_
        lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if dst._kind_ == "int" else (0, 2**bits - 1)
        return int(min(max(value, lo), hi)) if math.isfinite(value) else (hi if value > 0 else lo)
    return dst(value).value


def _literal_as(value: Any, target: Any) -> Any:
    return (
        float(value) if target._kind_ == "float" else bool(value) if target._kind_ == "bool" else int(value)
    )


#: most values one wp.printf call takes after its format (NVIDIA Warp's limit, kept so that
#: kernels written here also compile there)
MAX_PRINTF_ARGS = 32


class Printf:
    """``wp.printf(fmt, *args)``: C printf from kernels (the format must be a string literal)."""

    def __call__(self, fmt: str, *args: Any) -> None:
        print(fmt % args, end="")

    def _wp_call_(self, builder: Any, node: ast.Call) -> PyObj:
        if not node.args:
            raise builder.error("wp.printf needs a format string", WarpCodegenTypeError, node)
        fmt = builder.expr(node.args[0])
        if not (isinstance(fmt, PyObj) and isinstance(fmt.obj, str)):
            raise builder.error(
                "the format of wp.printf must be a string literal", WarpCodegenTypeError, node
            )
        if len(node.args) - 1 > MAX_PRINTF_ARGS:
            raise builder.error(
                "the maximum number of variadic arguments that can be passed to `printf` is "
                f"{MAX_PRINTF_ARGS}",
                WarpCodegenValueError,
                node,
            )
        values = [builder.strong(builder.value(a)) for a in node.args[1:]]
        for v, a in zip(values, node.args[1:]):
            if not is_scalar_type(v.type):
                raise builder.error(
                    f"wp.printf arguments must be scalars, got {type_repr(v.type)}", WarpCodegenTypeError, a
                )
        builder.emit("print", values, [], format=fmt.obj)
        return PyObj(None)

    def __repr__(self) -> str:
        return "wp.printf"


printf = Printf()


class TupleConstructor:
    """``wp.tuple(a, b, ...)``: a tuple of values in kernels (unpack it or index it with constants)."""

    def __call__(self, *args: Any) -> tuple:
        return tuple(args)

    def _wp_call_(self, builder: Any, node: ast.Call) -> PyObj:
        if node.keywords:
            raise builder.error("wp.tuple() takes no keyword arguments", WarpCodegenTypeError, node)
        return PyObj(tuple(builder.strong(builder.value(a)) for a in node.args))

    def __repr__(self) -> str:
        return "wp.tuple"


tuple_ = TupleConstructor()


class IndexErrorCodegen(WarpCodegenError, IndexError):
    """A constant index is out of range at compile time."""


def _describe(obj: Any) -> str:
    inner = obj.obj if isinstance(obj, PyObj) else obj
    if isinstance(inner, types.ModuleType):
        return f"module {inner.__name__}"
    if isinstance(inner, type):
        return f"class {inner.__name__}"
    return type(inner).__name__
