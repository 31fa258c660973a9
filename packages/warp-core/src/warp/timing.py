"""``wp.ScopedTimer``: time a block of Python (and the kernels it launches) and report it.

    with wp.ScopedTimer("simulate"):
        wp.launch(...)
    # prints "simulate took 1.23 ms"

The signature is NVIDIA Warp's. CPU launches return when the kernel has finished, so the time
includes the kernels; ``synchronize=True`` also waits for the current device before starting and
stopping the clock (needed for asynchronous devices). CUDA activity reports (``cuda_filter``) and
NVTX ranges (``use_nvtx``) need a GPU and are not produced on the CPU.
"""

from __future__ import annotations

import builtins
import cProfile
import io
import pstats
import time
from typing import Any, Callable
from warp.runtime.devices import synchronize


class ScopedTimer:
    """Context manager measuring the wall time of its block in milliseconds (``.elapsed``)."""

    #: set to False to turn every ScopedTimer into a no-op
    enabled = True
    #: nesting depth of active timers (used to indent nested reports)
    indent = -1

    def __init__(
        self,
        name: str,
        active: bool = True,
        print: bool = True,  # noqa: A002 - Warp's parameter name
        detailed: bool = False,
        dict: builtins.dict[str, list[float]] | None = None,  # noqa: A002 - Warp's parameter name
        use_nvtx: bool = False,
        color: int | str = "rapids",
        synchronize: bool = False,
        cuda_filter: int = 0,
        report_func: Callable[[list[Any], str], None] | None = None,
        skip_tape: bool = False,
    ):
        """Time the ``with`` block as ``name``.

        ``active=False`` (or ``ScopedTimer.enabled = False``) disables the timer; ``print``
        reports the time when the block ends; ``detailed`` profiles the block with cProfile and
        prints the statistics; ``dict`` collects the elapsed times under ``name`` (a list per
        name); ``synchronize`` waits for the device before and after; ``report_func`` receives
        ``(activities, indent)`` when ``cuda_filter`` asks for CUDA activities (none on the CPU).
        """
        self.name = name
        self.active = active and ScopedTimer.enabled
        self.print = print
        self.detailed = detailed
        self.dict = dict
        self.use_nvtx = use_nvtx
        self.color = color
        self.synchronize = synchronize
        self.cuda_filter = cuda_filter
        self.report_func = report_func
        self.skip_tape = skip_tape
        #: elapsed time of the last timed block in milliseconds (0.0 when inactive)
        self.elapsed = 0.0
        #: text appended to the printed report
        self.extra_msg = ""
        #: CUDA activities recorded (always empty on the CPU)
        self.timing_results: list[Any] = []
        if self.dict is not None:
            self.dict.setdefault(name, [])
        self._profiler: cProfile.Profile | None = None
        self._start = 0.0

    def _sync(self) -> None:
        if self.synchronize:
            synchronize()

    def __enter__(self) -> ScopedTimer:
        if not self.active:
            return self
        self._sync()
        ScopedTimer.indent += 1
        if self.detailed:
            self._profiler = cProfile.Profile()
            self._profiler.enable()
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.active:
            return
        self._sync()
        self.elapsed = (time.perf_counter() - self._start) * 1000.0
        if self._profiler is not None:
            self._profiler.disable()
            out = io.StringIO()
            pstats.Stats(self._profiler, stream=out).sort_stats("tottime").print_stats(20)
            builtins.print(out.getvalue())
        if self.dict is not None:
            self.dict[self.name].append(self.elapsed)
        indent = "    " * ScopedTimer.indent
        if self.cuda_filter and self.report_func is not None:
            self.report_func(self.timing_results, indent)
        if self.print:
            builtins.print(f"{indent}{self.name} took {self.elapsed:.2f} ms{self.extra_msg}")
        ScopedTimer.indent -= 1
