"""The CPU target: LLVM JIT object code run by a thread pool (:class:`~warp.targets.cpu.target.CpuTarget`)."""
