"""Descriptors: how kernels reach a Mesh, Bvh, HashGrid or Volume from its ``uint64`` id.

Every geometry object keeps a one-element array of a ``@wp.struct`` (its *descriptor*: the
arrays it owns plus a few scalars) and its ``id`` is the address of that element, as in NVIDIA
Warp. Kernel code turns an id back into the struct with a getter builtin registered here
(``wp.mesh_get(id)`` is one); the getter loads the fields one by one from the address, so LLVM
drops the loads of fields a query does not use. Query functions are then ordinary kernel-language
code over the struct's arrays.

An id that is not the id of a live object of the right kind is undefined behaviour, as in NVIDIA
Warp (the object must outlive the launches using its id); in debug mode, ids passed as kernel
arguments are checked first (:mod:`warp_geometry.live_ids`).
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir
import numpy as np

import warp as wp
from warp.extending import lowering_types as lt, LowerContext, Overload, uint64, BuiltinRegistry
from warp_geometry import live_ids


class Descriptor:
    """A struct instance pinned in device memory at a stable address (the object's id).

    The element after it holds the *adjoint* descriptor: the same struct whose array fields are
    the gradient arrays of the object's arrays (null where there is none), which reverse-mode
    differentiation reads through the getter's ``adjoint_source`` (see :func:`register_getter`).
    """

    def __init__(self, struct_type: Any, device: Any = None):  # a @wp.struct class
        self.struct_type = struct_type
        self.value = struct_type()
        self.storage = wp.zeros(2, dtype=struct_type, device=device)
        #: the two records as written last, on the host: on a CUDA device ``storage.numpy()`` is a
        #: copy, so records are composed here and the pair is copied to ``storage`` as a whole
        self._records = np.zeros(2, dtype=struct_type.numpy_dtype())
        #: scalar fields kernels write in place (:meth:`field_view`): read back before the next
        #: whole-struct write, so that write keeps them
        self._device_fields: set[str] = set()
        live_ids.register(self)  # debug-mode launches check ids against the live objects

    @property
    def address(self) -> int:
        """Address of the struct in memory: the ``uint64`` id kernels receive."""
        ptr = self.storage.ptr
        assert ptr is not None  # two records are always allocated
        return int(ptr)

    def field_view(self, name: str) -> Any:
        """A one-element array aliasing scalar field ``name`` of the descriptor in its memory, for
        kernels to write (no host round trip, so graph capture records it). The descriptor keeps
        what they write: :meth:`update` reads those fields back before writing the whole struct."""
        ftype = dict(self.struct_type._fields_)[name]
        offset = self._records.dtype.fields[name][1]
        self._device_fields.add(name)
        return wp.array(ptr=self.address + offset, dtype=ftype, shape=(1,), device=self.storage.device)

    def update(self, **fields: Any) -> None:
        """Set fields and write the whole struct to its memory."""
        stale = self._device_fields.difference(fields)
        if stale:  # fields kernels wrote in place: keep their current values
            current = self.storage.numpy()[0]
            for name in stale:
                setattr(self.value, name, current[name].item())
        for name, v in fields.items():
            setattr(self.value, name, v)
        self._records[0] = self.value.numpy_value()
        self.storage.assign(self._records)

    def update_gradients(self, **arrays: Any) -> None:
        """Write the adjoint descriptor: the gradient array of each named array field (its
        ``.grad``; fields not named, and arrays without a gradient, stay null)."""
        grads = self.struct_type()
        for name, a in arrays.items():
            setattr(grads, name, None if a is None else a.grad)
        self._records[1] = grads.numpy_value()
        self.storage.assign(self._records)


class Releasable:
    """Base of the geometry objects (Mesh, Bvh, HashGrid, Volume): ``__del__`` frees what the
    object holds privately (its descriptor, whose address is its id, and its arrays) now rather
    than whenever it is collected, as NVIDIA Warp's ``__del__`` frees the native object. It is
    idempotent and safe on an instance whose ``__init__`` never ran or stopped part way; after it,
    ``id`` and the other attributes that needed that state raise ``AttributeError`` saying so."""

    def __del__(self) -> None:
        state = getattr(self, "__dict__", None)
        if state:
            for name in [n for n in state if n.startswith("_")]:
                del state[name]

    def __getattr__(self, name: str) -> Any:
        # reached only when normal lookup fails (a property raising AttributeError included)
        if not name.startswith("__") and "_descriptor" not in vars(self):
            raise AttributeError(
                f"wp.{type(self).__name__}: '{name}' is not available: the object was freed (__del__) "
                "or its __init__ did not complete"
            )
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def _lower_getter(struct_type: Any, element: int = 0):  # a @wp.struct class
    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> ir.Value:
        b = ctx.builder
        llty = ctx.llvm_type(struct_type)
        address = args[0]
        if element:
            size = struct_type.numpy_dtype().itemsize * element
            address = b.add(address, ir.Constant(address.type, size))
        ptr = b.inttoptr(address, lt.PTR)
        value: ir.Value = ir.Constant(llty, ir.Undefined)
        i32 = ir.IntType(32)
        for index, (_, ftype) in enumerate(struct_type._fields_):
            field_ptr = b.gep(ptr, [ir.Constant(i32, 0), ir.Constant(i32, index)], source_etype=llty)
            raw = b.load(field_ptr, typ=lt.storage_type(ftype))
            raw.align = lt.alignment(ftype)
            value = b.insert_value(value, raw, index)
        return value

    return lower


def add_builtin(registry: BuiltinRegistry, name: str, **options: Any) -> Any:
    """``registry.add`` for geometry builtins: kernel-only (they read objects through ids, which
    Python scope has no use for), and non-differentiable unless stated."""
    options.setdefault("differentiable", False)
    return registry.add(name, export=False, **options)


def register_getter(registry: BuiltinRegistry, name: str, struct_type: Any, doc: str, group: str) -> None:
    """Register builtin ``name(id: uint64) -> struct_type`` reading the descriptor at ``id``;
    its ``adjoint_source`` reads the adjoint descriptor after it (the gradient arrays)."""
    overload = add_builtin(
        registry,
        name,
        params={"id": uint64},
        result=struct_type,
        lower=_lower_getter(struct_type),
        doc=doc,
        group=group,
    )
    overload.adjoint_source = Overload(
        name=f"{name} (gradients)",
        params=overload.params,
        result=struct_type,
        lower=_lower_getter(struct_type, element=1),
        differentiable=False,
        export=False,
    )


def func_adder(registry: BuiltinRegistry, group: str, differentiable: bool = True):
    """A short form of :func:`add_builtin` for kernel-language builtins of one group:
    ``add(name, params, result, func, doc, updated=(), diff=differentiable, **options)``
    (``updated``: the positions of output arguments; ``options``: more :func:`add_builtin`
    keywords, e.g. ``side_effects``)."""

    def add(
        name: str,
        params: list,
        result: Any,
        func: Any,
        doc: str,
        updated: tuple = (),
        diff: bool = differentiable,
        **options: Any,
    ) -> None:
        add_builtin(
            registry,
            name,
            params=params,
            result=result,
            func=func,
            doc=doc,
            group=group,
            mutated_args=updated,
            differentiable=diff,
            **options,
        )

    return add
