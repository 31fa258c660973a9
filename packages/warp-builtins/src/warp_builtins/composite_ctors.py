"""Anonymous composite constructors: ``wp.vector``, ``wp.matrix``, ``wp.identity``.

They take compile-time keywords (``length=``, ``shape=``, ``dtype=``, ``n=``), so they are
Python objects with a ``_wp_call_(builder, node)`` hook that the frontend calls for them
instead of registry builtins. In Python scope::

    wp.vector(length=5, dtype=wp.float64)         # the type vector(5, float64)
    wp.matrix(shape=(3, 2), dtype=wp.float16)     # the type matrix((3, 2), float16)
    wp.identity(n=3, dtype=wp.float32)            # an identity mat33 value

and in kernels::

    v = wp.vector(dtype=wp.float64, length=5)     # zeros
    v = wp.vector(wp.float64(1.0), length=5)      # fill
    v = wp.vector(a, b, c)                        # components, dtype inferred
    m = wp.matrix(x0, x1, ..., shape=(3, 2))      # row-major components
    m = wp.matrix(wp.float16(0.0), shape=(3, 2))  # fill
    m = wp.matrix(pos, rot, scale)                # 4x4 from translation, quaternion, scale
    m = wp.identity(n=5, dtype=wp.float64)
"""

from __future__ import annotations

import ast
import math
from typing import Any

import llvmlite.ir as ir
import numpy as np

from warp.extending import (
    LowerContext,
    canonical_type,
    compile_time_object,
    composite_value,
    CompositeBase,
    float32,
    ir as wir,
    is_composite,
    is_scalar_type,
    matrix as matrix_type,
    Overload,
    type_repr,
    vector as vector_type,
    WarpCodegenTypeError,
    WarpCodegenValueError,
)

from warp_builtins.composite_ir import Emitter, result_type, scalar_of
from warp_builtins.composite_ops import quat_rotate
from warp_builtins.special_forms import SpecialForm


# -- helpers for the frontend side ---------------------------------------------------------------
def _keywords(builder: Any, node: ast.Call, allowed: tuple[str, ...], name: str) -> dict[str, ast.expr]:
    out = {}
    for kw in node.keywords:
        if kw.arg not in allowed:
            raise builder.error(
                f"wp.{name}() got an unexpected keyword argument '{kw.arg}'", WarpCodegenTypeError, node
            )
        out[kw.arg] = kw.value
    return out


def _type_arg(builder: Any, expr: ast.expr, what: str) -> Any:
    """A compile-time scalar type given as ``wp.float64``, ``float``, ``wp.types.float16``, ..."""
    obj = compile_time_object(builder, expr)
    if obj is not None:
        t = canonical_type(obj)
        if is_scalar_type(t):
            return t
    raise builder.error(f"{what} must be a scalar type such as wp.float32", WarpCodegenTypeError, expr)


def _int_arg(builder: Any, expr: ast.expr, what: str) -> int:
    value = builder.expr(expr)
    if isinstance(value, wir.Value) and value.is_const and isinstance(value.const, int) and value.const > 0:
        return int(value.const)
    raise builder.error(
        f"{what} must be a positive compile-time integer constant", WarpCodegenValueError, expr
    )


def _shape_arg(builder: Any, expr: ast.expr) -> tuple[int, int]:
    value = compile_time_object(builder, expr)
    items = value if isinstance(value, tuple) else None
    if items is None or len(items) != 2 or not all(isinstance(v, wir.Value) and v.is_const for v in items):
        raise builder.error("shape must be a tuple of two compile-time integers, e.g. shape=(3, 2)",
                            WarpCodegenValueError, expr)
    return int(items[0].const), int(items[1].const)


def _infer_dtype(builder: Any, args: list[wir.Value], node: ast.AST) -> Any:
    """Component type from the arguments: the first typed one (float32 for untyped literals)."""
    for a in args:
        if not a.weak:
            return scalar_of(a.type)
    if args and args[0].type._kind_ in ("int", "uint"):
        return args[0].type
    return float32


# -- wp.vector ---------------------------------------------------------------------------------
def _vector_python(*args: Any, length: int | None = None, dtype: Any = None) -> Any:
    """Python scope: the vector type (no components given) or a vector value."""
    if not args:
        if length is None:
            raise TypeError("wp.vector() needs length= (and optionally dtype=)")
        # length=Any / dtype=Any (or Scalar, Float, Int) give a generic annotation
        return vector_type(length if length is Any else int(length), canonical_type(dtype or float32))
    flat = np.concatenate(
        [
            np.ravel(np.asarray(a._data if isinstance(a, CompositeBase) else getattr(a, "value", a)))
            for a in args
        ]
    )
    n = length if length is not None else flat.size
    dt = canonical_type(dtype) if dtype is not None else _python_dtype(args)
    return vector_type(int(n), dt)(*flat) if flat.size == n else vector_type(int(n), dt)(flat[0])


