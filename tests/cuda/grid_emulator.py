"""Run a kernel's CUDA entry on the host, thread by thread, for a given grid and block size.

The entry's LLVM IR (what the NVPTX target turns into PTX: the grid-stride loop and the kernel
body) is compiled for the host with the special registers ``%tid.x``, ``%ntid.x``, ``%ctaid.x``
and ``%nctaid.x`` read from globals, then called once per (block, thread) of the grid with the
argument buffer the runtime built. This checks the thread-to-index mapping of real launch
configurations (e.g. a capped grid) without a GPU; kernels calling libdevice cannot run here.
"""

from __future__ import annotations

import ctypes
import re
from typing import Any

import llvmlite.binding as llvm

_SREGS = ("tid", "ntid", "ctaid", "nctaid")


def host_entry_ir(kernel: Any, entry: str = "strided") -> tuple[str, str]:
    """(LLVM IR of ``kernel``'s CUDA entry (``"strided"`` or ``"vector"``) made runnable on the
    host, the entry's name)."""
    from warp.compiler.frontend.translator import build_kernel
    from warp.compiler.lowering.kernel import lower_kernel
    from warp.compiler.options import compiling, resolve_options
    from warp.targets.cuda.target import CudaTarget

    target = CudaTarget()
    options = resolve_options(kernel, target=target)
    with compiling(options):
        lowered = lower_kernel(
            build_kernel(kernel), options, target.define_entry, contiguous_entry=target.contiguous_entry
        )
    text = lowered.llvm_ir.replace("define ptx_kernel void", "define void")
    text = re.sub(r'^declare i32 @"llvm\.nvvm\.read\.ptx\.sreg\.\w+\.x"\(\)\s*$', "", text, flags=re.M)
    text = re.sub(r'@"llvm\.nvvm\.read\.ptx\.sreg\.(\w+)\.x"', r'@"emu.\1"', text)
    text = re.sub(r"^!nvvm\.annotations = .*$", "", text, flags=re.M)
    for reg in _SREGS:
        text += (
            f'\n@"emu.g.{reg}" = global i32 0\n'
            f'define i32 @"emu.{reg}"() {{\n  %v = load i32, ptr @"emu.g.{reg}"\n  ret i32 %v\n}}\n'
        )
    return text, lowered.entries[entry]


def emulate_grid(
    kernel: Any, args: bytes, grid: int, block: int, only_blocks: Any = None, entry: str = "strided"
) -> None:
    """Run ``kernel``'s CUDA ``entry`` for every thread of ``grid`` blocks of ``block`` threads.

    ``only_blocks`` (block indices) runs just those blocks of the grid (a test of the test).
    """
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    text, entry = host_entry_ir(kernel, entry)
    module = llvm.parse_assembly(text)
    module.triple = llvm.get_process_triple()
    module.verify()
    machine = llvm.Target.from_triple(module.triple).create_target_machine()
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    regs = {r: ctypes.c_int32.from_address(engine.get_global_value_address(f"emu.g.{r}")) for r in _SREGS}
    run = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.get_function_address(entry))
    buffer = ctypes.create_string_buffer(bytes(args), len(args))
    regs["ntid"].value, regs["nctaid"].value = block, grid
    for ctaid in range(grid) if only_blocks is None else only_blocks:
        regs["ctaid"].value = ctaid
        for tid in range(block):
            regs["tid"].value = tid
            run(ctypes.addressof(buffer))
    del engine
