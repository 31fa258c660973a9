"""Array access in kernels: loads, stores, row views, shapes and atomic updates."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import llvmlite.ir as ir

from warp.compiler import abi
from warp.compiler.lowering import bfloat16 as bf
from warp.compiler.lowering import types as lt
from warp.compiler.lowering.context import LowerContext, Lowering
from warp.compiler.registry import ArrayOf, BuiltinRegistry, TypeVar
from warp.types.array_type import ArrayType
from warp.types.composite_values import is_composite
from warp.types.scalars import bool as wp_bool
from warp.types.scalars import Int, bfloat16, float16, int32, non_atomic_types, type_repr, type_size_in_bytes
from warp.compiler import composite as lc

GROUP = "Utility"
T = TypeVar("T")


def _index_i64(ctx: LowerContext, value: ir.Value, t: Any) -> ir.Value:
    if value.type.width == 64:
        return value
    return ctx.builder.sext(value, lt.I64) if t._kind_ == "int" else ctx.builder.zext(value, lt.I64)


def _from_end(ctx: LowerContext, arr: ir.Value, k: int, index: ir.Value, t: Any) -> ir.Value:
    """A negative index of dimension ``k`` counted from the end (``a[-1]`` is the last element).

    Unsigned indices and non-negative constants pass unchanged; an index still negative after
    adding the size stays negative, which the debug-mode bounds check reports.
    """
    if t._kind_ != "int" or (isinstance(index, ir.Constant) and _signed_constant(index) >= 0):
        return index
    b = ctx.builder
    negative = b.icmp_signed("<", index, ir.Constant(lt.I64, 0))
    return b.select(negative, b.add(index, b.zext(_shape(ctx, arr, k), lt.I64)), index)


def _signed_constant(value: ir.Constant) -> int:
    """The signed value of an integer constant (llvmlite may hold an i64 as its unsigned bits)."""
    bits = value.type.width
    v = int(value.constant) & ((1 << bits) - 1)
    return v - (1 << bits) if v >> (bits - 1) else v


def _resolve_indices(
    ctx: LowerContext, arr: ir.Value, indices: list[ir.Value], itypes: list[Any]
) -> tuple[list, list]:
    """(indices as written, widened to i64; the same with negative ones counted from the end)."""
    written = [_index_i64(ctx, v, t) for v, t in zip(indices, itypes)]
    return written, [_from_end(ctx, arr, k, i, t) for k, (i, t) in enumerate(zip(written, itypes))]


def _shape(ctx: LowerContext, arr: ir.Value, k: int) -> ir.Value:
    return ctx.builder.extract_value(arr, [2, k])


def _stride(ctx: LowerContext, arr: ir.Value, k: int) -> ir.Value:
    return ctx.builder.extract_value(arr, [3, k])


def _check_bounds(
    ctx: LowerContext, arr: ir.Value, idx: list[ir.Value], ptr: ir.Value, written: list[ir.Value]
) -> ir.Value:
    """Debug mode: record an out-of-range index in the error record and redirect the access.

    ``idx`` are the resolved indices (negative ones already counted from the end), checked
    against the shape; ``written`` the indices as the kernel wrote them, which are reported.
    """
    b = ctx.builder
    ok = ir.Constant(lt.I1, 1)
    for k, i in enumerate(idx):
        dim = b.zext(_shape(ctx, arr, k), lt.I64)
        ok = b.and_(ok, b.icmp_unsigned("<", i, dim))
    op = ctx.current_op
    site = len(ctx.state.sites)
    ctx.state.sites.append({
        "function": ctx.function_name,
        "file": op.loc.file if op and op.loc else "",
        "line": op.loc.line if op and op.loc else 0,
        "text": op.loc.text.strip() if op and op.loc else "",
        "array": (op.args[0].name if op and op.args and op.args[0].name else "array"),
    })
    with b.if_then(b.not_(ok), likely=False):
        rec = ctx.error_record()
        with b.if_then(b.icmp_unsigned("!=", b.ptrtoint(rec, lt.I64), ir.Constant(lt.I64, 0))):
            flag = b.gep(rec, [ir.Constant(lt.I64, abi.ERROR_FLAG_OFFSET)], source_etype=lt.I8)
            res = b.cmpxchg(flag, ir.Constant(lt.I32, 0), ir.Constant(lt.I32, 1), "monotonic", "monotonic")
            with b.if_then(b.extract_value(res, 1)):
                def field(offset: int) -> ir.Value:
                    return b.gep(rec, [ir.Constant(lt.I64, offset)], source_etype=lt.I8)

                b.store(ir.Constant(lt.I32, site), field(abi.ERROR_SITE_OFFSET))
                b.store(ir.Constant(lt.I32, len(idx)), field(abi.ERROR_NDIM_OFFSET))
                for k, i in enumerate(written):
                    b.store(i, field(abi.ERROR_INDEX_OFFSET + 8 * k))
                    b.store(b.zext(_shape(ctx, arr, k), lt.I64), field(abi.ERROR_SHAPE_OFFSET + 8 * k))
    return b.select(ok, ptr, ctx.scratch())


def element_pointer(
    ctx: LowerContext, arr: ir.Value, atype: ArrayType, indices: list[ir.Value], itypes: list[Any]
) -> ir.Value:
    """Address of ``arr[indices]`` (all dimensions indexed)."""
    b = ctx.builder
    written, idx = _resolve_indices(ctx, arr, indices, itypes)
    data = b.extract_value(arr, 0)
    if ctx.contiguous:
        flat = idx[0]
        for k in range(1, len(idx)):
            flat = b.add(
                b.mul(flat, b.zext(_shape(ctx, arr, k), lt.I64), flags=["nsw"]), idx[k], flags=["nsw"]
            )
        ptr = b.gep(data, [flat], source_etype=lt.storage_type(atype.dtype), inbounds=True)
    else:
        offset = b.mul(idx[0], _stride(ctx, arr, 0), flags=["nsw"])
        for k in range(1, len(idx)):
            offset = b.add(offset, b.mul(idx[k], _stride(ctx, arr, k), flags=["nsw"]), flags=["nsw"])
        ptr = b.gep(data, [offset], source_etype=lt.I8, inbounds=True)
    if ctx.debug:
        ptr = _check_bounds(ctx, arr, idx, ptr, written)
    return ptr


def lower_load(ctx: LowerContext, args: list, types: list) -> ir.Value:
    atype = types[0]
    ptr = element_pointer(ctx, args[0], atype, args[1:], types[1:])
    raw = ctx.builder.load(ptr, typ=lt.storage_type(atype.dtype), align=lt.alignment(atype.dtype))
    return lt.from_storage(ctx.builder, atype.dtype, raw)


def lower_store(ctx: LowerContext, args: list, types: list) -> None:
    atype = types[0]
    ptr = element_pointer(ctx, args[0], atype, args[1:-1], types[1:-1])
    if bf.contains_bfloat16(atype.dtype):  # a bfloat16 SSA value is exact: keep its top half
        value = bf.map_components(ctx.builder, args[-1], bf.exact_bits)
    else:
        value = lt.to_storage(ctx.builder, atype.dtype, args[-1])
    ctx.builder.store(value, ptr, align=lt.alignment(atype.dtype))


def lower_view(ctx: LowerContext, args: list, types: list) -> ir.Value:
    """A sub-array ``arr[i]`` / ``arr[i, j]`` with the leading dimensions fixed."""
    b = ctx.builder
    arr, atype = args[0], types[0]
    j = len(args) - 1
    written, idx = _resolve_indices(ctx, arr, args[1:], types[1:])
    data = b.extract_value(arr, 0)
    if ctx.contiguous:
        offset = idx[0]
        for k in range(1, atype.ndim):
            offset = b.mul(offset, b.zext(_shape(ctx, arr, k), lt.I64))
            if k < j:
                offset = b.add(offset, idx[k])
        elem = ir.Constant(lt.I64, type_size_in_bytes(atype.dtype))
        offset = b.mul(offset, elem)
    else:
        offset = ir.Constant(lt.I64, 0)
        for k in range(j):
            offset = b.add(offset, b.mul(idx[k], _stride(ctx, arr, k)))
    if ctx.debug:
        data_new = _check_bounds(ctx, arr, idx[:j], b.gep(data, [offset], source_etype=lt.I8), written[:j])
    else:
        data_new = b.gep(data, [offset], source_etype=lt.I8)
    view = ir.Constant(lt.ARRAY_STRUCT, ir.Undefined)
    view = b.insert_value(view, data_new, 0)
    view = b.insert_value(view, ir.Constant(lt.PTR, None), 1)
    for k in range(4):
        src = k + j
        shape = _shape(ctx, arr, src) if src < 4 else ir.Constant(lt.I32, 0)
        stride = _stride(ctx, arr, src) if src < 4 else ir.Constant(lt.I64, 0)
        view = b.insert_value(view, shape, [2, k])
        view = b.insert_value(view, stride, [3, k])
    return view


def lower_shape(ctx: LowerContext, args: list, types: list) -> ir.Value:
    arr, k = args
    if isinstance(k, ir.Constant):
        return _shape(ctx, arr, int(k.constant))
    slot = ctx.alloca(ir.ArrayType(lt.I32, 4))
    ctx.builder.store(ctx.builder.extract_value(arr, 2), slot)
    ptr = ctx.builder.gep(slot, [ir.Constant(lt.I64, 0), k], source_etype=ir.ArrayType(lt.I32, 4))
    return ctx.builder.load(ptr)


#: atomicrmw operation of each kind for (float, signed, unsigned) elements (bitwise: integers only)
_RMW: dict[str, tuple[str | None, str, str]] = {
    "add": ("fadd", "add", "add"),
    "sub": ("fsub", "sub", "sub"),
    "min": ("fmin", "min", "umin"),
    "max": ("fmax", "max", "umax"),
    "exch": ("xchg", "xchg", "xchg"),
    "and": (None, "and", "and"),
    "or": (None, "or", "or"),
    "xor": (None, "xor", "xor"),
}


def _atomic(kind: str) -> Lowering:
    def lower(ctx: LowerContext, args: list, types: list) -> ir.Value:
        atype = types[0]
        ptr = element_pointer(ctx, args[0], atype, args[1:-1], types[1:-1])
        dtype = atype.dtype
        if is_composite(dtype):
            return _atomic_components(ctx, kind, ptr, dtype, args[-1])
        if dtype is bfloat16:
            return atomic_bfloat16(ctx, kind, ptr, args[-1])
        return ctx.builder.atomic_rmw(_rmw_op(kind, dtype), ptr, args[-1], "monotonic")

    return lower


def _rmw_op(kind: str, scalar: Any) -> str:
    fop, sop, uop = _RMW[kind]
    if scalar._kind_ == "float":
        assert fop is not None  # the bitwise atomics are registered for integers only
        return fop
    return sop if scalar._kind_ == "int" else uop


def _atomic_components(ctx: LowerContext, kind: str, ptr: ir.Value, dtype: Any, value: ir.Value) -> ir.Value:
    """Atomic update of a vector/matrix element, one atomic operation per component (as in
    NVIDIA Warp: each component is updated atomically, not the element as a whole); returns the
    old element assembled from the components' old values."""
    b = ctx.builder
    scalar = dtype._wp_scalar_type_
    op = _rmw_op(kind, scalar)
    zero = ir.Constant(lt.I32, 0)
    old = []
    for path in lc.component_paths(dtype):
        comp = b.gep(
            ptr, [zero, *(ir.Constant(lt.I32, k) for k in path)], source_etype=lt.storage_type(dtype)
        )
        part = _known_component(value, path)
        if part is not None and _is_identity(kind, scalar, part):
            # a[i].x += v adds -0.0 to the other components: x + -0.0 == x exactly, so skip them
            raw = b.load(comp, typ=lt.storage_type(scalar))
            old.append(lt.from_storage(b, scalar, raw))
            continue
        part = part if part is not None else b.extract_value(value, path)
        if scalar is bfloat16:
            old.append(atomic_bfloat16(ctx, kind, comp, part))
            continue
        old.append(b.atomic_rmw(op, comp, part, "monotonic"))
    return lc.assemble(b, dtype, old)


