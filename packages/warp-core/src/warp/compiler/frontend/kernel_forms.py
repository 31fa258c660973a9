"""Kernel-side meaning of Python-scope names that NVIDIA Warp also accepts inside kernels.

``wp.zeros(shape, dtype)`` / ``wp.empty(shape, dtype)`` (a kernel-local, stack-allocated array of
fixed shape), ``wp.array(ptr=..., shape=..., dtype=...)`` (an array view over a ``uint64``
address), ``wp.copy(x)`` (a value copy) and ``wp.cast(x, dtype)`` (the same bits read as another
type of the same size). The Python-scope objects (``warp.zeros`` allocating device memory, ...)
stay what they are; the frontend looks them up here when it meets a call of one in kernel code
(:func:`kernel_form`).

Kernel-local arrays are ordinary array values (the 64-byte descriptor) whose data points to a
stack slot of the function that created them: indexing, ``a.shape``, ``len(a)``, ``a.ptr``, row
views, atomics and passing them to ``@wp.func`` (which sees and may modify the same elements, as
for any array) all work unchanged. Their type, :class:`~warp.types.array_type.FixedArrayType`,
remembers the shape, so ``a.shape[k]`` is a compile-time constant.
"""

from __future__ import annotations

import ast
import math
from typing import Any, Callable

import llvmlite.ir as ll

from warp.compiler import ir
from warp.compiler.frontend.builder import PyObj
from warp.compiler.frontend.builtin_names import BuiltinName
from warp.compiler.lowering import types as lt
from warp.compiler.lowering.context import LowerContext
from warp.compiler.registry import Overload
from warp.errors import WarpCodegenTypeError, WarpCodegenValueError
from warp.types.array_type import MAX_DIMS, ArrayType, FixedArrayType
from warp.types.scalars import canonical_type, is_int, type_repr, type_size_in_bytes, uint64

#: Largest kernel-local array, in bytes (it lives on the thread's stack).
MAX_LOCAL_ARRAY_BYTES = 1 << 20


# -- lowering -----------------------------------------------------------------------------------
def _descriptor(b: ll.IRBuilder, data: ll.Value, shape: list[ll.Value], elem: int) -> ll.Value:
    """A contiguous array value over ``data`` with ``shape`` (i32 values)."""
    view = ll.Constant(lt.ARRAY_STRUCT, ll.Undefined)
    view = b.insert_value(view, data, 0)
    view = b.insert_value(view, ll.Constant(lt.PTR, None), 1)
    stride: ll.Value = ll.Constant(lt.I64, elem)
    strides: list[ll.Value] = []
    for dim in reversed(shape):
        strides.insert(0, stride)
        stride = b.mul(stride, b.sext(dim, lt.I64))
    for k in range(MAX_DIMS):
        dim = shape[k] if k < len(shape) else ll.Constant(lt.I32, 0)
        st = strides[k] if k < len(shape) else ll.Constant(lt.I64, 0)
        view = b.insert_value(view, dim, [2, k])
        view = b.insert_value(view, st, [3, k])
    return view


def _lower_local_array(ctx: LowerContext, args: list, types: list) -> ll.Value:
    t: FixedArrayType = ctx.op.results[0].type
    size = math.prod(t.shape) * type_size_in_bytes(t.dtype)
    slot = ctx.alloca(ll.ArrayType(lt.I8, max(size, 1)), name="local_array")
    slot.align = 16
    b = ctx.builder
    if ctx.op.attrs.get("zero", True):
        memset = ctx.intrinsic("llvm.memset.p0.i64", lt.VOID, [lt.PTR, lt.I8, lt.I64, lt.I1])
        b.call(memset, [slot, ll.Constant(lt.I8, 0), ll.Constant(lt.I64, size), ll.Constant(lt.I1, 0)])
    dims = [ll.Constant(lt.I32, n) for n in t.shape]
    return _descriptor(b, slot, dims, type_size_in_bytes(t.dtype))


def _lower_array_from_ptr(ctx: LowerContext, args: list, types: list) -> ll.Value:
    t: ArrayType = ctx.op.results[0].type
    b = ctx.builder
    data = b.inttoptr(args[0], lt.PTR)
    dims = []
    for value, vt in zip(args[1:], types[1:]):
        if value.type.width > 32:
            value = b.trunc(value, lt.I32)
        elif value.type.width < 32:
            value = b.sext(value, lt.I32) if vt._kind_ == "int" else b.zext(value, lt.I32)
        dims.append(value)
    return _descriptor(b, data, dims, type_size_in_bytes(t.dtype))


