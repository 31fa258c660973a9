"""Code evaluated while a kernel is translated: ``wp.static(...)``, ``type(x)``, comparisons of
types and other compile-time objects (what generic functions branch on).

``wp.static(expr)`` evaluates ``expr`` in Python with the names the kernel sees: its module
globals, the variables its closure captured, and local variables whose value is known at compile
time (loop variables of unrolled loops, names bound to types, functions or constants). The result
replaces the expression: a warp function, a type, a string, a constant (scalar, vector, ...), or
a tuple of those.
"""

from __future__ import annotations

import ast
import functools
import operator
import types
from typing import TYPE_CHECKING, Any

import numpy as np

from warp.compiler import ir
from warp.compiler.frontend.builder import FunctionBuilder, PyObj
from warp.compiler.frontend.builtin_names import BuiltinName
from warp.compiler.source import read_source
from warp.compiler.static_values import outermost_static_calls, reads_locals, static_value
from warp.errors import WarpCodegenError, WarpCodegenTypeError, WarpCodegenValueError
from warp.types.array_type import ArrayType
from warp.types.scalars import type_repr
from warp.types.struct import StructBase
from warp.types.scalars import ScalarBase

_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


def python_object(item: Any) -> Any:
    """The Python object a PyObj stands for (``wp.float64`` met as a builtin name is the type)."""
    obj = item.obj if isinstance(item, PyObj) else item
    if isinstance(obj, BuiltinName):
        resolved = obj.python_object()
        if isinstance(resolved, type):
            return resolved
    return obj


class CompileTimeMixin(FunctionBuilder):
    """Visitor helpers for compile-time evaluation (mixed into the translator)."""

    if TYPE_CHECKING:  # defined by the expression visitor

        def expr(self, node: ast.expr) -> Any: ...
        def python_value(self, obj: Any) -> ir.Value | None: ...
        def from_python(self, obj: Any) -> Any: ...

    def call_type(self, node: ast.Call) -> PyObj:
        """``type(x)``: the warp type of a value (callable as a constructor, comparable)."""
        if len(node.args) != 1 or node.keywords:
            raise self.error("type() takes exactly one argument in kernels", WarpCodegenTypeError, node)
        item = self.expr(node.args[0])
        if isinstance(item, ir.Value):
            return PyObj(self.strong(item).type)
        return PyObj(type(python_object(item)))

    def compare_compile_time(self, node: ast.Compare) -> Any:
        """Fold ``a == b`` / ``a is b`` / ``a in b`` when both sides are compile-time objects, else None."""
        if not all(type(op) in _COMPARE for op in node.ops):
            return None
        operands = [node.left, *node.comparators]
        if not all(_maybe_compile_time(n) for n in operands):
            return None
        if not any(self._names_object(n) for n in operands):
            return None
        items = [self.expr(n) for n in operands]
        if any(isinstance(i, ir.Value) and not i.is_const for i in items):
            return None
        if not any(isinstance(i, PyObj) for i in items):
            return None
        values = [i.const if isinstance(i, ir.Value) else python_object(i) for i in items]
        result = all(_COMPARE[type(op)](a, b) for op, a, b in zip(node.ops, values, values[1:]))
        return self.python_value(bool(result))

    def _names_object(self, node: ast.expr) -> bool:
        """True if ``node`` certainly denotes a compile-time object (judged without translating it)."""
        if isinstance(node, ast.Call):
            return True  # type(...) / wp.static(...) (see _maybe_compile_time)
        if isinstance(node, ast.Constant):
            return node.value is None or isinstance(node.value, str)
        if isinstance(node, ast.Attribute):
            if node.attr == "dtype":
                return True
            return isinstance(node.value, ast.Name) and self.lookup_var(node.value.id) is None
        if isinstance(node, ast.Name):
            local = self.lookup_var(node.id)
            if local is not None:
                return isinstance(local, PyObj)
            found, obj = self.source.lookup(node.id)
            return found and not _is_constant_like(obj)
        return False

    def static_namespace(self) -> dict[str, Any]:
        """Names visible to ``wp.static``: globals, closure, then compile-time locals."""
        ns = dict(self.source.globals)
        ns.update(self.source.closure)
        for name, item in self.scope.vars.items():
            if isinstance(item, ir.Value):
                if item.is_const and getattr(item.type, "_kind_", None) is not None:
                    ns[name] = item.const
                elif getattr(item.type, "_shape_", None):
                    ns[name] = RuntimeComposite(name, item.type)  # len(v) is known from the type
                else:
                    ns.pop(name, None)  # a runtime value shadows any global of the same name
            elif isinstance(item, PyObj):
                ns[name] = python_object(item)
        return ns

    def eval_static(self, expr: ast.expr) -> Any:
        """Evaluate ``expr`` in Python (the argument of ``wp.static``) and return its value."""
        if isinstance(expr, ast.Constant):
            return expr.value  # a literal, or a value kept in the tree (see .code_transformers)
        code = compile(ast.Expression(body=expr), self.source.file, "eval")
        ns = self.static_namespace()
        try:
            # kernel source is user code, evaluated as in NVIDIA Warp; once per function when it
            # reads no local variable (see warp.compiler.static_values)
            return static_value(self.source.func, expr, lambda: eval(code, ns))  # noqa: S307
        except NameError as exc:
            raise self.error(
                f"Error evaluating static expression: {exc}. Make sure all variables used in the static "
                f"expression are constant. ('{ast.unparse(expr)}' is evaluated in Python when the kernel is "
                "compiled: runtime values are not known then)",
                WarpCodegenError,
                expr,
            ) from None
        except Exception as exc:
            raise self.error(
                f"Error evaluating static expression: {exc} ('{ast.unparse(expr)}' raised "
                f"{type(exc).__name__})",
                WarpCodegenError,
                expr,
            ) from None

    def static_result(self, value: Any, node: ast.AST) -> Any:
        """A ``wp.static`` result as the frontend sees it (constants, PyObj, tuples of those)."""
        unsupported = "Static expression returns an unsupported value: "
        if value is None:
            raise self.error(unsupported + "None is returned", WarpCodegenValueError, node)
        if isinstance(value, (tuple, list, range)):  # for i in wp.static(range(3)): unrolled
            return PyObj(tuple(self.static_result(v, node) for v in value))
        if getattr(value, "array_type", None) is not None and not isinstance(value, type):
            raise self.error(
                unsupported + "a Warp array cannot be created inside Warp kernels", WarpCodegenTypeError, node
            )
        if isinstance(value, StructBase):
            path = _array_field_path(value, type(value).__name__)
            if path is not None:
                raise self.error(
                    unsupported + "the returned Warp struct contains a data type that cannot be constructed "
                    f"inside Warp kernels: a Warp array cannot be created inside Warp kernels at {path}",
                    WarpCodegenTypeError,
                    node,
                )
        elif not _static_object(value):
            raise self.error(
                unsupported + f"value of type {type(value)} (wp.static gives numbers, vectors, matrices, "
                "structs, types, strings, functions and tuples of those)",
                WarpCodegenTypeError,
                node,
            )
        return self.from_python(value)