def atomic_bfloat16(ctx: LowerContext, kind: str, ptr: ir.Value, value: ir.Value) -> ir.Value:
    """Atomic update of a 16-bit bfloat16 in memory by a compare-and-swap loop: the new value is
    computed in float32 from the current one and rounded to bfloat16 (as every bfloat16
    operation); min/max ignore a NaN operand as the float versions do. Returns the old value."""
    b = ctx.builder
    start = b.load_atomic(ptr, "monotonic", 2, typ=bf.I16)
    entry = b.block
    loop = b.append_basic_block("bf16_atomic")
    done = b.append_basic_block("bf16_atomic_done")
    b.branch(loop)
    b.position_at_end(loop)
    current = b.phi(bf.I16)
    current.add_incoming(start, entry)
    old = bf.from_bits(b, current)
    if kind == "add":
        new = b.fadd(old, value)
    elif kind == "sub":
        new = b.fsub(old, value)
    elif kind in ("min", "max"):
        better = b.fcmp_ordered("<" if kind == "min" else ">", value, old)
        new = b.select(b.or_(better, b.fcmp_unordered("uno", old, old)), value, old)
    else:  # exch
        new = value
    pair = b.cmpxchg(ptr, current, bf.to_bits(b, new), "monotonic", "monotonic")
    current.add_incoming(b.extract_value(pair, 0), b.block)
    b.cbranch(b.extract_value(pair, 1), done, loop)
    b.position_at_end(done)
    return old


