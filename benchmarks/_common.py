"""Helpers shared by the benchmark scripts: machine info, timing, result lines.

Each script prints human-readable figures plus one machine-readable line per figure::

    RESULT <name> <value> <unit> <target>

which ``run_all.py`` collects into its summary table. Benchmarks never assert on time.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from typing import Callable


def machine_info() -> str:
    """One line: CPU model, cores available, threads warp launches use, Python and llvmlite versions."""
    import llvmlite

    import warp as wp
    from warp.targets.cpu.thread_pool import available_cores, configured_threads

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (
        f"machine: {model}; cores available: {available_cores()} (os.cpu_count {os.cpu_count()}); "
        f"warp CPU threads: {configured_threads()}; Python {platform.python_version()}; "
        f"llvmlite {llvmlite.__version__}; warp {wp.__version__}"
    )


def median_time(fn: Callable[[], object], runs: int, warmup: int = 1) -> tuple[float, float]:
    """(median, minimum) wall time of ``fn()`` in seconds over ``runs`` calls after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def result(name: str, value: float, unit: str, target: float | None) -> None:
    """Print the machine-readable line for one figure (``target`` is an upper bound, or None)."""
    print(f"RESULT {name} {value:.6g} {unit} {'-' if target is None else f'{target:g}'}")
