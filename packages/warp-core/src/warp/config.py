"""Global settings, read at compile and launch time (``wp.config.mode = "debug"``, ...)."""

from __future__ import annotations

import importlib.metadata
import os
from functools import lru_cache
from typing import Any

#: "release" or "debug"; debug adds bounds checks on array accesses in kernels.
mode: str = "release"

#: Log levels, as the ``logging`` module numbers them (``wp.LOG_WARNING`` & co.).
LOG_DEBUG: int = 10
LOG_INFO: int = 20
LOG_WARNING: int = 30
LOG_ERROR: int = 40

#: Least severe level of warp's own messages that is printed: the line each module load prints
#: is LOG_INFO (``wp.config.log_level = wp.LOG_WARNING`` silences it, as ``quiet`` does); a damaged
#: cache entry's removal is LOG_WARNING.
log_level: int = LOG_INFO

#: Silence the start-up line, the line printed when a module is loaded (compiled or from the
#: cache) and the progress line of long compiles.
quiet: bool = False

#: Print a line for every kernel (and adjoint) loaded: a cache hit, or why it was compiled (cache
#: miss; options changed since its last compile in this process, and which), with the time taken.
verbose: bool = False

#: Directory of the on-disk kernel cache; None selects ``$WARP_CACHE_PATH`` or ``~/.cache/warp-suite``.
kernel_cache_dir: str | None = None

#: Worker threads for CPU launches; None means one per available core.
cpu_threads: int | None = None

#: Launches with fewer threads than this run inline on the calling thread.
cpu_parallel_min_dim: int = 32768

#: Loops over ``range()`` with constant bounds and at most this many iterations are unrolled.
max_unroll: int = 16

#: Generate adjoint (backward) code for kernels when an autodiff plugin is installed.
enable_backward: bool = True

#: Validate kernel arguments on every launch.
verify_launch_args: bool = True

#: Check after each launch that the kernel's float arrays hold only finite values (raises
#: ``FloatingPointError`` naming the kernel and the array). Costs a pass over the arrays.
verify_fp: bool = False

#: Print each kernel launch (kernel, device, grid) before it runs.
print_launches: bool = False

#: Keep compiled kernels in the on-disk cache (``kernel_cache_dir``) between processes.
cache_kernels: bool = True

#: CUDA: give kernels that access 1-D arrays at ``wp.tid()`` a second entry running 4 consecutive
#: threads per GPU thread with 128-bit loads and stores, used for 1-D launches whose arrays are all
#: contiguous and 16-byte aligned (``docs/cuda.md``); 2, 8 or 16 instead of True: that many
#: threads per GPU thread. The module option ``"cuda_vector_entry"`` overrides it per module
#: (``wp.set_module_options``) or per kernel (``wp.Kernel(options=...)``).
cuda_vector_entry: bool | int = True

#: Print where warnings come from (accepted; warnings already carry their location).
verbose_warnings: bool = False

# NVIDIA Warp's settings for CUDA code generation and its C++ toolchain. They are accepted so that
# programs setting them run unchanged; the CPU target (LLVM) does not use them.
verify_cuda: bool = False
ptx_target_arch: int | None = None
#: How CUDA kernels load from the kernel cache: ``"ptx"`` (the driver JIT-compiles the PTX,
#: relying on its own JIT cache), ``"cubin"`` (the driver's linker makes a cubin once and it is
#: cached beside the PTX), None: ``"cubin"`` where the driver's JIT cache is off
#: (``CUDA_CACHE_DISABLE=1``), else ``"ptx"`` (see ``warp.targets.cuda.cubin``).
cuda_output: str | None = None
llvm_cuda: bool = False
lineinfo: bool = False
line_directives: bool = True
compile_time_trace: bool = False
use_precompiled_headers: bool = True
cpu_compiler_flags: str | None = None
legacy_cpu_linker: bool = False
optimization_level: int | None = None
load_module_max_workers: int | None = None
track_memory: bool = False
enable_mempools_at_init: bool = True
enable_graph_capture_module_load_by_default: bool = True
enable_tiles_in_stack_memory: bool = True
enable_vector_component_overwrites: bool = False
legacy_scalar_return_types: bool = False
verify_autograd_array_access: bool = False

#: Bytes of scratch memory an adjoint launch may use to store the iterations of dynamic loops
#: whose reverse needs their carried values (warp-autodiff). Within it the reverse is linear in
#: the trip count; beyond it, iterations are recomputed from checkpoints (O(n log n)). Raised to
#: what a kernel needs at least (a few hundred bytes per thread and loop). Memory is touched only
#: as far as it is used.
adjoint_loop_memory: int = 1 << 30


def default_cache_dir() -> str:
    """The cache directory used when ``kernel_cache_dir`` is not set."""
    env = os.environ.get("WARP_CACHE_PATH")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "warp-suite", "kernels")


@lru_cache(maxsize=1)
def _installed_version() -> str:
    try:
        return importlib.metadata.version("warp-core")
    except importlib.metadata.PackageNotFoundError:  # running from a source tree, not installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    # ``version`` (``warp.__version__``): the installed warp-core's version, the one source of it
    if name == "version":
        return _installed_version()
    raise AttributeError(f"module 'warp.config' has no attribute '{name}'")
