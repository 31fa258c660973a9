"""``wp.grad(f)(*args)`` in kernel code: the gradient of a user function, evaluated in place.

``wp.grad(f)`` names the gradient of ``@wp.func f`` (one differentiable result); calling it
with ``f``'s arguments returns the derivative of ``f``'s result with respect to each argument
(one value for a one-parameter function, a tuple otherwise). The gradient function itself
comes from the plugin implementing the ``warp_function_gradient`` hook (warp-autodiff).
"""

from __future__ import annotations

import ast
from typing import Any

from warp.compiler.frontend.builder import PyObj
from warp.compiler.frontend.calls import bind_user_call
from warp.errors import WarpCodegenError, WarpCodegenTypeError
from warp.functions import Function
from warp.plugins.install_hints import install_hint
from warp.plugins.manager import get_plugin_manager
from warp.types.scalars import is_float, type_repr


class GradientOf:
    """``wp.grad(f)``: callable in kernel code with ``f``'s arguments."""

    def __init__(self, function: Function):
        self.function = function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"wp.grad({self.function.name})(...) is evaluated in kernel code (@wp.kernel / @wp.func); "
            "in Python scope record the computation with wp.Tape and call tape.backward()"
        )

    def _wp_call_(self, builder: Any, node: ast.Call) -> Any:
        fn = self.function
        overload, args = bind_user_call(builder, fn, node)
        spec = fn.specialization(overload, tuple(a.type for a in args))
        if len(spec.return_types) != 1 or not is_float(spec.return_types[0]):
            got = ", ".join(type_repr(t) for t in spec.return_types) or "nothing"
            raise builder.error(
                f"wp.grad({fn.name}) needs a function returning one float scalar; it returns {got}",
                WarpCodegenTypeError,
                node,
            )
        hook = get_plugin_manager().hook.warp_function_gradient
        if not hook.get_hookimpls():
            raise builder.error(
                f"wp.grad({fn.name}) needs the 'warp-autodiff' package, which is not installed or is "
                f"disabled; install it with: {install_hint('warp-autodiff')}",
                WarpCodegenError,
                node,
            )
        try:
            gradient = hook(function=spec)
        except ValueError as exc:
            raise builder.error(f"wp.grad({fn.name}): {exc}", WarpCodegenError, node) from None
        if gradient is None:
            raise builder.error(f"wp.grad({fn.name}): no gradient is available", WarpCodegenError, node)
        seed = builder.const(1.0, spec.return_types[0])
        op = builder.emit("call_func", [*args, seed], list(gradient.return_types), func=gradient)
        return op.result if len(op.results) == 1 else PyObj(tuple(op.results))

    def __repr__(self) -> str:
        return f"wp.grad({self.function.name})"


class Grad:
    """``wp.grad``: ``wp.grad(f)`` is the gradient of ``@wp.func f``, called in kernel code."""

    def __call__(self, function: Any) -> GradientOf:
        if not isinstance(function, Function):
            raise TypeError(f"wp.grad() takes a @wp.func function, got {function!r}")
        return GradientOf(function)

    def _wp_call_(self, builder: Any, node: ast.Call) -> PyObj:
        if len(node.args) != 1 or node.keywords:
            raise builder.error("wp.grad() takes one argument, a @wp.func", WarpCodegenTypeError, node)
        target = builder.expr(node.args[0])
        function = target.obj if isinstance(target, PyObj) else None
        if not isinstance(function, Function):
            what = ast.unparse(node.args[0])
            raise builder.error(
                f"wp.grad() takes a @wp.func function; '{what}' is not one (gradients of kernel "
                "builtins such as wp.sin are not provided: wrap the builtin in a @wp.func)",
                WarpCodegenTypeError,
                node,
            )
        return PyObj(GradientOf(function))

    def __repr__(self) -> str:
        return "wp.grad"


grad = Grad()

__all__ = ["Grad", "GradientOf", "grad"]