def _known_component(agg: ir.Value, path: list[int]) -> ir.Value | None:
    """Component ``path`` of an aggregate built by constants and ``insertvalue`` chains, without
    emitting code (None when it cannot be seen statically)."""
    while True:
        if isinstance(agg, ir.Constant):
            value = agg
            for k in path:
                if not isinstance(value.constant, (list, tuple)):
                    return None
                value = value.constant[k]
            return value
        if not isinstance(agg, ir.InsertValue):
            return None
        where = list(agg.indices)
        if where == path[: len(where)]:
            inner = path[len(where):]
            return agg.value if not inner else _known_component(agg.value, inner)
        if path == where[: len(path)]:
            return None  # the component is itself partly overwritten
        agg = agg.aggregate


def _is_identity(kind: str, scalar: Any, part: ir.Value) -> bool:
    """True when updating with ``part`` leaves every value unchanged (``x + -0.0``, ``x - 0.0``,
    ``x | 0``, ``x ^ 0``, ``x & ~0``)."""
    if not isinstance(part, ir.Constant) or kind not in ("add", "sub", "and", "or", "xor"):
        return False
    c = part.constant
    if scalar._kind_ == "float":
        return isinstance(c, float) and c == 0.0 and (math.copysign(1.0, c) < 0) == (kind == "add")
    if not isinstance(c, int):
        return False
    if kind == "and":
        mask = (1 << scalar._bits_) - 1
        return c & mask == mask
    return c == 0


