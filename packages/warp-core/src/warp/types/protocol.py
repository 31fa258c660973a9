"""The protocol of kernel-visible types: what a Python class provides to be usable in kernels.

Scalars and arrays are known to the compiler directly. Vectors/matrices/quaternions/transforms
(:mod:`warp.types.composite_values`) and ``@wp.struct`` types (:mod:`warp.types.struct`) are *core
kinds* (:mod:`warp.types.kinds`): their kernel-language behaviour (LLVM form, constructors,
indexing, field access, printing) lives in the compiler's tables keyed by ``_wp_kind_``
(:mod:`warp.compiler.frontend.type_handlers`, :mod:`warp.compiler.lowering.types`,
:mod:`warp.compiler.lowering.printing`), so the type classes import no compiler code. A type
contributed by a plugin, of a kind of its own, implements the members below that it needs as
``_wp_*_`` class attributes; so may a core-kind type, to add or override one behaviour (its own
hook wins over the table). Every member is optional except ``_wp_type_``, and ``_wp_llvm_type_``
for a type whose kind the compiler does not handle; a missing member means "not supported" and
the compiler reports a located error when kernel code needs it.

The simplest way to add a record type is to build it with ``@wp.struct`` (layout, launch
packing, field access, constructors, hashing and adjoints come with it) and to attach the
extra hooks it needs to the resulting class; warp-geometry's query types
(``wp.MeshQueryAABB``, ``wp.HashGridQuery``, ...) are built that way, adding ``_wp_iterate_``
so ``for index in query:`` works.

Members (``cls`` is the type, ``builder`` the frontend's function builder, ``value`` an IR
value of this type, ``node`` the AST node for error locations):

Storage and ABI
    ``_wp_type_ = True`` marks the class as a kernel type. ``_wp_kind_`` names its family
    (``"struct"``, ``"vector"``, ...). ``_wp_scalar_type_``: the scalar type of the
    components of a composite type (vectors, matrices, quaternions, transforms), which
    arithmetic, conversions and adjoints follow; None or absent for other types.
    ``_wp_generic_ = True`` marks a placeholder type (``wp.vector(length=3, dtype=Any)``) that
    only annotations may use; kernels are specialized to concrete types at launch.
    ``_wp_generic_type_str_`` names the generic family of a composite type as NVIDIA Warp
    spells it (``"vec_t"``, ``"mat_t"``, ``"quat_t"``, ``"transform_t"``), on concrete and
    generic composite types alike; code inspecting an inferred dtype reads it.
    ``_wp_llvm_type_()`` gives the LLVM type of an SSA value;
    ``_wp_llvm_storage_type_()``, ``_wp_to_storage_(ir_builder, v)`` and
    ``_wp_from_storage_(ir_builder, v)`` differ from it only when the in-memory form is another
    type (as ``bool`` is ``i8`` in memory). ``_wp_alignment_`` and ``_size_in_bytes_`` give the
    in-memory layout (must equal LLVM's layout of the storage type). ``_wp_struct_error_`` is
    None, or (on a ``@wp.struct`` with a field of a type that is not a kernel type) why the
    struct has no layout: what needs one raises a ``TypeError`` with it.

Launch arguments
    ``_wp_abi_format_()`` is the ``struct`` module format of one packed argument,
    ``_wp_pack_(obj)`` the list of values filling it, ``_wp_check_arg_(where, obj)`` validates
    (and may convert) a Python argument, raising ``TypeError`` naming ``where``;
    ``_wp_all_contiguous_(obj)`` tells the launcher whether nested arrays are contiguous.

Kernel-language behaviour
    ``_wp_call_(builder, node)`` (on the class or any object met in kernel code): a call such
    as ``T(...)``. ``_wp_getattr_(builder, value, attr, node)`` and ``_wp_setattr_(builder,
    value, attr, new, node)`` (the latter returns the updated value, which the frontend rebinds):
    field access. ``_wp_getitem_(builder, value, indices, node)`` /
    ``_wp_setitem_(builder, value, indices, new, node)``: indexing. ``_wp_iterate_(builder,
    value, for_node)``: translate ``for x in value:`` (the handler emits the loop).
    ``_wp_llvm_constant_(obj)``: the LLVM constant of a value (``T()`` zero); a Python object
    used from kernel code becomes a constant through its class's ``_wp_constant_(builder, obj)``.
    ``_wp_print_(ctx, value)``: printing support (a format and the values it prints).
    ``_wp_differentiable_``: force adjoints on or off. ``_wp_zero_()``: the zero value of a
    type the autodiff transform cannot derive one for (as a ``const`` op holds it).

Python-scope objects
    ``_wp_array_class_ = True`` marks array classes (``wp.array`` and its kin): their
    instances are launch arguments and annotations, mapped to the compiler's array type.
    ``_wp_builtin_doc_`` (on an object exported as a builtin that the frontend handles itself,
    such as ``wp.static``): ``{"group", "doc", "signatures"}`` for the generated builtins list.

Cache key
    ``_wp_hash_()`` (a string fully describing the type's layout and behaviour) is hashed into
    the key of every kernel naming the type; ``_wp_constant_hash_(obj)`` does the same for a
    captured constant value.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

from warp.types.kinds import is_core_kind


@runtime_checkable
class KernelType(Protocol):
    """Structural type of a class usable in kernels (see the module docstring for every hook)."""

    _wp_type_: ClassVar[bool]
    _wp_kind_: ClassVar[str]


class KernelRecordType(KernelType, Protocol):
    """A kernel type with fields, passable to kernels and storable in arrays (``@wp.struct``)."""

    _wp_alignment_: ClassVar[int]
    _size_in_bytes_: ClassVar[int]
    _wp_struct_error_: ClassVar[str | None]

    @classmethod
    def _wp_abi_format_(cls) -> str:
        """``struct``-module format of one packed launch argument."""
        ...

    @classmethod
    def _wp_pack_(cls, value: Any) -> list[Any]:
        """Values filling :meth:`_wp_abi_format_` for the Python object ``value``."""
        ...

    @classmethod
    def _wp_hash_(cls) -> str:
        """Text describing the type completely, for kernel cache keys."""
        ...


#: Every ``_wp_*_`` member of the protocol (the names above); a test keeps the code to these.
PROTOCOL_MEMBERS = frozenset({
    "_wp_type_", "_wp_kind_", "_wp_scalar_type_", "_wp_generic_", "_wp_generic_type_str_", "_wp_llvm_type_",
    "_wp_llvm_storage_type_", "_wp_to_storage_", "_wp_from_storage_", "_wp_alignment_",
    "_wp_abi_format_", "_wp_pack_", "_wp_check_arg_", "_wp_all_contiguous_",
    "_wp_call_", "_wp_getattr_", "_wp_setattr_", "_wp_getitem_", "_wp_setitem_", "_wp_iterate_",
    "_wp_llvm_constant_", "_wp_constant_", "_wp_print_", "_wp_differentiable_", "_wp_zero_",
    "_wp_hash_", "_wp_constant_hash_", "_wp_array_class_", "_wp_builtin_doc_", "_wp_struct_error_",
})


def is_kernel_type(t: Any) -> bool:
    """Whether ``t`` declares itself a kernel type (``_wp_type_``) that the compiler can lower:
    one of the core kinds, or a type giving its own ``_wp_llvm_type_``."""
    if not (isinstance(t, type) and bool(getattr(t, "_wp_type_", False))):
        return False
    return is_core_kind(t) or hasattr(t, "_wp_llvm_type_")


__all__ = ["PROTOCOL_MEMBERS", "KernelRecordType", "KernelType", "is_kernel_type"]
