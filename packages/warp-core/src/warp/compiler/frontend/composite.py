"""Kernel-side construction and component access of composite values.

``vec3(1.0, 2.0, 3.0)``, ``vec3()``, ``vec3(x)`` (fill), ``vec3d(v)`` (conversion),
``mat22(...)``, ``transform(p, q)``; ``v[i]``, ``v.x``, ``m[i]``, ``m[i, j]`` and their
assignments, which rebind the variable to an updated copy (values are immutable in the IR).
"""

from __future__ import annotations

import ast
import math
import sys
import warnings
from typing import Any


from warp.compiler import ir as wir
from warp.compiler.frontend.builder import PyObj
from warp.compiler.frontend.builtin_names import BuiltinName
from warp.compiler.value_ops import CONSTRUCT, CONVERT, FILL
from warp.errors import WarpCodegenAttributeError, WarpCodegenTypeError, WarpCodegenValueError
from warp.plugins.install_hints import install_hint
from warp.types.composite import matrix, quaternion, vector
from warp.types.composite_values import CompositeBase, is_composite
from warp.types.scalars import canonical_type, is_scalar_type, type_repr
from warp.types.scalars import int32

_ATTR_INDEX = {"x": 0, "y": 1, "z": 2, "w": 3}


def generic_constructor(builder: Any, name: str, node: ast.Call) -> Any:
    """``wp.types.vector(...)`` (``matrix``, ``quaternion``, ``transformation``) called in a kernel.

    The type factories of :mod:`warp.types` double as the generic constructors in kernels, as in
    NVIDIA Warp; their kernel form is the one published as ``wp.<name>`` (by warp-builtins).
    """
    form = getattr(sys.modules["warp"], name, None)
    hook = getattr(form, "_wp_call_", None)
    if hook is None:
        raise builder.error(
            f"wp.types.{name}() in kernels needs the warp-builtins distribution "
            f"({install_hint('warp-builtins')})",
            WarpCodegenTypeError,
            node,
        )
    return hook(builder, node)


def construct(builder: Any, cls: type[CompositeBase], node: ast.Call) -> wir.Value:
    """Translate a constructor call of composite type ``cls``."""
    if cls._wp_kind_ == "transform":
        return _construct_transform(builder, cls, node)
    for kw in node.keywords:
        _check_restated(builder, cls, kw)
    args = [builder.value(a) for a in node.args]
    return build(builder, cls, args, node)


def _check_restated(builder: Any, cls: type[CompositeBase], kw: ast.keyword) -> None:
    """``mat32d(c, shape=(3, 2))``, ``vec3(x, length=3, dtype=float)``: a keyword may restate
    the type's own shape, length or dtype (as the generic constructors take them)."""
    name = type_repr(cls)
    matrix_kind = cls._wp_kind_ == "matrix"
    allowed = ("shape", "dtype") if matrix_kind else ("length", "dtype")
    if kw.arg not in allowed:
        raise builder.error(
            f"{name}() got an unexpected keyword argument '{kw.arg}' (it takes {' and '.join(allowed)}=, "
            "which must match the type)",
            WarpCodegenTypeError,
            kw.value,
        )
    item = builder.expr(kw.value)
    if kw.arg == "dtype":
        got: Any = _static_type(item)
        want: Any = cls._wp_scalar_type_
    elif kw.arg == "shape":
        parts = item.obj if isinstance(item, PyObj) and isinstance(item.obj, tuple) else (item,)
        got = tuple(p.const if isinstance(p, wir.Value) and isinstance(p.const, int) else None for p in parts)
        want = tuple(cls._shape_)
    else:
        got = item.const if isinstance(item, wir.Value) and isinstance(item.const, int) else None
        want = cls._length_
    if got != want:
        shown = type_repr(got) if kw.arg == "dtype" and got is not None else got
        raise builder.error(
            f"{name}() got {kw.arg}={shown if got is not None else ast.unparse(kw.value)}, "
            f"but the type's {kw.arg} is {type_repr(want) if kw.arg == 'dtype' else want}",
            WarpCodegenTypeError,
            kw.value,
        )


