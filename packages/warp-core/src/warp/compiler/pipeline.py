"""The compiler pipeline, top to bottom: Python source -> typed IR -> LLVM IR -> object code.

    kernel (Python function)
      -> frontend.build_kernel      AST -> typed SSA IR with structured regions (verified)
      -> adjoint (plugin hook)      reverse-mode IR from warp-autodiff (the "adjoint" part only)
      -> lowering.lower_kernel      IR -> LLVM IR module with launch entry points
      -> cpu_jit.compile_ir         verify, optimize (O3, vectorize), emit object code
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warp.compiler import ir


@dataclass
class CompiledObject:
    """Object code of one kernel plus the metadata the runtime needs to load and launch it."""

    obj: bytes
    meta: dict[str, Any]


def compile_kernel(kernel: Any, *, target: str = "cpu", debug: bool = False, part: str = "forward") -> CompiledObject:
    """Compile the forward or adjoint part of ``kernel`` for ``target``."""
    from warp.compiler.frontend.translator import build_kernel
    from warp.compiler.lowering.kernel import lower_kernel
    from warp.compiler.verify import verify_function
    from warp.plugins.manager import get_plugin_manager
    from warp.runtime.cpu_jit import compile_ir

    function: ir.Function = build_kernel(kernel)
    if part == "adjoint":
        function = get_plugin_manager().hook.warp_adjoint_function(function=function)
        if function is None:
            raise RuntimeError(f"kernel '{kernel.name}': no plugin produced an adjoint (pip install warp-autodiff)")
        verify_function(function)
    module = lower_kernel(function, target=target, debug=debug, outer_vectorize=part == "forward")
    obj = compile_ir(module.llvm_ir, name=function.symbol)
    meta = {"entries": module.entries, "sites": module.sites, "uses_print": module.uses_print}
    return CompiledObject(obj, meta)
