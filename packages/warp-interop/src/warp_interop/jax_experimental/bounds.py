"""Launch dimensions against array shapes: which array dimensions a kernel indexes by ``wp.tid()``.

A kernel that reads or writes ``a[i]`` (``i`` from ``wp.tid()``) touches ``a`` up to the launch
dimension ``i`` runs over; with ``launch_dims`` larger than ``a`` it would read or write past its
end. The kernel's IR tells which array parameters are indexed that way (by a result of
``wp.tid()`` used unchanged as an index) in the straight-line code before any branch or loop;
:func:`check_launch_fits` refuses such a call before it runs. Accesses through computed
indices, or after a branch (``if i < a.shape[0]``, an early return), are not checked.
"""

from __future__ import annotations

from typing import Any, Sequence

from warp.extending import kernel_ir, ir

MAX_TID_EXTENT = 2**31 - 1
MAX_DIMS = 4

_ELEMENT_ACCESS = {"array_load", "array_store", "atomic_add", "atomic_sub", "atomic_min", "atomic_max",
                   "atomic_exch", "atomic_cas", "address", "view"}


def thread_indexed_dims(kernel: Any) -> dict[int, set[tuple[int, int]]]:
    """For each array parameter (by position): the pairs (array dimension, launch dimension) of
    its unconditional accesses indexed by a ``wp.tid()`` result (a single ``i = wp.tid()`` runs
    over launch dimension 0). Empty when the kernel cannot be analysed (generic kernels)."""
    try:
        fn = kernel_ir(kernel)
    except Exception:  # noqa: BLE001 - generic or not translatable here: nothing to check
        return {}
    coords: dict[int, int] = {}  # id of a tid result -> the launch dimension it runs over
    for op in ir.walk(fn.body):
        if op.kind == "call" and op.attrs["overload"].name == "tid":
            for k, r in enumerate(op.results):
                coords[id(r)] = k
    params = {id(p): n for n, p in enumerate(fn.params) if getattr(p.type, "is_array_type", False)}
    out: dict[int, set[tuple[int, int]]] = {}
    for op in fn.body.ops:
        if op.regions:  # accesses from here on may be guarded (if tid < n, an early return)
            break
        if op.kind != "call" or op.attrs["overload"].name not in _ELEMENT_ACCESS or not op.args:
            continue
        n = params.get(id(op.args[0]))
        if n is None:
            continue
        for pos, index in enumerate(op.args[1 : 1 + op.args[0].type.ndim]):
            coord = coords.get(id(index))
            if coord is not None:
                out.setdefault(n, set()).add((pos, coord))
    return out


def tid_launch_dims(kernel: Any) -> set[int]:
    """The launch dimensions that ``wp.tid()`` results of the kernel run over (a scalar
    ``wp.tid()``: dimension 0 and every other); empty when the kernel never calls ``wp.tid()``
    (after compile-time constant branches are folded) or cannot be analysed."""
    try:
        fn = kernel_ir(kernel)
    except Exception:  # noqa: BLE001 - generic or not translatable here: nothing to check
        return set()
    dims: set[int] = set()
    for op in ir.walk(fn.body):
        if op.kind == "call" and op.attrs["overload"].name == "tid":
            dims.update(range(len(op.results)) if len(op.results) > 1 else range(MAX_DIMS))
    return dims


def check_tid_extents(what: str, dims: Sequence[int], tid_dims: set[int]) -> None:
    """``ValueError`` if a launch dimension that ``wp.tid()`` runs over exceeds the int32 range of
    thread indices (NVIDIA Warp's wording)."""
    for k, n in enumerate(dims):
        if k in tid_dims and n > MAX_TID_EXTENT:
            raise ValueError(
                f"{what}: Warp cannot launch a kernel using wp.tid() with extent {n} in dimension {k} "
                f"(thread indices are int32: at most {MAX_TID_EXTENT})"
            )


def check_launch_fits(
    what: str, dims: Sequence[int], indexed: dict[int, set[tuple[int, int]]], names: Sequence[str],
    shapes: dict[int, Sequence[int]],
) -> None:
    """``ValueError`` if a launch of ``dims`` indexes an array (``shapes`` by parameter position,
    warp shapes) past its end through a ``wp.tid()`` result."""
    for n, pairs in sorted(indexed.items()):
        shape = shapes.get(n)
        if shape is None:
            continue
        for pos, k in sorted(pairs):
            if k < len(dims) and pos < len(shape) and dims[k] > shape[pos]:
                raise ValueError(
                    f"{what}: launch dimension {k} is {dims[k]} (launch_dims {tuple(dims)}) but argument "
                    f"'{names[n]}' has {shape[pos]} elements along its dimension {pos}, which the kernel "
                    f"indexes by wp.tid(): the launch would access it out of bounds"
                )
