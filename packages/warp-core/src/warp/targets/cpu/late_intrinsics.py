"""Intrinsics defined after vectorization ("late intrinsics"), for plugins' math libraries.

A function like ``sin`` is best written with a branch on the whole SIMD vector: a short path for
every lane, and a slow one taken only when some lane needs it. Kernels are scalar code that LLVM
vectorizes, and scalar code cannot say "if any lane": LLVM if-converts a per-lane branch and
pays for both sides, or refuses to vectorize the loop. So such functions reach LLVM as one of
its own intrinsics (``llvm.sin.f32``), which both of its loop vectorizers widen
(``llvm.sin.v16f32``), and are defined only after the optimization pipeline:

1. :func:`rename_late_intrinsics` renames each declaration ``llvm.<name>.<type>`` that a plugin
   provides to ``__wp_late_<name>_<type>`` (an ordinary function);
2. the provider defines those functions, scalar or vector, in a separate module
   (:data:`DefineLate`), which is linked in;
3. a short pipeline inlines them and cleans up (:func:`define_late_intrinsics`).

Plugins register providers with
:meth:`warp.compiler.registry.BuiltinRegistry.add_late_intrinsic`. Without a provider an
intrinsic stays LLVM's (for ``sin``: a call of the C library's ``sinf`` per lane).

The provider must define ``symbol`` as a function ``ty -> ty`` (``ty`` a float type or a vector
of one) with ``alwaysinline`` and ``linkonce_odr`` linkage, so that it disappears once inlined;
helpers it calls should be ``internal``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import llvmlite.binding as llvm
from llvmlite import ir

from warp.targets.llvm_passes import run_passes

#: ``define(module, symbol, ty)``: add the definition of function ``symbol: ty -> ty`` to ``module``
DefineLate = Callable[[ir.Module, str, ir.Type], None]

_INTRINSIC = re.compile(r"llvm\.([a-z0-9]+)\.(?:v(\d+))?(f16|f32|f64)")
_SCALARS: dict[str, Callable[[], ir.Type]] = {"f16": ir.HalfType, "f32": ir.FloatType, "f64": ir.DoubleType}

LATE_PREFIX = "__wp_late_"


def late_type(lanes: str | None, scalar: str) -> ir.Type:
    """The llvmlite type named by an intrinsic suffix (``v16`` lanes, ``f32`` scalar)."""
    ty = _SCALARS[scalar]()
    return ir.VectorType(ty, int(lanes)) if lanes else ty


def rename_late_intrinsics(
    module: llvm.ModuleRef, providers: Mapping[str, DefineLate]
) -> list[tuple[str, str, ir.Type]]:
    """Rename the declarations of provided intrinsics; returns ``(name, new symbol, type)`` each."""
    found = []
    for fn in list(module.functions):  # renamed after the walk
        m = _INTRINSIC.fullmatch(fn.name) if fn.is_declaration else None
        if m is None or m.group(1) not in providers:
            continue
        name, lanes, scalar = m.groups()
        symbol = f"{LATE_PREFIX}{name}_{'v' + lanes if lanes else ''}{scalar}"
        found.append((fn, name, symbol, late_type(lanes, scalar)))
    for fn, _, symbol, _ in found:
        fn.name = symbol
    return [(name, symbol, ty) for _, name, symbol, ty in found]


_DEFINITIONS: dict[tuple, str] = {}


def _definitions(
    found: list[tuple[str, str, ir.Type]], providers: Mapping[str, DefineLate], triple: str, data_layout: str
) -> str:
    """The IR text defining ``found``, memoized per process (providers are deterministic)."""
    key = (tuple((name, symbol, str(ty), providers[name]) for name, symbol, ty in found), triple, data_layout)
    text = _DEFINITIONS.get(key)
    if text is None:
        defs = ir.Module(name="late_intrinsics")
        defs.triple = triple
        defs.data_layout = data_layout
        for name, symbol, ty in found:
            providers[name](defs, symbol, ty)
        text = _DEFINITIONS[key] = str(defs)
    return text


def _inline_and_clean(pb: llvm.PassBuilder) -> llvm.ModulePassManager:
    """Inline the definitions, simplify, drop what is left unused."""
    mpm = llvm.create_new_module_pass_manager()
    mpm.add_always_inliner_pass()
    mpm.add_instruction_combine_pass()
    mpm.add_simplify_cfg_pass()
    mpm.add_global_dead_code_eliminate_pass()
    return mpm


def define_late_intrinsics(
    module: llvm.ModuleRef,
    providers: Mapping[str, DefineLate],
    context: llvm.context.ContextRef,
    tm: llvm.TargetMachine,
) -> bool:
    """Define, link and inline the provided intrinsics ``module`` calls (after its optimization).

    Returns whether there were any.
    """
    if not providers:
        return False
    found = rename_late_intrinsics(module, providers)
    if not found:
        return False
    text = _definitions(found, providers, module.triple, module.data_layout)
    defs = llvm.parse_assembly(text, context)
    defs.verify()
    module.link_in(defs)
    run_passes(module, tm, speed_level=2, passes=_inline_and_clean)
    return True