def evaluate_statics(func: Any) -> None:
    """Evaluate the ``wp.static`` expressions of ``func`` that read no local variable, now (at the
    declaration of a kernel or function, as NVIDIA Warp does); those that fail are evaluated again,
    and report their error, when the function is compiled."""
    code = getattr(func, "__code__", None)
    if code is None or not _may_call_static(func, code):
        return
    try:
        info = read_source(func)
    except Exception:  # no source (exec, REPL): compiling it reports that
        return
    namespace = {**info.globals, **info.closure}

    def is_static(call: ast.Call) -> bool:
        return callee_object(call.func, info) is static

    for stmt in info.tree.body:
        for call in outermost_static_calls(stmt, is_static):
            expr = call.args[0]
            if reads_locals(func, expr):
                continue
            compiled = compile(ast.Expression(body=expr), info.file, "eval")
            try:
                static_value(func, expr, functools.partial(eval, compiled, namespace))
            except Exception:  # noqa: S112 - deferred: raised with its location at compile time
                continue


def _may_call_static(func: Any, code: Any) -> bool:
    """Whether ``func`` names ``wp.static`` (as ``wp.static``, ``static`` or an alias of it)."""
    if "static" in code.co_names:
        return True
    globals_ = getattr(func, "__globals__", {})
    if any(globals_.get(name) is static for name in code.co_names):
        return True
    cells = getattr(func, "__closure__", None) or ()
    return any(_cell_is_static(cell) for cell in cells)


def _cell_is_static(cell: Any) -> bool:
    try:
        return cell.cell_contents is static
    except ValueError:  # an empty cell
        return False


def callee_object(node: ast.expr, info: Any) -> Any:
    """The object a callee ``name`` or ``a.b.c`` of global/closure names refers to, or None."""
    if isinstance(node, ast.Name):
        found, obj = info.lookup(node.id)
        return obj if found else None
    if isinstance(node, ast.Attribute):
        base = callee_object(node.value, info)
        return getattr(base, node.attr, None) if base is not None else None
    return None