def _vector_kernel(builder: Any, node: ast.Call) -> wir.Value:
    kw = _keywords(builder, node, ("length", "dtype"), "vector")
    args = [builder.value(a) for a in node.args]
    dtype = _type_arg(builder, kw["dtype"], "dtype") if "dtype" in kw else None
    length = _int_arg(builder, kw["length"], "length") if "length" in kw else None
    if not args:
        if length is None:
            raise builder.error(
                "wp.vector() without components: the `length` argument must be specified when "
                "zero-initializing a vector", WarpCodegenTypeError, node)
        return composite_value(builder, vector_type(length, dtype or float32), [], node)
    scalars = [a for a in args if not is_composite(a.type)]
    if dtype is None and len({(a.type, a.weak) for a in scalars}) > 1:
        raise builder.error(
            "wp.vector(" + ", ".join(type_repr(a.type) for a in args) + "): "
            "all values given when constructing a vector must have the same type", WarpCodegenTypeError, node)
    if dtype is None:
        dtype = _infer_dtype(builder, args, node)
    count = sum(math.prod(a.type._shape_) if is_composite(a.type) else 1 for a in args)
    if length is None:
        length = count
    elif len(args) == 1 and is_composite(args[0].type) and count != length:
        raise builder.error(
            f"cannot convert a vector of length {count} to a vector of length {length}: incompatible vector "
            f"of length {length} given when copy constructing a vector of length {count}",
            WarpCodegenTypeError, node)
    elif count not in (1, length):
        raise builder.error(
            f"incompatible number of values given ({count}) when constructing a vector of length {length}",
            WarpCodegenTypeError, node)
    return composite_value(builder, vector_type(length, dtype), args, node)


# -- wp.matrix ---------------------------------------------------------------------------------
def _shape2(shape: Any) -> tuple[int, int]:
    """A matrix shape given as any sequence, as the tuple matrix types take (its length unchecked)."""
    return tuple(shape)  # type: ignore[return-value]  # matrix() reports a wrong length


def _matrix_python(*args: Any, shape: tuple[int, int] | None = None, dtype: Any = None) -> Any:
    """Python scope: the matrix type (no components given) or a matrix value."""
    if not args:
        if shape is None:
            raise TypeError("wp.matrix() needs shape= (and optionally dtype=)")
        return matrix_type(_shape2(shape), canonical_type(dtype or float32))
    flat = np.concatenate(
        [
            np.ravel(np.asarray(a._data if isinstance(a, CompositeBase) else getattr(a, "value", a)))
            for a in args
        ]
    )
    if shape is None:
        k = math.isqrt(flat.size)
        if k * k != flat.size:
            raise TypeError("wp.matrix() needs shape= unless given a square number of components")
        shape = (k, k)
    dt = canonical_type(dtype) if dtype is not None else _python_dtype(args)
    cls = matrix_type(_shape2(shape), dt)
    return cls(*flat) if flat.size == math.prod(shape) else cls(flat[0])


def _matrix_kernel(builder: Any, node: ast.Call) -> wir.Value:
    kw = _keywords(builder, node, ("shape", "dtype"), "matrix")
    args = [builder.value(a) for a in node.args]
    dtype = _type_arg(builder, kw["dtype"], "dtype") if "dtype" in kw else None
    shape = _shape_arg(builder, kw["shape"]) if "shape" in kw else None
    kinds = [getattr(a.type, "_wp_kind_", None) for a in args]
    if kinds == ["vector", "quaternion", "vector"] and shape in (None, (4, 4)):
        return _trs_matrix(builder, args, dtype, node)
    if not args:
        if shape is None:
            raise builder.error(
                "wp.matrix() without components: the `shape` argument must be specified when "
                "zero-initializing a matrix", WarpCodegenTypeError, node)
        return composite_value(builder, matrix_type(shape, dtype or float32), [], node)
    if dtype is None:
        dtype = _infer_dtype(builder, args, node)
    if shape is None:
        count = sum(math.prod(a.type._shape_) if is_composite(a.type) else 1 for a in args)
        k = math.isqrt(count)
        if k * k != count:
            raise builder.error(
                f"wp.matrix() with {count} components (not a square number): the `shape` argument "
                "must be specified when initializing a matrix by value", WarpCodegenTypeError, node)
        shape = (k, k)
    return composite_value(builder, matrix_type(shape, dtype), args, node)