def _lower_array_ptr(ctx: LowerContext, args: list, types: list) -> ll.Value:
    return ctx.builder.ptrtoint(ctx.builder.extract_value(args[0], 0), lt.I64)


def _lower_cast(ctx: LowerContext, args: list, types: list) -> ll.Value:
    src, dst = types[0], ctx.op.results[0].type
    b = ctx.builder
    slot = ctx.alloca(lt.storage_type(src), name="cast")
    slot.align = 16
    b.store(lt.to_storage(b, src, args[0]), slot)
    return lt.from_storage(b, dst, b.load(slot, typ=lt.storage_type(dst)))


LOCAL_ARRAY = Overload(
    "zeros",
    (),
    None,
    lower=_lower_local_array,
    differentiable=False,
    group="Utility",
    doc="A zero-initialized kernel-local array of fixed shape (wp.zeros in kernels).",
)
ARRAY_FROM_PTR = Overload(
    "array",
    (),
    None,
    lower=_lower_array_from_ptr,
    differentiable=False,
    group="Utility",
    doc="An array view over memory at a uint64 address (wp.array(ptr=..., shape=..., dtype=...)).",
)
ARRAY_PTR = Overload(
    "array_ptr",
    (),
    None,
    lower=_lower_array_ptr,
    differentiable=False,
    group="Utility",
    doc="Address of an array's first element as uint64 (a.ptr in kernels).",
)
CAST = Overload(
    "cast",
    (),
    None,
    lower=_lower_cast,
    differentiable=False,
    group="Utility",
    doc="The bits of a value read as another type of the same size (wp.cast(x, dtype)).",
)


# -- translation --------------------------------------------------------------------------------
def _arguments(builder: Any, node: ast.Call, names: tuple[str, ...], what: str) -> dict[str, ast.expr]:
    """Positional and keyword arguments of ``node`` by parameter name (all required)."""
    if len(node.args) > len(names):
        raise builder.error(
            f"{what} takes {len(names)} arguments, got {len(node.args)}", WarpCodegenTypeError, node
        )
    bound = dict(zip(names, node.args))
    for kw in node.keywords:
        if kw.arg not in names:
            raise builder.error(
                f"{what} got an unexpected keyword argument '{kw.arg}'", WarpCodegenTypeError, node
            )
        if kw.arg in bound:
            raise builder.error(
                f"{what} got multiple values for argument '{kw.arg}'", WarpCodegenTypeError, node
            )
        bound[kw.arg] = kw.value
    missing = [n for n in names if n not in bound]
    if missing:
        raise builder.error(f"{what} is missing argument '{missing[0]}'", WarpCodegenTypeError, node)
    return bound


def data_type(builder: Any, node: ast.expr, what: str) -> Any:
    """The warp type named by ``node`` at compile time (``float``, ``wp.vec3``, a struct)."""
    item = builder.expr(node)
    obj = item.obj if isinstance(item, PyObj) else None
    if isinstance(obj, BuiltinName):  # wp.float32 reaches kernels as its conversion builtin
        obj = obj.python_object()
    try:
        t = canonical_type(obj)
    except TypeError:  # unhashable: not a type
        t = None
    try:
        type_size_in_bytes(t)
    except TypeError:
        raise builder.error(
            f"the dtype of {what} must be a warp data type (scalar, vector, matrix or struct), "
            f"got '{ast.unparse(node)}'",
            WarpCodegenTypeError,
            node,
        ) from None
    return t


def _shape_items(builder: Any, node: ast.expr) -> list[tuple[Any, ast.expr]]:
    item = builder.expr(node)
    if isinstance(item, PyObj) and isinstance(item.obj, tuple):
        elts = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node] * len(item.obj)
        return list(zip(item.obj, elts))
    return [(item, node)]


def constant_shape(builder: Any, node: ast.expr, what: str) -> tuple[int, ...]:
    """A shape given as a compile-time integer or tuple of integers."""
    shape = []
    for item, item_node in _shape_items(builder, node):
        value = builder.python_value(item.obj) if isinstance(item, PyObj) else item
        if not (isinstance(value, ir.Value) and value.is_const and is_int(value.type)):
            raise builder.error(
                f"the shape of {what} must be a compile-time constant (an int literal, a wp.constant "
                f"or wp.static(...) value, or a tuple of those), got '{ast.unparse(item_node)}'",
                WarpCodegenValueError,
                item_node,
            )
        shape.append(int(value.const))
    if not 1 <= len(shape) <= MAX_DIMS:
        raise builder.error(
            f"{what} needs 1 to {MAX_DIMS} dimensions, got {len(shape)}", WarpCodegenValueError, node
        )
    if any(n <= 0 for n in shape):
        raise builder.error(
            f"the shape of {what} must be positive, got {tuple(shape)}", WarpCodegenValueError, node
        )
    return tuple(shape)