class RuntimeComposite:
    """What ``wp.static`` sees of a runtime vector/matrix/quaternion/transform: its ``len()``
    and ``shape`` (known from its type); any other use says that the value is only known at run time."""

    def __init__(self, name: str, type_: Any):
        self._name = name
        self._type = type_
        self.shape = tuple(type_._shape_)

    def __len__(self) -> int:
        return int(self.shape[0])

    def __repr__(self) -> str:
        return f"<runtime value '{self._name}' of type {type_repr(self._type)}: only its shape is known>"

    def _runtime(self, *args: Any) -> Any:
        raise NameError(
            f"'{self._name}' is a runtime value ({type_repr(self._type)}); in wp.static only "
            f"len({self._name}) is known"
        )

    __getattr__ = __getitem__ = __iter__ = __bool__ = __float__ = __int__ = __index__ = _runtime
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __neg__ = _runtime
    __eq__ = __lt__ = __le__ = __gt__ = __ge__ = _runtime  # type: ignore[assignment]
    __hash__ = None  # type: ignore[assignment]


def _array_field_path(value: Any, path: str) -> str | None:
    """Dotted path of the first array field set in a struct value (nested structs included)."""
    for name, t in type(value)._fields_:
        field = getattr(value, name)
        if isinstance(t, ArrayType) and field is not None:
            return f"{path}.{name}"
        if isinstance(field, StructBase):
            found = _array_field_path(field, f"{path}.{name}")
            if found is not None:
                return found
    return None


def _static_object(value: Any) -> bool:
    """Python objects a ``wp.static`` result may be besides constants: what kernel code can use
    at compile time (types, functions, modules, strings, ...), not instances of arbitrary classes."""
    if _is_constant_like(value) or callable(value) or isinstance(value, (type, str, bytes, types.ModuleType)):
        return True
    return type(value).__module__ in ("builtins", "typing") or type(value).__module__.startswith("warp")


class Static:
    """``wp.static(expr)`` in a kernel or function: ``expr`` evaluated in Python (once, at the
    declaration, if it reads no local variable), replaced by its value (a number, vector/matrix or
    struct value, type, string, ``@wp.func``, or a tuple/list/range of those). It sees module
    globals, captured closure variables and compile-time locals such as the loop variables of
    unrolled loops. In Python scope it returns its argument."""

    def __call__(self, expr: Any) -> Any:
        return expr

    def _wp_call_(self, builder: Any, node: ast.Call) -> Any:
        if len(node.args) != 1 or node.keywords:
            raise builder.error("wp.static() takes exactly one expression", WarpCodegenTypeError, node)
        return builder.static_result(builder.eval_static(node.args[0]), node)

    def __repr__(self) -> str:
        return "wp.static"


static = Static()


def _is_constant_like(obj: Any) -> bool:
    """Objects the frontend turns into IR constants (numbers, warp scalars and composites)."""
    return isinstance(obj, (bool, int, float, ScalarBase, np.generic)) or hasattr(type(obj), "_wp_constant_")


def _maybe_compile_time(node: ast.expr) -> bool:
    """Operands that may be compile-time objects and are safe to translate twice (no side effects):
    names, constants, attribute chains, subscripts and tuples of those, ``type(...)`` and
    ``wp.static(...)`` calls."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _maybe_compile_time(node.value)
    if isinstance(node, ast.Subscript):
        return _maybe_compile_time(node.value) and _maybe_compile_time(node.slice)
    if isinstance(node, ast.Tuple):
        return all(_maybe_compile_time(e) for e in node.elts)
    if isinstance(node, ast.Call) and not node.keywords:
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        return name in ("type", "static") and all(_maybe_compile_time(a) for a in node.args)
    return False


def is_static_call(builder: Any, node: ast.AST) -> bool:
    """True for a call of ``wp.static`` (resolved by name, so aliases work)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "static":
        return True
    if isinstance(func, ast.Name):
        found, obj = builder.source.lookup(func.id)
        return found and obj is static
    return False


def uses_static_on(builder: Any, stmts: list[ast.stmt], name: str) -> bool:
    """True if a ``wp.static(...)`` in ``stmts`` reads the variable ``name`` (the loop must unroll)."""
    for stmt in stmts:
        for node in ast.walk(stmt):
            if is_static_call(builder, node) and any(
                isinstance(n, ast.Name) and n.id == name for n in ast.walk(node)
            ):
                return True
    return False


__all__ = [
    "CompileTimeMixin",
    "Static",
    "callee_object",
    "is_static_call",
    "python_object",
    "static",
    "uses_static_on",
]

