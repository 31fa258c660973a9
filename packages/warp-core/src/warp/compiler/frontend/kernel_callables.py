"""Objects of the ``warp`` namespace that translate their own calls in kernels (``_wp_call_``):
``wp.printf`` and ``wp.tuple``."""

from __future__ import annotations

import ast
from typing import Any

from warp.compiler.frontend.pyobj import PyObj
from warp.errors import WarpCodegenTypeError, WarpCodegenValueError
from warp.types.scalars import is_scalar_type, type_repr

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