def _static_type(item: Any) -> Any:
    """The scalar type a kernel expression names (``wp.float64``, ``float``), else None."""
    if not isinstance(item, PyObj):
        return None
    obj = item.obj
    if isinstance(obj, BuiltinName):  # wp.float64 met as the name of its conversion builtin
        obj = obj.python_object() or obj
    t = canonical_type(obj)
    return t if is_scalar_type(t) else None


def _construct_transform(builder: Any, cls: type[CompositeBase], node: ast.Call) -> wir.Value:
    """``wp.transform(p, q)``, ``wp.transform(p=..., q=...)`` (q defaults to the identity rotation),
    ``wp.transform()`` (zeros, as NVIDIA Warp's kernels give), a fill value, a copy of the same
    type or 7 components."""
    scalar = cls._wp_scalar_type_
    args = [builder.value(a) for a in node.args]
    named: dict[str, wir.Value] = {}
    for kw in node.keywords:
        if kw.arg not in ("p", "q"):
            raise builder.error(
                f"{type_repr(cls)}() got an unexpected keyword argument '{kw.arg}'",
                WarpCodegenTypeError,
                node,
            )
        named[kw.arg] = builder.value(kw.value)
    if named:
        if len(args) + len(named) > 2 or (args and "p" in named):
            raise builder.error(
                f"{type_repr(cls)}() got multiple values for 'p' or 'q'", WarpCodegenTypeError, node
            )
        if args:
            named["p"] = args[0]
        p = named.get("p") or builder.const((0, 0, 0), vector(3, scalar))
        q = named.get("q") or builder.const((0, 0, 0, 1), quaternion(scalar))
        return build(builder, cls, [p, q], node)
    if len(args) == 1 and is_composite(args[0].type) and args[0].type._wp_kind_ == "transform":
        src = args[0].type._wp_scalar_type_
        if src is not scalar:
            raise builder.error(
                "copy constructing a transform requires matching source and target dtypes, "
                f"got `{type_repr(src)}` and `{type_repr(scalar)}`",
                WarpCodegenTypeError, node)
    if len(args) not in (0, 1, 2, 7) or (len(args) == 2 and not all(is_composite(a.type) for a in args)):
        raise builder.error(
            f"incompatible number of values given ({len(args)}) when constructing a transform; "
            "expected 0, 1, or 7",
            WarpCodegenTypeError, node)
    return build(builder, cls, args, node)


def build(builder: Any, cls: type[CompositeBase], args: list[wir.Value], node: ast.AST) -> wir.Value:
    """A value of composite type ``cls`` from constructor arguments (all forms); zeros without
    arguments (in kernels ``wp.transform()`` is zero, as in NVIDIA Warp; in Python scope it is the
    identity transform)."""
    scalar = cls._wp_scalar_type_
    count = math.prod(cls._shape_)
    if not args:
        return builder.const(tuple([0] * count), cls)
    if len(args) == 1 and is_composite(args[0].type):
        src = args[0].type
        if src is cls:
            return args[0]
        if src._shape_ != cls._shape_:
            raise builder.error(
                f"cannot convert {type_repr(src)} to {type_repr(cls)} (different shapes)"
                + _copy_mismatch_wording(src, cls),
                WarpCodegenTypeError,
                node,
            )
        return builder.emit("call", args, [cls], overload=CONVERT).result
    flat_count = sum(math.prod(a.type._shape_) if is_composite(a.type) else 1 for a in args)
    if len(args) == 1:
        value = _component(builder, args[0], scalar, cls, node, fill=True)
        if value.is_const:
            return builder.const(tuple([value.const] * count), cls)
        return builder.emit("call", [value], [cls], overload=FILL).result
    columns = _vector_columns(builder, cls, args, node)
    if columns is not None:
        return columns
    if flat_count != count:
        shape = f"shape {cls._shape_}" if len(cls._shape_) == 2 else f"length {count}"
        raise builder.error(
            f"{type_repr(cls)} has {count} components: incompatible number of values given ({flat_count}) "
            f"when constructing a {_what(cls)} of {shape}",
            WarpCodegenTypeError,
            node,
        )
    values = []
    for a in args:
        if is_composite(a.type):
            if a.type._wp_scalar_type_ is not scalar:
                raise builder.error(
                    f"{type_repr(cls)} needs {type_repr(scalar)} components, got {type_repr(a.type)}",
                    WarpCodegenTypeError, node,
                )
            values.append(a)
        else:
            values.append(_component(builder, a, scalar, cls, node))
    if all(v.is_const and not is_composite(v.type) for v in values):
        return builder.const(tuple(v.const for v in values), cls)
    return builder.emit("call", values, [cls], overload=CONSTRUCT).result


