"""Global settings, read at compile and launch time (``wp.config.mode = "debug"``, ...)."""

from __future__ import annotations

import os

#: "release" or "debug"; debug adds bounds checks on array accesses in kernels.
mode: str = "release"

#: Silence the log line printed each time a module is loaded (compiled or from the cache).
quiet: bool = False

#: Print extra information (compiler passes, launch decisions).
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
