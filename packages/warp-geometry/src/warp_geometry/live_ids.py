"""Debug-mode checks of object ids: a launch passing the id of a freed (or never created) Mesh,
Bvh, HashGrid or Volume to a geometry query is refused with a located error instead of crashing.

Every :class:`~warp_geometry.descriptors.Descriptor` registers its address (the object's id)
here while it lives. In debug mode (``wp.config.mode = "debug"``) the ``warp_check_launch``
hook looks, once per kernel, for geometry builtins whose ``id`` argument is a kernel parameter,
and checks the value passed for it at each launch: the argument itself, a field of a struct
argument, or every element of a ``uint64`` array argument (a host copy of it: debug mode only),
also through the user functions they are passed to. Ids computed in the kernel (arithmetic on
ids, values from arrays of structs) are not checked.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from warp.extending import kernel_ir, ir, uint64

#: id -> descriptor (its struct type says which kind of object it belongs to)
_live: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
#: kernel -> its uses of ids (:data:`Use`)
_uses: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()

#: descriptor struct name -> the Python class users know
_CLASSES = {
    "MeshData": "wp.Mesh",
    "HashGridData": "wp.HashGrid",
    "VolumeData": "wp.Volume",
    "BvhData": "wp.Bvh",
}
#: the getter builtins (``descriptors.register_getter``) turning an id into its descriptor
_GETTERS = {"mesh_get", "hash_grid_get", "volume_get", "bvh_get"}


def register(descriptor: Any) -> None:
    """Record ``descriptor`` (whose address is an object's id) as live until it is collected."""
    _live[descriptor.address] = descriptor


#: where an id comes from: (kernel parameter index, steps), a step being a struct field name or
#: ``ELEMENTS`` (every element of an array)
Source = tuple[int, tuple[str, ...]]
#: the step "every element of the array" (not a valid field name)
ELEMENTS = "[]"
#: one use of an id: (source, descriptor struct name, getter builtin, source location)
Use = tuple[Source, str, str, Any]


def _derived(op: ir.Op, tracked: dict[int, Source]) -> Source | None:
    """The source of ``op``'s result when it reads a tracked struct's field or array's element."""
    if op.kind != "call" or not op.args or not op.results:
        return None
    source = tracked.get(id(op.args[0]))
    if source is None:
        return None
    name = op.attrs["overload"].name
    if name == "struct_get":
        fields = getattr(op.args[0].type, "_fields_", None)
        index = op.attrs.get("field")
        if fields is None or index is None:
            return None
        return source[0], (*source[1], fields[index][0])
    if name == "array_load" and getattr(op.args[0].type, "dtype", None) is not None:
        return source[0], (*source[1], ELEMENTS)
    return None


def _getter_uses(
    fn: ir.Function, tracked: dict[int, Source], loc: Any, out: list[Use], depth: int = 0
) -> None:
    """Getter calls in ``fn`` on a ``tracked`` value (value id -> where it comes from: a kernel
    parameter, a field of one, an element of an array parameter), through the functions it
    calls; ``loc`` is where the kernel's own call is (None: the getter's)."""
    tracked = dict(tracked)
    for op in ir.walk(fn.body):
        if op.kind == "call" and op.attrs["overload"].name in _GETTERS and op.args:
            source = tracked.get(id(op.args[0]))
            if source is not None:
                struct_name = getattr(op.attrs["overload"].result, "__name__", "")
                out.append((source, struct_name, op.attrs["overload"].name, loc or op.loc))
        elif op.kind == "call_func" and depth < 8:
            callee = op.attrs.get("func")
            params = getattr(callee, "params", None)
            if callee is None or params is None:
                continue
            inner = {id(p): tracked[id(a)] for a, p in zip(op.args, params) if id(a) in tracked}
            if inner:
                _getter_uses(callee, inner, loc or op.loc, out, depth + 1)
        else:
            derived = _derived(op, tracked)
            if derived is not None:
                tracked[id(op.results[0])] = derived


def id_parameters(kernel: Any) -> list[Use]:
    """Each use of a kernel argument (or a struct field or array element of one) as an object id
    (a geometry query or getter called on it), cached per kernel."""
    cached = _uses.get(kernel)
    if cached is not None:
        return cached
    found: list[Use] = []
    fn = None
    if any(_may_hold_ids(t) for t in kernel.arg_types):
        try:
            fn = kernel_ir(kernel)
        except Exception:  # noqa: BLE001 - a kernel that cannot be rebuilt here is not checked
            fn = None
    if fn is not None:
        tracked: dict[int, Source] = {
            id(p): (k, ()) for k, p in enumerate(fn.params) if _may_hold_ids(p.type)
        }
        _getter_uses(fn, tracked, None, found)
    _uses[kernel] = found
    return found


def _may_hold_ids(t: Any) -> bool:
    """``uint64`` values, arrays of them, and structs (whose fields may be either)."""
    return t is uint64 or getattr(t, "dtype", None) is uint64 or hasattr(t, "_fields_")


def _values(arg: Any, steps: tuple[str, ...]) -> list[tuple[str, int]]:
    """``(path suffix, id value)`` for every value ``steps`` lead to from the argument ``arg``
    (all elements of an array: a host copy, read in debug mode only)."""
    value = arg
    path = ""
    for k, step in enumerate(steps):
        if step == ELEMENTS:
            if k != len(steps) - 1 or not hasattr(value, "numpy"):
                return []  # ids inside arrays of structs are not followed
            flat = np.asarray(value.numpy()).reshape(-1)
            return [(f"{path}[{i}]", int(v)) for i, v in enumerate(flat) if int(v) != 0]
        value = getattr(value, step, None)
        if value is None:
            return []
        path += f".{step}"
    raw = getattr(value, "value", value)
    try:
        return [(path, int(raw))]
    except (TypeError, ValueError):
        return []


def check_launch(kernel: Any, args: Any) -> None:
    """``ValueError`` if a value used as an object id (an argument, a field of a struct argument,
    or an element of an array argument; 0 in an array means "none" and is skipped) is not the id
    of a live object of that kind."""
    for (index, steps), struct_name, builtin, loc in id_parameters(kernel):
        if index >= len(args):
            continue
        for path, value in _values(args[index], steps):
            descriptor = _live.get(value)
            if descriptor is not None and descriptor.struct_type.__name__ == struct_name:
                continue
            what = _CLASSES.get(struct_name, struct_name)
            name = kernel.arg_names[index] + path
            where = f" at {loc}" if loc is not None else ""
            line: str = getattr(loc, "text", "") if loc is not None else ""
            text = f"\n    {line.strip()}" if line else ""
            raise ValueError(
                f"kernel '{kernel.name}', argument '{name}' = {value} is not the id of a live {what} "
                f"(freed, or not a {what} id; debug-mode check of {builtin}){where}{text}"
            )