def _vector_columns(
    builder: Any, cls: type[CompositeBase], args: list[wir.Value], node: ast.AST
) -> wir.Value | None:
    """``wp.mat33(c0, c1, c2)`` with vector arguments in a kernel: the vectors are the *columns*.

    This is what NVIDIA Warp's kernel constructor does (its Python-scope constructor takes rows;
    Warp deprecated both forms in favour of ``wp.matrix_from_cols``/``wp.matrix_from_rows``).
    """
    if getattr(cls, "_wp_kind_", "") != "matrix" or not all(
        getattr(a.type, "_wp_kind_", "") == "vector" for a in args
    ):
        return None
    rows, cols = cls._shape_
    if len(args) != cols or any(a.type._shape_ != (rows,) for a in args):
        return None
    warnings.warn(
        f"constructing {type_repr(cls)} from vectors in a kernel takes them as columns (as NVIDIA Warp "
        "does; in Python scope they are rows); use wp.matrix_from_cols() or wp.matrix_from_rows() to say "
        f"which you mean (at {builder.loc(node)})",
        DeprecationWarning,
        stacklevel=2,
    )
    components = [
        getitem(builder, args[c], [builder.const(r, int32)], node) for r in range(rows) for c in range(cols)
    ]
    return builder.emit("call", components, [cls], overload=CONSTRUCT).result


def _copy_mismatch_wording(src: Any, cls: Any) -> str:
    """NVIDIA Warp's wording for a copy construction between sizes of one kind: it names the
    constructed type's size first ("incompatible vector of length 3 given when copy constructing
    a vector of length 2" for ``wp.vec3(wp.vec2(...))``); empty across kinds."""
    if src._wp_kind_ != cls._wp_kind_ or cls._wp_kind_ not in ("vector", "matrix"):
        return ""
    if cls._wp_kind_ == "matrix":
        return (f": incompatible matrix of shape {tuple(cls._shape_)} given when copy constructing "
                f"a matrix of shape {tuple(src._shape_)}")
    return (f": incompatible vector of length {cls._shape_[0]} given when copy constructing "
            f"a vector of length {src._shape_[0]}")


def _what(cls: Any) -> str:
    return {"matrix": "matrix", "quaternion": "quaternion", "transform": "transformation"}.get(
        cls._wp_kind_, "vector"
    )


def _component(
    builder: Any, value: wir.Value, scalar: Any, cls: type[CompositeBase], node: ast.AST, fill: bool = False
) -> wir.Value:
    if value.weak:
        value = builder.coerce(value, scalar) if _family_ok(value.type, scalar) else value
    elif _named_constant(value) and value.type is not scalar and _family_ok(value.type, scalar):
        # a name bound to a literal (``x = 0.1``) converts from its Python value, as a literal does
        value = builder.const(_convert_scalar(value.const, scalar), scalar)
    if value.type is not scalar:
        role = f"the value used to fill this {_what(cls)} is" if fill else (
            f"all values used to initialize this {_what(cls)} are"
        )
        raise builder.error(
            f"{type_repr(cls)} got a {type_repr(value.type)} component (warp does not convert implicitly): "
            f"{role} expected to be of the type `{type_repr(scalar)}`",
            WarpCodegenTypeError,
            node,
        )
    return value


