"""Array slices in kernels: ``a[1:5]``, ``a[::-2]``, ``a[i, 1:3]``, ``a[::2, j]`` as array views.

A subscript with slices lowers to one ``array_slice`` per sliced dimension (the view keeps its
dimensions: data moves to the first selected element, the shape becomes the slice's length as
Python computes it, the stride is multiplied by the step), then one ``array_select`` per integer
index, from the last dimension to the first (each drops its dimension). Both return views of the
same memory; their results are generally not contiguous, so a function using them is lowered with
strided addressing (:attr:`~warp.compiler.registry.Overload.strided_result`).
"""

from __future__ import annotations

import llvmlite.ir as ir

from warp.compiler.frontend.array_slicing import START_GIVEN, STOP_GIVEN
from warp.compiler.lowering import types as lt
from warp.compiler.lowering.context import LowerContext
from warp.compiler.registry import ArrayOf, BuiltinRegistry, TypeVar
from warp.core_builtins.arrays import _index_i64, _shape, _stride, _view_result
from warp.types.array_type import ArrayType
from warp.types.scalars import Int, int32

GROUP = "Utility"
T = TypeVar("T")



def _const_int(value: ir.Value, what: str) -> int:
    if not isinstance(value, ir.Constant):
        raise TypeError(f"array slicing: {what} must be a compile-time constant")
    return int(value.constant)


def _adjust(b: ir.IRBuilder, bound: ir.Value, length: ir.Value, negative_step: ir.Value) -> ir.Value:
    """A written slice bound clamped as Python does (``slice.indices``)."""
    zero = ir.Constant(lt.I64, 0)
    minus_one = ir.Constant(lt.I64, -1)
    wrapped = b.add(bound, length)
    low = b.select(negative_step, minus_one, zero)
    high = b.select(negative_step, b.sub(length, ir.Constant(lt.I64, 1)), length)
    from_end = b.select(b.icmp_signed("<", wrapped, zero), low, wrapped)
    return b.select(
        b.icmp_signed("<", bound, zero), from_end, b.select(b.icmp_signed(">=", bound, length), high, bound)
    )


def _moved(b: ir.IRBuilder, ptr: ir.Value, offset: ir.Value) -> ir.Value:
    """``ptr`` moved by ``offset`` bytes; a null pointer (a null array, no gradient) stays null."""
    null = b.icmp_unsigned("==", b.ptrtoint(ptr, lt.I64), ir.Constant(lt.I64, 0))
    return b.select(null, ptr, b.gep(ptr, [offset], source_etype=lt.I8))


def _view_at(b: ir.IRBuilder, arr: ir.Value, offset: ir.Value) -> ir.Value:
    """``arr`` with its data and gradient pointers moved by ``offset`` bytes."""
    view = b.insert_value(arr, _moved(b, b.extract_value(arr, 0), offset), 0)
    return b.insert_value(view, _moved(b, b.extract_value(arr, 1), offset), 1)


def lower_slice(ctx: LowerContext, args: list, types: list) -> ir.Value:
    """``arr`` with dimension ``dim`` restricted to ``start:stop:step`` (same number of dimensions).

    A zero step (only possible at run time; a literal zero is refused at compile time) gives an
    empty view instead of dividing by zero.
    """
    b = ctx.builder
    arr = args[0]
    dim = _const_int(args[1], "the sliced dimension")
    given = _const_int(args[5], "the written bounds")
    start, stop, step = (_index_i64(ctx, v, t) for v, t in zip(args[2:5], types[2:5]))
    zero = ir.Constant(lt.I64, 0)
    one = ir.Constant(lt.I64, 1)
    length = b.zext(_shape(ctx, arr, dim), lt.I64)
    negative = b.icmp_signed("<", step, zero)
    if given & START_GIVEN:
        start = _adjust(b, start, length, negative)
    else:
        start = b.select(negative, b.sub(length, one), zero)
    if given & STOP_GIVEN:
        stop = _adjust(b, stop, length, negative)
    else:
        stop = b.select(negative, ir.Constant(lt.I64, -1), length)
    is_zero = b.icmp_signed("==", step, zero)
    safe_step = b.select(is_zero, one, step)
    # length: ceil((stop - start) / step) when positive, else 0
    span = b.select(negative, b.sub(start, stop), b.sub(stop, start))
    magnitude = b.select(negative, b.neg(safe_step), safe_step)
    count = b.add(b.sdiv(b.sub(span, one), magnitude), one)
    count = b.select(b.icmp_signed(">", span, zero), count, zero)
    count = b.select(is_zero, zero, count)
    stride = _stride(ctx, arr, dim)
    view = _view_at(b, arr, b.mul(start, stride))
    view = b.insert_value(view, b.trunc(count, lt.I32), [2, dim])
    return b.insert_value(view, b.mul(stride, safe_step), [3, dim])


def lower_select(ctx: LowerContext, args: list, types: list) -> ir.Value:
    """``arr`` with dimension ``dim`` fixed at ``index`` (one dimension fewer); a negative index
    counts from the end."""
    b = ctx.builder
    arr, ndim = args[0], types[0].ndim
    dim = _const_int(args[1], "the indexed dimension")
    index = _index_i64(ctx, args[2], types[2])
    if types[2]._kind_ == "int":
        length = b.zext(_shape(ctx, arr, dim), lt.I64)
        index = b.select(b.icmp_signed("<", index, ir.Constant(lt.I64, 0)), b.add(index, length), index)
    offset = b.mul(index, _stride(ctx, arr, dim))
    view = _view_at(b, arr, offset)
    for k in range(dim, 4):
        src = k + 1
        shape = _shape(ctx, arr, src) if src < ndim else ir.Constant(lt.I32, 0)
        stride = _stride(ctx, arr, src) if src < ndim else ir.Constant(lt.I64, 0)
        view = b.insert_value(view, shape, [2, k])
        view = b.insert_value(view, stride, [3, k])
    return view


def _same_array(types: list) -> ArrayType:
    return ArrayType(types[0].dtype, types[0].ndim)


def register(registry: BuiltinRegistry) -> None:
    """Register ``array_slice`` and ``array_select`` for 1-4 dimensional arrays."""
    for ndim in range(1, 5):
        arr = ("arr", ArrayOf(T, ndim))
        registry.add(
            "array_slice",
            params=[arr, ("dim", int32), ("start", Int), ("stop", Int), ("step", Int), ("given", int32)],
            result=_same_array, lower=lower_slice, group=GROUP, export=False, strided_result=True,
            doc="View of arr with dimension dim restricted to start:stop:step (written a[start:stop:step]).",
        )
        if ndim > 1:
            registry.add(
                "array_select",
                params=[arr, ("dim", int32), ("index", Int)],
                result=_view_result(ndim - 1), lower=lower_select, group=GROUP, export=False,
                strided_result=True,
                doc="View of arr with dimension dim fixed at index (written a[:, i]).",
            )
