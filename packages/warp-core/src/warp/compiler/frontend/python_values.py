"""The expression visitor's entry, literals, and compile-time Python values in kernel code.

``expr`` dispatches on the node type to the ``expr_<Node>`` methods of the mixins composed in
:class:`~warp.compiler.frontend.expressions.ExpressionsMixin` and returns an ``ir.Value`` or a
:class:`PyObj` (a compile-time Python object). Python, NumPy and warp scalars met in kernel code
(literals, names bound to numbers) become IR constants here.
"""

from __future__ import annotations

import ast
import enum
from typing import Any

import numpy as np

from warp.compiler import ir
from warp.compiler.frontend.builder import FunctionBuilder, PyObj
from warp.compiler.frontend.pyobj import describe
from warp.errors import WarpCodegenTypeError
from warp.types.scalars import ScalarBase, dtype_from_numpy, float32, int32, int64
from warp.types.scalars import bool as wp_bool


class PythonValuesMixin(FunctionBuilder):
    """The visitor's entry ``expr``, and Python values as IR values (mixed into the translator)."""

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
                f"'{ast.unparse(node)}' ({describe(result)}) cannot be used as a value in kernels",
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
        """Wrap a Python object met by name: scalars become constants, the rest a PyObj.

        Enum members stay Python objects until used as values (``Color.RED.value``, ``.name``)."""
        if isinstance(obj, enum.Enum):
            return PyObj(obj)
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