def lower_cas(ctx: LowerContext, args: list, types: list) -> ir.Value:
    atype = types[0]
    ptr = element_pointer(ctx, args[0], atype, args[1:-2], types[1:-2])
    compare, value = args[-2], args[-1]
    b = ctx.builder
    if atype.dtype is bfloat16:
        res = b.cmpxchg(ptr, bf.to_bits(b, compare), bf.to_bits(b, value), "monotonic", "monotonic")
        return bf.from_bits(b, b.extract_value(res, 0))
    if atype.dtype._kind_ == "float":
        ity = ir.IntType(atype.dtype._bits_)
        res = b.cmpxchg(ptr, b.bitcast(compare, ity), b.bitcast(value, ity), "monotonic", "monotonic")
        return b.bitcast(b.extract_value(res, 0), compare.type)
    return b.extract_value(b.cmpxchg(ptr, compare, value, "monotonic", "monotonic"), 0)


class _AtomicElement:
    """Element types atomics support: 32/64-bit ints and floats, float16, bfloat16 (ints only if
    ``ints_only``); with ``composites``, also vectors/matrices/quaternions/transforms of those
    (updated component by component); scalar types in ``exclude`` are refused as well."""

    def __init__(self, ints_only: bool = False, composites: bool = False, exclude: tuple[Any, ...] = ()):
        self.kinds = ("int", "uint") if ints_only else ("int", "uint", "float")
        self.composites = composites
        self.exclude = non_atomic_types + tuple(exclude)

    def match(self, actual: Any, bindings: dict[str, Any]) -> bool:
        if self.composites and is_composite(actual):
            actual = actual._wp_scalar_type_
        if getattr(actual, "_kind_", None) not in self.kinds:
            return False
        return actual not in self.exclude


