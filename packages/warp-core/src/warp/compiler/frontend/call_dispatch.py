"""Calls in kernel code: what a call calls, resolved at compile time, and its translation.

The target is a user ``@wp.func`` (its overload chosen by the argument types), a kernel builtin
by name (``wp.sin``, ``min``; keywords name its parameters), a scalar type's constructor,
``print``, ``type``, ``len`` of a tuple, a kernel form (``wp.zeros`` in kernels) or an object
that translates its own calls (the type handlers' call hook, ``_wp_call_``).
"""

from __future__ import annotations

import ast
import builtins
import math
from typing import Any

from warp.compiler import ir
from warp.compiler.callables import UserFunction, UserKernel
from warp.compiler.frontend.builder import PyObj, UnknownAttributeError
from warp.compiler.frontend.builtin_names import BuiltinName, warp_namespace
from warp.compiler.frontend.calls import bind_user_call
from warp.compiler.frontend.compile_time import CompileTimeMixin, static
from warp.compiler.frontend.kernel_forms import kernel_form
from warp.compiler.frontend.name_lookup import NameLookupMixin
from warp.compiler.frontend.pyobj import describe
from warp.compiler.frontend.tuples import TuplesMixin
from warp.compiler.frontend.type_handlers import call_hook
from warp.compiler.registry import builtin_registry
from warp.compiler.static_values import has_static_value
from warp.errors import WarpCodegenAttributeError, WarpCodegenTypeError
from warp.types.scalars import canonical_type, is_scalar_type, scalar_and_bool_types, type_repr

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

#: ``wp.float64``, ``wp.uint8``, ... by the name the kernel uses for them
_SCALARS_BY_NAME = {t.__name__: t for t in scalar_and_bool_types}


class CallDispatchMixin(NameLookupMixin, CompileTimeMixin, TuplesMixin):
    """Visitor methods for calls (mixed into the translator)."""

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
            f"'{ast.unparse(node.func)}' ({describe(PyObj(target))}) cannot be called in kernels",
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


def _named_number(value: ir.Value) -> bool:
    """A numeric literal bound to a name (typed when bound, its Python value kept)."""
    kind = getattr(value.type, "_kind_", None)
    return value.literal and not value.weak and kind in ("float", "int", "uint")


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