def _trs_matrix(builder: Any, args: list[wir.Value], dtype: Any, node: ast.AST) -> wir.Value:
    pos, rot, scale = args
    scalar = scalar_of(rot.type)
    if pos.type._shape_ != (3,) or scale.type._shape_ != (3,) or any(
        scalar_of(a.type) is not scalar for a in (pos, scale)
    ) or (dtype is not None and dtype is not scalar):
        raise builder.error(
            "wp.matrix(pos, rot, scale) needs a 3-vector, a quaternion and a 3-vector of one float type, got "
            + ", ".join(type_repr(a.type) for a in args), WarpCodegenTypeError, node)
    return builder.emit("call", args, [matrix_type((4, 4), scalar)], overload=_TRS).result


def _lower_trs(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[1]))
    p, q, s = (e.parts(t, a) for t, a in zip(types, args))
    cols = [quat_rotate(q, [e.c(1.0 if i == j else 0.0) for i in range(3)]) for j in range(3)]
    rows = [[cols[j][i] * s[j] for j in range(3)] + [p[i]] for i in range(3)]
    rows.append([e.c(0.0), e.c(0.0), e.c(0.0), e.c(1.0)])
    return e.build_rows(result_type(ctx), rows)


#: the op behind wp.matrix(pos, rot, scale) (emitted directly, like core's constructor ops)
_TRS = Overload("matrix_from_trs", (), None, lower=_lower_trs,
                doc="4x4 matrix from translation, rotation quaternion and per-axis scale.")


# -- wp.identity -------------------------------------------------------------------------------
def _identity_python(n: int, dtype: Any = float32) -> Any:
    cls = matrix_type((int(n), int(n)), canonical_type(dtype))
    return cls(np.eye(int(n)))


def _identity_kernel(builder: Any, node: ast.Call) -> wir.Value:
    kw = _keywords(builder, node, ("n", "dtype"), "identity")
    pos = list(node.args)
    if len(pos) > 2:
        raise builder.error("wp.identity() takes n and dtype", WarpCodegenTypeError, node)
    n_expr = kw.get("n", pos[0] if pos else None)
    dtype_expr = kw.get("dtype", pos[1] if len(pos) > 1 else None)
    if n_expr is None:
        raise builder.error("wp.identity() needs n=", WarpCodegenTypeError, node)
    n = _int_arg(builder, n_expr, "n")
    dtype = _type_arg(builder, dtype_expr, "dtype") if dtype_expr is not None else float32
    cls = matrix_type((n, n), dtype)
    return builder.const(tuple(1 if i == j else 0 for i in range(n) for j in range(n)), cls)


def _python_dtype(args: tuple) -> Any:
    for a in args:
        if isinstance(a, CompositeBase):
            return a._wp_scalar_type_
        if is_scalar_type(type(a)):
            return type(a)
    return float32


vector = SpecialForm(
    "vector",
    kernel=_vector_kernel,
    python=_vector_python,
    group="Vector Math",
    doc="Anonymous vector: zeros (length=, dtype=), a fill value with length=, or its components "
        "(type inferred).",
    signatures=["(*args: Scalar, length: int32, dtype: Scalar) -> vector(length=length, dtype=dtype)"],
)
matrix = SpecialForm(
    "matrix", kernel=_matrix_kernel, python=_matrix_python, group="Vector Math",
    doc="Anonymous matrix: zeros (shape=, dtype=), a fill value or row-major components with shape=, "
        "or a 4x4 matrix from (pos, rot, scale).",
    signatures=[
        "(pos: vector(length=3, dtype=Float), rot: quat(dtype=Float), scale: vector(length=3, dtype=Float), "
        "dtype: Float) -> matrix(shape=(4, 4), dtype=Float)",
        "(*args: Scalar, shape: tuple(int, int), dtype: Scalar) -> matrix(shape=shape, dtype=dtype)",
    ],
)
identity = SpecialForm(
    "identity", kernel=_identity_kernel, python=_identity_python, group="Vector Math",
    doc="The n x n identity matrix of the given scalar type (n and dtype are compile-time constants).",
    signatures=["(n: int32, dtype: Scalar) -> matrix(shape=(n, n), dtype=dtype)"],
)


def exports() -> dict[str, Any]:
    """Python-scope names for ``warp_exports``: ``wp.vector``, ``wp.matrix``, ``wp.identity``."""
    return {"vector": vector, "matrix": matrix, "identity": identity}
