"""Running LLVM pass pipelines through llvmlite's new pass manager, with cleanup.

llvmlite hands out pipeline tuning options, a pass builder and a module pass manager that must
each be closed, and a pass builder must not be reused (llvmlite registers instrumentation
callbacks into it on every run and never frees that list: about 50 KB per compile stays
allocated). :func:`run_passes` does that bookkeeping for the CPU and CUDA compilers.
"""

from __future__ import annotations

from typing import Callable

import llvmlite.binding as llvm

#: ``passes(pass_builder) -> module pass manager``; :data:`DEFAULT_PIPELINE` is the builder's own
PassesFor = Callable[[llvm.PassBuilder], llvm.ModulePassManager]


def DEFAULT_PIPELINE(pb: llvm.PassBuilder) -> llvm.ModulePassManager:  # noqa: N802 (a constant)
    """The pass builder's default pipeline for its speed level (O1..O3)."""
    return pb.getModulePassManager()


def run_passes(
    module: llvm.ModuleRef,
    tm: llvm.TargetMachine,
    *,
    speed_level: int,
    passes: PassesFor = DEFAULT_PIPELINE,
    **tuning: bool,
) -> None:
    """Run ``passes`` over ``module`` for target ``tm``; ``tuning`` sets pipeline tuning options
    (``loop_vectorization=True``, ...)."""
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    for name, value in tuning.items():
        setattr(pto, name, value)
    pb = llvm.create_pass_builder(tm, pto)
    try:
        mpm = passes(pb)
        try:
            mpm.run(module, pb)
        finally:
            mpm.close()
    finally:
        pb.close()
        pto.close()
