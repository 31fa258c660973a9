"""Everything a plugin needs from warp-core, in one public module (as ``numba.extending``).

A package extending warp imports ``warp`` (the public API), ``warp.extending`` (this module) and
nothing else of ``warp.*``: the four packages of this repository do so, and
``tests/plugins/test_extending_imports.py`` checks it. The names below are re-exported from the
core modules that define them, so moving a definition inside warp-core changes only an import
line here. ``docs/plugins.md`` is the walkthrough.

Sections:

- **Hooks**: :data:`hookimpl` (the marker of hook implementations, see
  :mod:`warp.plugins.hookspecs`), :func:`get_plugin_manager`, :func:`install_hint`,
  :class:`DeviceArrayUtils` (what ``warp_device_array_utils`` returns).
- **Builtins**: :data:`builtin_registry` (the :class:`BuiltinRegistry` that
  ``warp_register_builtins`` receives), :class:`Overload` (what ``registry.add`` returns), the
  parameter patterns :class:`TypeVar`, :class:`ArrayOf`, :data:`ANY_SCALAR`, :func:`match_type`.
- **Derivative rules**: :func:`derivative`, :func:`derivative_from_func`,
  :func:`zero_derivative` attach a reverse-mode rule to overloads (or to every overload of a
  builtin name, once it is registered); :class:`DerivativeRule`, :func:`lookup_rule`;
  :class:`DerivativeContext` (a ``typing.Protocol``: what a rule may use of the context it
  receives, its emitter ``ctx.e`` being a :class:`DerivativeEmitter`), to type rules without
  importing warp-autodiff.
- **Kernel-visible types**: scalar types and families (``Scalar``, ``Float``, ``Int``), composite
  types and their patterns (``VectorOf``, ``MatrixOf``, ``QuatOf``, ``TransformOf``), array types,
  and type helpers (``canonical_type``, ``is_scalar_type``, ``type_repr``, ...).
- **Compiler**: the typed IR (:mod:`ir <warp.compiler.ir>`), the context a lowering receives
  (:class:`LowerContext`), LLVM types of warp types (``lowering_types``), LLVM composite values
  (``composite_values``), core lowerings that plugin lowerings reuse (``element_pointer``,
  ``lower_view``, ...), the IR operations that build and take apart
  composite and struct values (``CONSTRUCT``, ``GET_FIELD``, ...), and what plugin code may ask
  of the kernel translator (:mod:`warp.compiler.frontend.plugin_surface`): compile-time arguments
  of special forms (``compile_time_object``), composite values (``composite_value``), calls of
  builtins from synthesized code (``builtin_call``), the IR of kernels and functions
  (``kernel_ir``, ``function_ir``, ``custom_adjoint_ir``).
- **Runtime shims**: arrays made from foreign memory (``wrap_memory``, ``ArrayDescriptor``, ...),
  devices and launches, for Python-scope functions of a plugin.
- **Errors**: the located compile errors a lowering or special form raises.
"""

from __future__ import annotations

# --- hooks ---------------------------------------------------------------------------------
from warp.plugins import get_plugin_manager, hookimpl
from warp.plugins.array_utils import DeviceArrayUtils
from warp.plugins.install_hints import install_hint
from warp import not_provided

# --- builtins ------------------------------------------------------------------------------
from warp.compiler.registry import ArrayOf, BuiltinRegistry, Overload, TypeVar, builtin_registry, match_type
from warp.core_builtins.patterns import ANY_SCALAR

# --- derivative rules ----------------------------------------------------------------------
from warp.compiler.derivatives import (
    DerivativeRule,
    derivative,
    derivative_from_func,
    lookup_rule,
    register_rule,
    rule_names,
    unattached_rule_names,
    unregister_rule,
    zero_derivative,
)
from warp.compiler.derivative_context import DerivativeContext, DerivativeEmitter

# --- kernel-visible types ------------------------------------------------------------------
from warp.types.scalars import (
    Float,
    Int,
    Scalar,
    bfloat16,
    bool,  # noqa: A004 - warp's bool type, imported as ``from warp.extending import bool as wp_bool``
    canonical_type,
    float16,
    float32,
    float64,
    int16,
    int32,
    int64,
    int_types,
    is_scalar_type,
    type_repr,
    type_size_in_bytes,
    uint16,
    uint32,
    uint64,
)
from warp.types.composite import matrix, quaternion, transformation, vector
from warp.types.composite_generic import (
    CompositePattern,
    MatrixOf,
    QuatOf,
    TransformOf,
    VectorOf,
    is_placeholder,
)
from warp.types.composite_values import CompositeBase, is_composite
from warp.types.array_type import ADJOINT_RETAIN_MARK, ArrayType, FixedArrayType

