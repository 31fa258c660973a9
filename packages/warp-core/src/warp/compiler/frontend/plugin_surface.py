"""What plugin code may ask of the kernel translator, published by :mod:`warp.extending`.

Two kinds of plugin code meet the frontend:

* special forms, builtins that act while a kernel is translated (an object with
  ``_wp_call_(builder, node)``, a type with ``_wp_iterate_(builder, value, node)``): they read
  compile-time arguments (:func:`compile_time_object`), build composite values
  (:func:`composite_value`) and call other builtins from code they synthesize
  (:func:`builtin_call`);
* passes over the typed IR (the reverse-mode transform, kernel analyses): they need a kernel's or
  a ``@wp.func``'s IR (:func:`kernel_ir`, :func:`function_ir`) and the IR of a
  ``@wp.func_grad`` definition (:func:`custom_adjoint_ir`).

The builder's own classes (compile-time objects, builtin names met in kernel code) stay inside
the frontend.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Sequence
from typing import Any

from warp.compiler import ir
from warp.compiler.frontend.builder import PyObj
from warp.compiler.frontend.builtin_names import warp_namespace
from warp.compiler.frontend.calls import accepts
from warp.compiler.frontend.compile_time import python_object
from warp.compiler.frontend.composite import build as build_composite
from warp.compiler.frontend.custom_grad import build_custom_adjoint
from warp.compiler.frontend.translator import build_kernel

_hidden_names = itertools.count()


def compile_time_object(builder: Any, node: ast.expr) -> Any:
    """The Python object that kernel expression ``node`` stands for at compile time (a type, a
    tuple, a function, ...; ``wp.float64`` is the type), or None when it is a run-time value.

    A tuple's items are IR values (``ir.Value``, with ``is_const``/``const`` for constants)."""
    item = builder.expr(node)
    return python_object(item) if isinstance(item, PyObj) else None


def builtin_call(builder: Any, name: str, args: Sequence[ast.expr], node: ast.AST) -> ast.Call:
    """A call of kernel builtin ``name`` on the argument expressions ``args``, as kernel code
    writing ``wp.name(*args)`` at ``node`` would, for ``builder`` to translate
    (``builder.expr(call)``, or the test of a loop it emits)."""
    module_var = f"__wp_builtins{next(_hidden_names)}"
    builder.assign_var(module_var, PyObj(warp_namespace()))
    module = ast.Name(module_var, ast.Load())
    call = ast.Call(func=ast.Attribute(value=module, attr=name, ctx=ast.Load()), args=list(args), keywords=[])
    for part in ast.walk(call):
        if getattr(part, "lineno", None) is None:  # (synthesized parts; the given ones keep theirs)
            ast.copy_location(part, node)
    return call


def composite_value(builder: Any, cls: type, values: list[ir.Value], node: ast.AST) -> ir.Value:
    """A value of composite type ``cls`` (vector, matrix, quaternion, transform) from constructor
    arguments, as ``cls(*values)`` in kernel code: components, one value to fill with, or a
    composite to convert; zeros without arguments."""
    return build_composite(builder, cls, values, node)


def kernel_ir(kernel: Any) -> ir.Function:
    """The typed IR of a ``@wp.kernel`` (or an instance of a generic one) for its parameter types."""
    return build_kernel(kernel)


def function_ir(func: Any, arg_types: Sequence[Any]) -> ir.Function:
    """The typed IR of ``@wp.func`` ``func`` for ``arg_types``, from its first overload that accepts
    them; ``TypeError`` when none does."""
    probes = [ir.Value(t) for t in arg_types]
    for overload in func.overloads:
        if len(overload.param_types) == len(probes) and all(
            accepts(p, a) is not None for p, a in zip(overload.param_types, probes)
        ):
            return func.specialization(overload, tuple(arg_types))
    raise TypeError(f"no definition of '{func.name}' accepts these argument types")


def custom_adjoint_ir(
    func: Any, grad: Any, forward: ir.Function, diff_params: list[int], array_params: list[int],
    diff_results: list[int],
) -> ir.Function:
    """The IR of the adjoint that ``@wp.func_grad`` definition ``grad`` gives ``forward`` (the
    specialization of user function ``func``): it takes ``(*params, *adjoint arrays of
    array_params, *adjoints of diff_results)`` and returns the adjoints of ``diff_params``."""
    return build_custom_adjoint(func, grad, forward, diff_params, array_params, diff_results)


__all__ = [
    "builtin_call",
    "compile_time_object",
    "composite_value",
    "custom_adjoint_ir",
    "function_ir",
    "kernel_ir",
]
