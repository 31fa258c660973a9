"""The compiler pipeline, top to bottom: Python source -> typed IR -> LLVM IR -> loadable code.

    kernel (Python function)
      -> frontend.build_kernel      AST -> typed SSA IR with structured regions (verified)
      -> adjoint (plugin hook)      reverse-mode IR from warp-autodiff (the "adjoint" part only)
      -> lowering.lower_kernel      IR -> LLVM IR module; the target defines the entry points
      -> target.compile            verify, optimize, emit target code (CPU object code, PTX)

Everything that decides the generated code besides the kernel itself is in the
:class:`~warp.compiler.options.CompileOptions` passed in (and in the kernel's cache key).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from warp.compiler import ir
from warp.compiler.options import CompileOptions, compiling
from warp.plugins.install_hints import install_hint
from warp.compiler.frontend.translator import build_kernel
from warp.compiler.lowering.kernel import lower_kernel
from warp.compiler.verify import verify_function
from warp.plugins.manager import get_plugin_manager

if TYPE_CHECKING:  # targets build on the compiler: the types only
    from warp.targets.base import CodeStore, Target


@dataclass
class CompiledObject:
    """Target code of one kernel part plus the metadata the runtime needs to load and launch it."""

    obj: bytes
    meta: dict[str, Any]


def compile_kernel(
    kernel: Any, options: CompileOptions, target: Target, device: Any = None, store: CodeStore | None = None
) -> CompiledObject:
    """Compile ``options.part`` of ``kernel`` with ``options`` into ``target``'s code (``store``:
    where the target may keep pieces between processes, see :meth:`warp.targets.base.Target.compile`)."""
    with compiling(options):
        function: ir.Function = build_kernel(kernel)
        if options.part == "adjoint":
            function = get_plugin_manager().hook.warp_adjoint_function(function=function)
            if function is None:
                raise RuntimeError(
                    f"kernel '{kernel.name}': no plugin produced an adjoint ({install_hint('warp-autodiff')})"
                )
            verify_function(function)
        module = lower_kernel(
            function, options, target.define_entry, contiguous_entry=target.contiguous_entry
        )
    code = target.compile(module.llvm_ir, name=function.symbol, options=options, device=device, store=store)
    meta = {
        "entries": module.entries, "sites": module.sites, "uses_print": module.uses_print,
        "externals": module.externals, "scratch": function.scratch, "vector_width": module.vector_width,
    }
    return CompiledObject(code, meta)