def _named_constant(value: wir.Value) -> bool:
    """A literal held by a name (``x = 0.1``: its type was fixed when it was bound)."""
    return value.literal and hasattr(value.type, "_kind_") and value.type._kind_ != "bool"


def _convert_scalar(value: Any, target: Any) -> Any:
    return float(value) if target._kind_ == "float" else int(value)


def _family_ok(literal: Any, target: Any) -> bool:
    kinds = {literal._kind_, target._kind_}
    return (
        kinds <= {"float"}
        or kinds <= {"int", "uint"}
        or (literal._kind_ == "int" and target._kind_ == "float")
    )


def getitem(builder: Any, value: wir.Value, indices: list[Any], node: ast.AST) -> wir.Value:
    """``v[i]``, ``m[i]``, ``m[i, j]``; with slices ``v[1:]``, ``m[:, j]``, ``m[1:, :2]``."""
    if any(isinstance(i, slice) for i in indices):
        return _get_slice(builder, value, indices, node)
    limit = 2 if value.type._wp_kind_ == "matrix" else 1
    if len(indices) > limit:
        raise builder.error(f"too many indices for {type_repr(value.type)}", WarpCodegenTypeError, node)
    _check_static(builder, value.type, indices, node)
    return builder.call_builtin("extract", [value, *indices], node).result


def setitem(builder: Any, value: wir.Value, indices: list[Any], new: wir.Value, node: ast.AST) -> wir.Value:
    """The updated copy for ``v[i] = x``, ``m[i, j] = x``, ``m[i] = row``; with slices
    ``v[1:3] = w``, ``m[:, j] = col``."""
    if any(isinstance(i, slice) for i in indices):
        return _set_slice(builder, value, indices, new, node)
    t = value.type
    _check_static(builder, t, indices, node)
    if t._wp_kind_ == "matrix" and len(indices) == 1:
        row = vector(t._shape_[1], t._wp_scalar_type_)
        if new.type is not row:
            raise builder.error(
                f"a row of {type_repr(t)} is {type_repr(row)}, got {type_repr(new.type)}",
                WarpCodegenTypeError,
                node,
            )
    elif is_scalar_type(new.type) or new.weak:
        new = _component(builder, new, t._wp_scalar_type_, t, node)
    return builder.call_builtin("assign_copy", [value, *indices, new], node).result


def _check_static(builder: Any, t: Any, indices: list[wir.Value], node: ast.AST, axis: int = 0) -> None:
    """Constant indices must be in range; negative ones are replaced by their positive form."""
    for k, (idx, dim) in enumerate(zip(indices, t._shape_)):
        if idx.is_const and not -dim <= idx.const < dim:
            name = type_repr(getattr(t, "type", t))
            raise builder.error(
                f"index {idx.const} is out of range for dimension {k + axis} of {name} (size {dim})",
                IndexError_, node,
            )
        if idx.is_const and idx.const < 0:
            indices[k] = builder.const(idx.const + dim, idx.type)


def _selection(builder: Any, t: Any, indices: list[Any], node: ast.AST) -> list[Any]:
    """Per dimension of ``t``: the list of positions a slice selects, or one integer index value."""
    dims = t._shape_
    if len(indices) > len(dims):
        raise builder.error(f"too many indices for {type_repr(t)}", WarpCodegenTypeError, node)
    indices = indices + [slice(None)] * (len(dims) - len(indices))
    selection: list[Any] = []
    for k, (idx, dim) in enumerate(zip(indices, dims)):
        if not isinstance(idx, slice):
            one = [idx]
            _check_static(builder, _Axis(t, dim), one, node, axis=k)
            selection.append(one[0])
            continue
        selection.append(list(range(*idx.indices(dim))))  # may be empty: a zero-length result
    return selection