def local_array(builder: Any, node: ast.Call, *, zero: bool) -> ir.Value:
    """``wp.zeros(shape, dtype)`` / ``wp.empty(shape, dtype)`` in kernel code."""
    what = "wp.zeros()" if zero else "wp.empty()"
    args = _arguments(builder, node, ("shape", "dtype"), what)
    shape = constant_shape(builder, args["shape"], what)
    dtype = data_type(builder, args["dtype"], what)
    size = math.prod(shape) * type_size_in_bytes(dtype)
    if size > MAX_LOCAL_ARRAY_BYTES:
        raise builder.error(
            f"{what} of shape {shape} and dtype {type_repr(dtype)} needs {size} bytes of stack per "
            f"thread; kernel-local arrays are limited to {MAX_LOCAL_ARRAY_BYTES} bytes",
            WarpCodegenValueError,
            node,
        )
    t = FixedArrayType(dtype, len(shape), shape)
    return builder.emit("call", [], [t], overload=LOCAL_ARRAY, zero=zero).result


def array_from_ptr(builder: Any, node: ast.Call) -> ir.Value:
    """``wp.array(ptr=address, shape=(n, ...), dtype=T)`` in kernel code: a contiguous array view."""
    args = _arguments(builder, node, ("ptr", "shape", "dtype"), "wp.array()")
    ptr = builder.strong(builder.value(args["ptr"]))
    if ptr.type is not uint64:
        raise builder.error(
            f"the ptr of wp.array() in kernels must be a uint64 address, got {type_repr(ptr.type)} "
            "(convert with wp.uint64(...))",
            WarpCodegenTypeError,
            args["ptr"],
        )
    dims = []
    for item, item_node in _shape_items(builder, args["shape"]):
        value = builder.strong(builder.value(item_node) if not isinstance(item, ir.Value) else item)
        if not is_int(value.type):
            raise builder.error(
                f"the shape of wp.array() must be integers, got {type_repr(value.type)}",
                WarpCodegenTypeError,
                item_node,
            )
        dims.append(value)
    if not 1 <= len(dims) <= MAX_DIMS:
        raise builder.error(
            f"wp.array() needs 1 to {MAX_DIMS} dimensions, got {len(dims)}", WarpCodegenValueError, node
        )
    dtype = data_type(builder, args["dtype"], "wp.array()")
    return builder.emit("call", [ptr, *dims], [ArrayType(dtype, len(dims))], overload=ARRAY_FROM_PTR).result


def copy_value(builder: Any, node: ast.Call) -> ir.Value:
    """``wp.copy(x)``: a copy of a value. Kernel values are immutable (an update such as
    ``v.x = 1.0`` rebinds ``v`` to a new value), so the copy is the value itself; for an array it
    is the same view of the same elements, as in NVIDIA Warp."""
    args = _arguments(builder, node, ("a",), "wp.copy()")
    return builder.strong(builder.value(args["a"]))


def cast_value(builder: Any, node: ast.Call) -> ir.Value:
    """``wp.cast(x, dtype)``: the bits of ``x`` reinterpreted as ``dtype`` (sizes must match)."""
    args = _arguments(builder, node, ("a", "dtype"), "wp.cast()")
    value = builder.strong(builder.value(args["a"]))
    dtype = data_type(builder, args["dtype"], "wp.cast()")
    if isinstance(value.type, ArrayType):
        raise builder.error("wp.cast() reinterprets values, not arrays", WarpCodegenTypeError, node)
    src_size, dst_size = type_size_in_bytes(value.type), type_size_in_bytes(dtype)
    if src_size != dst_size:
        raise builder.error(
            f"wp.cast() reinterprets the bits of a value, so both types must have the same size: "
            f"{type_repr(value.type)} has {src_size} bytes, {type_repr(dtype)} has {dst_size}",
            WarpCodegenTypeError,
            node,
        )
    if value.type == dtype:
        return value
    return builder.emit("call", [value], [dtype], overload=CAST).result


def array_ptr(builder: Any, array: ir.Value) -> ir.Value:
    """``a.ptr`` in kernel code: the address of the first element as ``uint64``."""
    return builder.emit("call", [array], [uint64], overload=ARRAY_PTR).result


