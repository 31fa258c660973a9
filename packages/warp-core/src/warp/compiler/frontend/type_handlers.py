"""The kernel-language behaviour of types, keyed by kind: constructors, field access, indexing
and iteration as the frontend translates them.

The core kinds (:mod:`warp.types.kinds`: vectors, matrices, quaternions, transforms and
``@wp.struct`` types) are handled by this compiler's own code, listed in :data:`KIND_HANDLERS`;
the type classes hold no compiler code. A type may still bring its own ``_wp_<member>_`` hook
(:mod:`warp.types.protocol`): a plugin type of a new kind does, and so does a struct that adds a
behaviour (warp-geometry's query structs add ``_wp_iterate_``). The type's own hook wins.

Every lookup returns a callable with the signature of the protocol hook of that name, bound to
the type: ``call(builder, node)``, ``getattr(builder, value, attr, node)``,
``setattr(builder, value, attr, new, node)``, ``getitem(builder, value, indices, node)``,
``setitem(builder, value, indices, new, node)``, ``iterate(builder, value, for_node)``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Callable

from warp.compiler.frontend import composite as fc
from warp.compiler.frontend import structs as fs
from warp.types import kinds
from warp.types.composite import matrix, quaternion, transformation, vector

#: Members a kind may handle (the ``_wp_<member>_`` hooks of :mod:`warp.types.protocol`).
MEMBERS = ("call", "getattr", "setattr", "getitem", "setitem", "iterate")


@dataclass(frozen=True)
class KindHandlers:
    """The frontend's handlers for one kind; each takes the type first, then the hook's arguments."""

    call: Callable[[Any, Any, ast.Call], Any] | None = None
    getattr: Callable[..., Any] | None = None
    setattr: Callable[..., Any] | None = None
    getitem: Callable[..., Any] | None = None
    setitem: Callable[..., Any] | None = None
    iterate: Callable[..., Any] | None = None


def _typed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A handler taking the type from a function that finds it on the value (``value.type``)."""
    return lambda cls, *args: fn(*args)


_COMPOSITE = KindHandlers(
    call=lambda cls, builder, node: fc.construct(builder, cls, node),
    getattr=_typed(fc.getattr_),
    setattr=_typed(fc.setattr_),
    getitem=_typed(fc.getitem),
    setitem=_typed(fc.setitem),
    iterate=_typed(fc.iterate),
)

#: The frontend's handlers of each core kind.
KIND_HANDLERS: dict[str, KindHandlers] = {
    **{kind: _COMPOSITE for kind in kinds.COMPOSITE_KINDS},
    kinds.STRUCT: KindHandlers(
        call=lambda cls, builder, node: fs.construct(builder, cls, node),
        getattr=_typed(fs.get_field),
        setattr=_typed(fs.set_field),
    ),
}

#: The composite type factories of ``warp.types`` double as generic constructors in kernels
#: (``wp.types.vector(1.0, 2.0)``), as in NVIDIA Warp.
_FACTORY_NAMES: dict[Any, str] = {
    vector: "vector", matrix: "matrix", quaternion: "quaternion", transformation: "transformation",
}


def type_hook(t: Any, member: str) -> Callable[..., Any] | None:
    """The handler of ``member`` (one of :data:`MEMBERS`) for kernel type ``t``, bound to ``t``;
    None where ``t`` does not support it."""
    own = getattr(t, f"_wp_{member}_", None)
    if own is not None:
        return own
    if not kinds.is_core_kind(t):
        return None
    handler = getattr(KIND_HANDLERS[kinds.kind_of(t)], member)
    if handler is None:
        return None
    return lambda *args: handler(t, *args)


def call_hook(obj: Any) -> Callable[[Any, ast.Call], Any] | None:
    """How a call of Python object ``obj`` met in kernel code translates (``T(...)`` of a kernel
    type, ``wp.types.vector(...)``, an object with a ``_wp_call_`` hook), or None."""
    try:
        name = _FACTORY_NAMES.get(obj)
    except TypeError:  # unhashable
        name = None
    if name is not None:
        return lambda builder, node: fc.generic_constructor(builder, name, node)
    return type_hook(obj, "call")


__all__ = ["KIND_HANDLERS", "MEMBERS", "KindHandlers", "call_hook", "type_hook"]