class _Axis:
    """One dimension of composite type ``t``, for :func:`_check_static`."""

    def __init__(self, t: Any, dim: int):
        self.type = t
        self._shape_ = (dim,)


def _sliced_type(t: Any, selection: list[Any]) -> Any:
    """The vector or matrix type of the components ``selection`` keeps of composite type ``t``."""
    kept = [len(s) for s in selection if isinstance(s, list)]
    scalar = t._wp_scalar_type_
    if len(kept) == 2 and 0 in kept:
        kept = [0, 0]  # an empty matrix slice is the (0, 0) matrix, as in NVIDIA Warp
    return vector(kept[0], scalar) if len(kept) == 1 else matrix((kept[0], kept[1]), scalar)


def _positions(builder: Any, selection: list[Any]) -> list[list[wir.Value]]:
    """Index lists of the selected components, row-major over the sliced dimensions."""
    combos: list[list[wir.Value]] = [[]]
    for s in selection:
        options = [builder.const(k, int32) for k in s] if isinstance(s, list) else [s]
        combos = [c + [o] for c in combos for o in options]
    return combos


def _is_whole_row(t: Any, selection: list[Any]) -> bool:
    return (t._wp_kind_ == "matrix" and not isinstance(selection[0], list)
            and selection[1] == list(range(t._shape_[1])))


def _get_slice(builder: Any, value: wir.Value, indices: list[Any], node: ast.AST) -> wir.Value:
    t = value.type
    selection = _selection(builder, t, indices, node)
    if _is_whole_row(t, selection):
        return builder.call_builtin("extract", [value, selection[0]], node).result
    positions = _positions(builder, selection)
    parts = [builder.call_builtin("extract", [value, *p], node).result for p in positions]
    return build(builder, _sliced_type(t, selection), parts, node)


def _set_slice(
    builder: Any, value: wir.Value, indices: list[Any], new: wir.Value, node: ast.AST
) -> wir.Value:
    t = value.type
    selection = _selection(builder, t, indices, node)
    want = _sliced_type(t, selection)
    fits = is_composite(new.type) and new.type._shape_ == want._shape_
    if not fits or new.type._wp_scalar_type_ is not want._wp_scalar_type_:
        scalar = type_repr(want._wp_scalar_type_)
        if len(want._shape_) == 1:
            kind, size, sized = "vector", f"length {want._shape_[0]}", f"of length {want._shape_[0]}"
        else:
            kind, size, sized = "matrix", f"shape {want._shape_}", f"of shape {want._shape_}"
        same_kind = getattr(new.type, "_wp_kind_", "") == kind
        expected = (
            f"The provided {kind} is expected to be {sized} with dtype {scalar}."
            if same_kind
            else f"The provided value is expected to be a {kind} of {size}, with dtype {scalar}."
        )
        if same_kind and kind == "vector" and new.type._wp_scalar_type_ is want._wp_scalar_type_:
            expected = (
                f"The length of the provided vector ({new.type._shape_[0]}) isn't compatible with the "
                f"given slice (expected {want._shape_[0]})."
            )
        raise builder.error(
            f"cannot assign {type_repr(new.type)} to a slice of {type_repr(t)} holding {type_repr(want)}: "
            + expected,
            WarpCodegenValueError,
            node,
        )
    if _is_whole_row(t, selection):
        row = new if new.type is want else builder.emit("call", [new], [want], overload=CONVERT).result
        return builder.call_builtin("assign_copy", [value, selection[0], row], node).result
    paths = [[i] for i in range(want._shape_[0])] if len(want._shape_) == 1 else [
        [i, j] for i in range(want._shape_[0]) for j in range(want._shape_[1])]
    for position, path in zip(_positions(builder, selection), paths):
        part = builder.call_builtin("extract", [new, *(builder.const(k, int32) for k in path)], node).result
        value = builder.call_builtin("assign_copy", [value, *position, part], node).result
    return value