def _explain_atomic(kind: str) -> Callable[[Sequence[Any]], str | None]:
    """The error of ``atomic_<kind>`` on an array whose element type atomics do not support."""
    bitwise = kind in ("and", "or", "xor")
    ordered = kind in ("min", "max")
    if bitwise:
        supported = "[u]int32 or [u]int64"
    elif ordered:
        supported = "[u]int32, [u]int64, bfloat16, float32, or float64"
    else:
        supported = "[u]int32, [u]int64, float16, bfloat16, float32, or float64"
    refused = non_atomic_types + ((float16,) if ordered else ())

    def explain(arg_types: Sequence[Any]) -> str | None:
        if not arg_types or not isinstance(arg_types[0], ArrayType):
            return None
        dtype = arg_types[0].dtype
        scalar = getattr(dtype, "_wp_scalar_type_", dtype)
        kinds = ("int", "uint") if bitwise else ("int", "uint", "float")
        if is_composite(dtype) and kind == "cas":
            return f"atomic_cas() operates on arrays of scalars, got an array of {type_repr(dtype)}"
        if getattr(scalar, "_kind_", None) in kinds and scalar not in refused:
            return None  # a supported element type: the other arguments are wrong
        return (
            f"atomic_{kind}() operations only work on arrays with {supported} as the underlying "
            f"scalar types, but got {type_repr(dtype)} (with scalar type {type_repr(scalar)})"
        )

    return explain


def _is_null_array(ctx: LowerContext, arr: ir.Value) -> ir.Value:
    """Whether array value ``arr`` has no data (its data pointer is null)."""
    b = ctx.builder
    return b.icmp_unsigned("==", b.ptrtoint(b.extract_value(arr, 0), lt.I64), ir.Constant(lt.I64, 0))


def _view_result(ndim: int) -> Callable[[Sequence[Any]], ArrayType]:
    """Result-type rule of a view: an array of the viewed array's dtype with ``ndim`` dimensions."""
    return lambda types: ArrayType(types[0].dtype, ndim)


