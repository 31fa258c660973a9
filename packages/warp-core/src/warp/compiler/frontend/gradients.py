"""``wp.grad(f)(*args)`` in kernel code: the gradient of a user function, evaluated in place.

``wp.grad(f)`` names the gradient of ``@wp.func f`` or of a kernel builtin (``wp.atan2``) with
one float result; calling it
with ``f``'s arguments returns the derivative of ``f``'s result with respect to each argument
(one value for a one-parameter function, a tuple otherwise). The gradient function itself
comes from the plugin implementing the ``warp_function_gradient`` hook (warp-autodiff).
"""

from __future__ import annotations

import ast
from typing import Any

from warp.compiler import ir
from warp.compiler.frontend.builder import PyObj
from warp.compiler.frontend.calls import bind_user_call, function_symbol
from warp.compiler.frontend.builtin_names import BuiltinName
from warp.compiler.verify import verify_function
from warp.errors import WarpCodegenError, WarpCodegenTypeError
from warp.compiler.callables import UserFunction as Function
from warp.plugins.install_hints import install_hint
from warp.plugins.manager import get_plugin_manager
from warp.types.scalars import is_float, type_repr


class GradientOf:
    """``wp.grad(f)``: callable in kernel code with ``f``'s arguments (``f`` a ``@wp.func`` or a
    kernel builtin such as ``wp.atan2``)."""

    def __init__(self, function: Function | BuiltinName):
        self.function = function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"{self!r}(...) is evaluated in kernel code (@wp.kernel / @wp.func); "
            "in Python scope record the computation with wp.Tape and call tape.backward()"
        )

    def _wp_call_(self, builder: Any, node: ast.Call) -> Any:
        if isinstance(self.function, BuiltinName):
            args = [builder.strong(builder.value(a)) for a in node.args]
            if node.keywords:
                raise builder.error(f"{self!r}() takes positional arguments only", WarpCodegenTypeError, node)
            forward = _builtin_function(builder, self.function.name, args, node)
        else:
            overload, args = bind_user_call(builder, self.function, node)
            forward = self.function.specialization(overload, tuple(a.type for a in args))
        if len(forward.return_types) != 1 or not is_float(forward.return_types[0]):
            got = ", ".join(type_repr(t) for t in forward.return_types) or "nothing"
            raise builder.error(
                f"{self!r} needs a function returning one float scalar; it returns {got}",
                WarpCodegenTypeError,
                node,
            )
        hook = get_plugin_manager().hook.warp_function_gradient
        if not hook.get_hookimpls():
            raise builder.error(
                f"{self!r} needs the 'warp-autodiff' package, which is not installed or is "
                f"disabled; install it with: {install_hint('warp-autodiff')}",
                WarpCodegenError,
                node,
            )
        try:
            gradient = hook(function=forward)
        except ValueError as exc:
            raise builder.error(f"{self!r}: {exc}", WarpCodegenError, node) from None
        if gradient is None:
            raise builder.error(f"{self!r}: no gradient is available", WarpCodegenError, node)
        seed = builder.const(1.0, forward.return_types[0])
        op = builder.emit("call_func", [*args, seed], list(gradient.return_types), func=gradient)
        return op.result if len(op.results) == 1 else PyObj(tuple(op.results))

    def __repr__(self) -> str:
        target = self.function
        return f"wp.grad({target.name if isinstance(target, Function) else repr(target)})"


def _builtin_function(builder: Any, name: str, args: list[ir.Value], node: ast.Call) -> ir.Function:
    """A function ``(*args) -> name(*args)`` wrapping one call of a kernel builtin."""
    params = [ir.Value(a.type, f"a{i}") for i, a in enumerate(args)]
    body = ir.Region(params=[])
    with builder.enter(body, {}):
        call = builder.call_builtin(name, params, node)
    overload = call.attrs.get("overload") or call.attrs.get("builtin")
    if overload is not None and overload.updated_args():
        raise builder.error(
            f"wp.grad(wp.{name}): wp.{name} updates its arguments", WarpCodegenTypeError, node
        )
    body.ops.append(ir.Op("return", list(call.results), loc=call.loc))
    function = ir.Function(
        name=f"wp.{name}",
        params=params,
        param_names=[p.name for p in params],
        body=body,
        return_types=[r.type for r in call.results],
        is_kernel=False,
        loc=call.loc,
        symbol=function_symbol("wp_builtin", name, [a.type for a in args]),
    )
    verify_function(function)
    return function


class Grad:
    """``wp.grad``: ``wp.grad(f)`` is the gradient of ``@wp.func f``, called in kernel code."""

    def __call__(self, function: Any) -> GradientOf:
        if not isinstance(function, (Function, BuiltinName)):
            raise TypeError(f"wp.grad() takes a @wp.func function or a kernel builtin, got {function!r}")
        return GradientOf(function)

    def _wp_call_(self, builder: Any, node: ast.Call) -> PyObj:
        if len(node.args) != 1 or node.keywords:
            raise builder.error("wp.grad() takes one argument, a @wp.func", WarpCodegenTypeError, node)
        target = builder.expr(node.args[0])
        function = target.obj if isinstance(target, PyObj) else None
        if not isinstance(function, (Function, BuiltinName)):
            what = ast.unparse(node.args[0])
            raise builder.error(
                f"wp.grad() takes a @wp.func function or a kernel builtin; '{what}' is neither",
                WarpCodegenTypeError,
                node,
            )
        return PyObj(GradientOf(function))

    def __repr__(self) -> str:
        return "wp.grad"


grad = Grad()


def check_function_rebind(builder: Any, name: str, previous: Any, value: Any, node: ast.AST) -> None:
    """A local bound to a function (``f = my_func``, ``g = wp.grad(my_func)``) names that function
    for the whole kernel: kernels have no function pointers, so binding it to another function
    or to a value (``value``; None for an update such as ``g += 1.0``) is an error."""
    old = previous.obj if isinstance(previous, PyObj) else None
    new = value.obj if isinstance(value, PyObj) else None
    if isinstance(old, GradientOf):
        if not (isinstance(new, GradientOf) and new.function is old.function):
            raise builder.error(
                f"Cannot reassign local '{name}': it is bound to {old!r}, and kernels have no "
                "function pointers; use another name",
                WarpCodegenError,
                node,
            )
    elif isinstance(old, Function) and new is not old:
        what = "a different function" if isinstance(new, (Function, GradientOf)) else "a non-function value"
        raise builder.error(
            f"rebinding function-valued local '{name}' (bound to '{old.name}') to {what} is not "
            "supported: kernels have no function pointers; use another name",
            WarpCodegenError,
            node,
        )

__all__ = ["Grad", "GradientOf", "check_function_rebind", "grad"]