# --- compiler ------------------------------------------------------------------------------
from warp.compiler import composite as composite_values, ir
from warp.compiler.composite import assemble, component_paths, components
from warp.compiler.abi import HEADER_DIMS_OFFSET, HEADER_SCRATCH_OFFSET
from warp.compiler.annotations import resolve_annotation
from warp.compiler.lowering import types as lowering_types
from warp.compiler.lowering.context import LowerContext
from warp.compiler.verify import verify_function
from warp.compiler.frontend.plugin_surface import (
    builtin_call,
    compile_time_object,
    composite_value,
    custom_adjoint_ir,
    function_ir,
    kernel_ir,
)
from warp.compiler.value_ops import CONSTRUCT, CONVERT, FILL, GET_FIELD, SET_FIELD
from warp.core_builtins.arrays import atomic_bfloat16, element_pointer, lower_view
from warp.core_builtins.operators import lower_div, lower_mod, shift
from warp.core_builtins.thread import inner_launch_size

# --- runtime shims -------------------------------------------------------------------------
from warp.arrays import clone, zeros_like
from warp.arrays.array import array
from warp.arrays.descriptor import ArrayDescriptor, make_descriptor
from warp.arrays.dlpack import from_dlpack
from warp.arrays.foreign import wrap_memory
from warp.arrays.layout import (
    contiguous_strides,
    element_info,
    fold_element_dims,
    is_generic_dtype,
    resolve_dtype,
)
from warp.decorators import func, kernel
from warp.kernels import Kernel
from warp.runtime.capture import is_capturing
from warp.types.helpers import types_equal
from warp.runtime.devices import Device, get_device
from warp.runtime.launch import launch, launch_adjoint

# --- errors --------------------------------------------------------------------------------
from warp.errors import SourceLoc, WarpCodegenError, WarpCodegenTypeError, WarpCodegenValueError
from warp.errors import ArrayArgumentTypeError, DeviceMismatchError

__all__ = [
    # hooks
    "DeviceArrayUtils", "get_plugin_manager", "hookimpl", "install_hint", "not_provided",
    # builtins
    "ANY_SCALAR", "ArrayOf", "BuiltinRegistry", "Overload", "TypeVar", "builtin_registry", "match_type",
    # derivative rules
    "DerivativeRule", "derivative", "derivative_from_func", "lookup_rule", "register_rule",
    "rule_names", "unattached_rule_names", "unregister_rule", "zero_derivative",
    "DerivativeContext", "DerivativeEmitter",
    # kernel-visible types
    "Float", "Int", "Scalar", "bfloat16", "bool", "canonical_type", "float16", "float32", "float64",
    "int16", "int32", "int64", "int_types", "is_scalar_type", "type_repr", "type_size_in_bytes",
    "uint16", "uint32", "uint64",
    "CompositeBase", "CompositePattern", "MatrixOf", "QuatOf", "TransformOf", "VectorOf", "is_composite",
    "is_placeholder", "matrix", "quaternion", "transformation", "vector",
    "ADJOINT_RETAIN_MARK", "ArrayType", "FixedArrayType",
    # compiler
    "composite_values", "assemble", "component_paths", "components", "ir", "HEADER_DIMS_OFFSET",
    "HEADER_SCRATCH_OFFSET", "resolve_annotation",
    "lowering_types", "LowerContext", "verify_function", "CONSTRUCT", "CONVERT", "FILL", "GET_FIELD",
    "SET_FIELD", "builtin_call", "compile_time_object", "composite_value", "custom_adjoint_ir",
    "function_ir", "kernel_ir",
    "atomic_bfloat16", "element_pointer", "lower_view", "lower_div", "lower_mod", "shift",
    "inner_launch_size",
    # runtime shims
    "clone", "zeros_like", "array", "ArrayDescriptor", "make_descriptor", "from_dlpack", "wrap_memory",
    "contiguous_strides", "element_info", "fold_element_dims", "is_generic_dtype", "resolve_dtype",
    "func", "kernel", "Kernel", "Device", "get_device", "launch", "launch_adjoint", "is_capturing",
    "types_equal",
    # errors
    "SourceLoc", "WarpCodegenError", "WarpCodegenTypeError", "WarpCodegenValueError",
    "ArrayArgumentTypeError", "DeviceMismatchError",
]