def iterate(builder: Any, value: wir.Value, node: ast.For) -> None:
    """``for x in v:`` over the components of a vector/quaternion/transform (rows of a matrix).

    Translated as ``for k in range(len(v)): x = v[k]`` over a hidden copy of ``v``, so the
    loop unrolls or stays a loop exactly as a ``range`` loop would (break/continue included).
    """
    hidden, counter = f"__iter_value_{id(node)}", f"__iter_index_{id(node)}"
    builder.assign_var(hidden, value)
    element = ast.Assign(
        targets=[node.target],
        value=ast.Subscript(
            value=ast.Name(hidden, ast.Load()), slice=ast.Name(counter, ast.Load()), ctx=ast.Load()
        ),
    )
    loop = ast.For(
        target=ast.Name(counter, ast.Store()),
        iter=ast.Call(
            func=ast.Name("range", ast.Load()), args=[ast.Constant(value.type._shape_[0])], keywords=[]
        ),
        body=[element, *node.body],
        orelse=[],
    )
    for new in (element, loop):
        ast.copy_location(new, node)
        ast.fix_missing_locations(new)
    builder.stmt_For(loop)


class IndexError_(WarpCodegenTypeError, IndexError):
    """A constant component index outside the type's shape."""


def getattr_(builder: Any, value: wir.Value, attr: str, node: ast.AST) -> Any:
    """``v.x`` ... ``v.w``; ``t.p``/``t.q`` of transforms; ``v.dtype`` (the scalar type),
    ``v.length`` of vectors and ``m.shape`` (compile-time values, as the type's attributes)."""
    t = value.type
    if attr == "dtype":
        return PyObj(t._wp_scalar_type_)
    if attr == "length" and len(t._shape_) == 1:
        return builder.const(t._shape_[0], int32)  # a compile-time int, as the type's own attribute
    if attr == "shape":
        return PyObj(tuple(t._shape_))
    if t._wp_kind_ == "transform" and attr in ("p", "q"):
        name = "transform_get_translation" if attr == "p" else "transform_get_rotation"
        return builder.call_builtin(name, [value], node).result
    if t._wp_kind_ != "matrix" and attr in _ATTR_INDEX and _ATTR_INDEX[attr] < t._shape_[0]:
        return builder.call_builtin("extract", [value, builder.const(_ATTR_INDEX[attr], int32)], node).result
    raise builder.error(
        f"`{attr}` is not an attribute of '{type_repr(t)}' values ({type_repr(t)} has no attribute '{attr}')",
        WarpCodegenAttributeError,
        node,
    )


def setattr_(builder: Any, value: wir.Value, attr: str, new: wir.Value, node: ast.AST) -> wir.Value:
    """The updated copy for ``v.x = ...``, ``t.p = ...``, ``t.q = ...``."""
    t = value.type
    if t._wp_kind_ == "transform" and attr in ("p", "q"):
        name = "transform_set_translation_copy" if attr == "p" else "transform_set_rotation_copy"
        return builder.call_builtin(name, [value, new], node).result
    if t._wp_kind_ != "matrix" and attr in _ATTR_INDEX and _ATTR_INDEX[attr] < t._shape_[0]:
        return setitem(builder, value, [builder.const(_ATTR_INDEX[attr], int32)], new, node)
    raise builder.error(
        f"cannot assign attribute '{attr}' of {type_repr(t)}", WarpCodegenAttributeError, node
    )


__all__ = ["CompositeBase", "build", "construct", "getattr_", "getitem", "setattr_", "setitem"]