class KernelOnlyBuiltin:
    """A builtin that exists only in kernels (``wp.cast``): calling it from Python raises."""

    def __init__(self, name: str, translate: Callable[[Any, ast.Call], Any], doc: str):
        self.name = name
        self._translate = translate
        self.__doc__ = doc

    def _wp_call_(self, builder: Any, node: ast.Call) -> Any:
        return self._translate(builder, node)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"wp.{self.name} is a kernel builtin: call it inside a @wp.kernel or @wp.func")

    def __repr__(self) -> str:
        return f"wp.{self.name}"


cast = KernelOnlyBuiltin(
    "cast", cast_value, "cast(a, dtype): the bits of a reinterpreted as dtype (same size), in kernels."
)

#: ``wp.add_inplace(a, i, x)`` is ``a[i] += x``, ... (None: ``wp.assign_inplace``, ``a[i] = x``)
_INPLACE_OPS: dict[str, type[ast.operator] | None] = {
    "add_inplace": ast.Add,
    "sub_inplace": ast.Sub,
    "bit_and_inplace": ast.BitAnd,
    "bit_or_inplace": ast.BitOr,
    "bit_xor_inplace": ast.BitXor,
    "assign_inplace": None,
}


def _inplace_translator(name: str) -> Callable[[Any, ast.Call], Any]:
    op = _INPLACE_OPS[name]

    def translate(builder: Any, node: ast.Call) -> PyObj:
        """``wp.<name>(a, i, [j,] x)``: the statement ``a[i, j] <op>= x`` (updates ``a``, which
        must be a variable, a struct field or an array element)."""
        if node.keywords or len(node.args) not in (3, 4):
            raise builder.error(
                f"wp.{name}(a, i, value) / wp.{name}(a, i, j, value) takes 3 or 4 positional arguments",
                WarpCodegenTypeError,
                node,
            )
        target, *indices, value = node.args
        if not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
            raise builder.error(
                f"the first argument of wp.{name} must be a variable, a struct field or an array "
                f"element (it is updated in place), got '{ast.unparse(target)}'",
                WarpCodegenTypeError,
                target,
            )
        index = indices[0] if len(indices) == 1 else ast.Tuple(elts=indices, ctx=ast.Load())
        place = ast.Subscript(value=target, slice=index, ctx=ast.Store())
        stmt: ast.stmt
        if op is None:
            stmt = ast.Assign(targets=[place], value=value)
        else:
            stmt = ast.AugAssign(target=place, op=op(), value=value)
        for n in (index, place, stmt):
            ast.copy_location(n, node)
        builder.stmt_Assign(stmt) if op is None else builder.stmt_AugAssign(stmt)
        return PyObj(None)

    return translate


#: ``wp.add_inplace``, ``wp.sub_inplace``, ``wp.bit_and_inplace``, ``wp.bit_or_inplace``,
#: ``wp.bit_xor_inplace``, ``wp.assign_inplace`` (exported on ``wp``)
INPLACE_BUILTINS = {
    name: KernelOnlyBuiltin(
        name, _inplace_translator(name), f"{name}(a, i, [j,] value): a[i, j] updated in place, in kernels."
    )
    for name in _INPLACE_OPS
}


#: Kernel translations of calls of Python-scope objects, keyed by the object (see
#: :func:`register_kernel_form`).
_KERNEL_FORMS: dict[int, tuple[Any, Callable[[Any, ast.Call], Any]]] = {}

#: The kernel forms of the array functions, by their public name: ``wp.zeros(shape, dtype)`` and
#: ``wp.empty`` make a local array, ``wp.copy(v)`` a copy of a value, ``wp.array(ptr=...)`` an
#: array over a pointer. :mod:`warp.arrays` registers its functions under these names.
ARRAY_FUNCTION_FORMS: dict[str, Callable[[Any, ast.Call], Any]] = {
    "zeros": lambda builder, node: local_array(builder, node, zero=True),
    "empty": lambda builder, node: local_array(builder, node, zero=False),
    "copy": lambda builder, node: copy_value(builder, node),
    "array": lambda builder, node: array_from_ptr(builder, node),
}


def register_kernel_form(obj: Any, form: Callable[[Any, ast.Call], Any]) -> None:
    """Translate a call of Python-scope object ``obj`` in kernel code with ``form(builder, node)``
    (for objects of the layers above the compiler, which cannot carry a ``_wp_call_`` of their
    own without importing the compiler's frontend into their module)."""
    _KERNEL_FORMS[id(obj)] = (obj, form)


def kernel_form(target: Any) -> Callable[[Any, ast.Call], Any] | None:
    """The kernel translation of a call of Python-scope object ``target``, or None."""
    entry = _KERNEL_FORMS.get(id(target))
    return entry[1] if entry is not None and entry[0] is target else None
