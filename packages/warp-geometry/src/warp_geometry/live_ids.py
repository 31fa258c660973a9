"""Debug-mode checks of object ids: a launch passing the id of a freed (or never created) Mesh,
Bvh, HashGrid or Volume to a geometry query is refused with a located error instead of crashing.

Every :class:`~warp_geometry.descriptors.Descriptor` registers its address (the object's id)
here while it lives. In debug mode (``wp.config.mode = "debug"``) the ``warp_check_launch``
hook looks, once per kernel, for geometry builtins whose ``id`` argument is a kernel parameter,
and checks the value passed for it at each launch. Ids computed in the kernel, read from arrays
or passed through user functions are not checked.
"""

from __future__ import annotations

import weakref
from typing import Any

from warp.compiler import ir
from warp.compiler.frontend.translator import build_kernel
from warp.types.scalars import uint64

#: id -> descriptor (its struct type says which kind of object it belongs to)
_live: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
#: kernel -> [(parameter index, struct type name, builtin name, source location)]
_uses: weakref.WeakKeyDictionary[Any, list[tuple[int, str, str, Any]]] = weakref.WeakKeyDictionary()

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


def _getter_uses(fn: ir.Function, tracked: dict[int, int], loc: Any, out: list, depth: int = 0) -> None:
    """Getter calls in ``fn`` on a ``tracked`` value (id -> kernel parameter index), through
    the functions it calls; ``loc`` is where the kernel's own call is (None: the getter's)."""
    for op in ir.walk(fn.body):
        if op.kind == "call" and op.attrs["overload"].name in _GETTERS and op.args:
            k = tracked.get(id(op.args[0]))
            if k is not None:
                struct_name = getattr(op.attrs["overload"].result, "__name__", "")
                out.append((k, struct_name, op.attrs["overload"].name, loc or op.loc))
        elif op.kind == "call_func" and depth < 8:
            callee = op.attrs.get("func")
            params = getattr(callee, "params", None)
            if params is None:
                continue
            inner = {id(p): tracked[id(a)] for a, p in zip(op.args, params) if id(a) in tracked}
            if inner:
                _getter_uses(callee, inner, loc or op.loc, out, depth + 1)


def id_parameters(kernel: Any) -> list[tuple[int, str, str, Any]]:
    """``(parameter index, descriptor struct name, getter, location)`` for each use of a kernel
    parameter as an object id (a geometry query or getter called on it; cached per kernel)."""
    cached = _uses.get(kernel)
    if cached is not None:
        return cached
    found: list[tuple[int, str, str, Any]] = []
    fn = None
    if any(t is uint64 for t in kernel.arg_types):  # ids are uint64 parameters
        try:
            fn = build_kernel(kernel)
        except Exception:  # noqa: BLE001 - a kernel that cannot be rebuilt here is not checked
            fn = None
    if fn is not None:
        tracked = {id(p): k for k, p in enumerate(fn.params) if p.type is uint64}
        _getter_uses(fn, tracked, None, found)
    _uses[kernel] = found
    return found


def check_launch(kernel: Any, args: Any) -> None:
    """``ValueError`` if an argument used as an object id is not the id of a live object of that kind."""
    for index, struct_name, builtin, loc in id_parameters(kernel):
        if index >= len(args):
            continue
        raw = getattr(args[index], "value", args[index])
        try:
            value = int(raw)
        except (TypeError, ValueError):
            continue
        descriptor = _live.get(value)
        if descriptor is not None and descriptor.struct_type.__name__ == struct_name:
            continue
        what = _CLASSES.get(struct_name, struct_name)
        name = kernel.arg_names[index]
        where = f" at {loc}" if loc is not None else ""
        text = f"\n    {loc.text.strip()}" if loc is not None and getattr(loc, "text", "") else ""
        raise ValueError(
            f"kernel '{kernel.name}', argument '{name}' = {value} is not the id of a live {what} "
            f"(freed, or not a {what} id; debug-mode check of {builtin}){where}{text}"
        )