def register(registry: BuiltinRegistry) -> None:
    """Register array builtins for 1-4 dimensional arrays."""
    atom = TypeVar("T", _AtomicElement())
    atom_any = TypeVar("T", _AtomicElement(composites=True))
    atom_int = TypeVar("T", _AtomicElement(ints_only=True, composites=True))
    # atomic_min/max have no float16 form (NVIDIA Warp refuses them too)
    atom_ordered = TypeVar("T", _AtomicElement(composites=True, exclude=(float16,)))
    for ndim in range(1, 5):
        arr = ("arr", ArrayOf(T, ndim))
        idx = [(n, Int) for n in "ijkl"[:ndim]]
        registry.add("array_load", params=[arr, *idx], result=T, lower=lower_load, group=GROUP,
                     doc="Read arr[i, j, ...] (written a[i] in kernels).")
        registry.add("array_store", params=[arr, *idx, ("value", T)], result=None, lower=lower_store,
                     group=GROUP, side_effects=True, doc="Write arr[i, j, ...] = value.")
        for j in range(1, ndim):
            registry.add("view", params=[arr, *idx[:j]], result=_view_result(ndim - j), lower=lower_view,
                         group=GROUP, doc="Sub-array with the leading indices fixed (same as a[i]).")
            registry.add(
                "array_view",
                params=[arr, *idx[:j]],
                result=_view_result(ndim - j),
                lower=lower_view,
                group=GROUP,
                doc="Sub-array with leading indices fixed (a[i] of a 2-d array).",
            )
        registry.add("array_shape", params=[arr, ("dim", int32)], result=int32, lower=lower_shape,
                     group=GROUP, doc="Size of dimension dim of an array (a.shape[dim]).")
        aarr = ("arr", ArrayOf(atom, ndim))
        carr = ("arr", ArrayOf(atom_any, ndim))
        oarr = ("arr", ArrayOf(atom_ordered, ndim))
        for kind in ("add", "sub", "min", "max", "exch"):
            elem, elem_arr = (atom_ordered, oarr) if kind in ("min", "max") else (atom_any, carr)
            registry.add(f"atomic_{kind}", params=[elem_arr, *idx, ("value", elem)], result=elem,
                         lower=_atomic(kind), group=GROUP, side_effects=True,
                         differentiable=kind in ("add", "sub", "min", "max"),
                         doc=f"Atomically {kind} value into arr[i, ...] and return the old value "
                             "(vectors and matrices: each component atomically).")
        iarr = ("arr", ArrayOf(atom_int, ndim))
        for kind in ("and", "or", "xor"):
            registry.add(f"atomic_{kind}", params=[iarr, *idx, ("value", atom_int)], result=atom_int,
                         lower=_atomic(kind), group=GROUP, side_effects=True, differentiable=False,
                         doc=f"Atomically bitwise-{kind} value into arr[i, ...] and return the old value.")
        registry.add("atomic_cas", params=[aarr, *idx, ("compare", atom), ("value", atom)], result=atom,
                     lower=lower_cas, group=GROUP, side_effects=True, differentiable=False,
                     doc="Atomically replace arr[i, ...] with value if it equals compare; "
                         "return the old value.")
    for kind in ("add", "sub", "min", "max", "exch", "and", "or", "xor", "cas"):
        registry.explain(f"atomic_{kind}", _explain_atomic(kind))
    registry.add("len", params=[("a", ArrayOf(T))], result=int32, group=GROUP,
                 lower=lambda ctx, args, types: _shape(ctx, args[0], 0),
                 doc="Size of the first dimension of an array.")
    registry.add("bool", params=[("a", ArrayOf(T))], result=wp_bool, group=GROUP,
                 lower=lambda ctx, args, types: ctx.builder.not_(_is_null_array(ctx, args[0])),
                 doc="True unless the array is null (an array argument passed as None); ``if a:``.")
    registry.add("unot", params=[("a", ArrayOf(T))], result=wp_bool, group=GROUP,
                 lower=lambda ctx, args, types: _is_null_array(ctx, args[0]),
                 doc="True if the array is null (an array argument passed as None); ``not a``.")
