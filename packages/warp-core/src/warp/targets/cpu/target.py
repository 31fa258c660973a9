"""The CPU target: LLVM JIT object code (``cpu_jit``), launched over the worker thread pool.

Kernel entries have the C signature ``void entry(const char* args, int64 start, int64 end)`` and
run the kernel body for linear thread indices ``start <= i < end`` in a loop (hinted for
vectorization), so a launch is one call per chunk of the thread range.

Parallelism is decided from the work, not the thread count alone: launches with at least
``wp.config.cpu_parallel_min_dim`` threads always run on the pool; smaller ones run on the pool
when their estimated duration (seconds per thread, measured on earlier launches of the same entry,
times the thread count) is at least :data:`PARALLEL_MIN_WORK_S`. The first launch of an entry runs
a probe chunk (1/16 of its threads) on the calling thread to measure it, then decides for the rest
(launches too small to probe run whole and are timed); launches that run on the calling thread keep
the estimate current, and every :data:`REPROBE_EVERY`-th launch sent to the pool probes again.
"""

from __future__ import annotations

import ctypes
import functools
import time
from typing import Any, Sequence

import llvmlite.ir as ir
import numpy as np

from warp import config
from warp.compiler import ir as wir
from warp.compiler.abi import ALIGNMENT
from warp.compiler.lowering import types as lt
from warp.compiler.lowering.context import LowerContext
from warp.compiler.lowering.half import legalize_half_conversions
from warp.compiler.lowering.kernel import EntryVariant
from warp.compiler.options import CompileOptions
from warp.targets.base import Allocation, CodeStore, CommandList, LoadedCode, Target
from warp.targets.cpu import jit as cpu_jit
from warp.targets.cpu import thread_pool
from warp.targets.cpu.entry import define_entry
from warp.targets.recording import CommandRecorder

#: Launches below ``cpu_parallel_min_dim`` threads go to the thread pool when they are estimated
#: to take at least this long (the pool's dispatch costs a few tens of microseconds).
PARALLEL_MIN_WORK_S = 100e-6

#: The first launch of an entry with at least ``PROBE_FRACTION * PROBE_MIN_ITEMS`` threads measures
#: a probe of ``n // PROBE_FRACTION`` threads first; smaller first launches run (and are timed) whole.
PROBE_FRACTION = 16
PROBE_MIN_ITEMS = 32

#: Launches estimated heavy re-measure a probe once every this many launches.
REPROBE_EVERY = 8


#: an entry ``(char* args, int64 start, int64 end)`` called with arguments ctypes does not convert
_UntypedEntry = ctypes.CFUNCTYPE(None)
_INT64_0, _INT64_1 = ctypes.c_int64(0), ctypes.c_int64(1)


class CpuEntry:
    """A kernel entry function plus the running estimate of its cost per thread."""

    __slots__ = ("fn", "heavy_launches", "seconds_per_item", "symbol")

    def __init__(self, fn: Any, symbol: str) -> None:
        self.fn = fn
        self.symbol = symbol
        #: None until the first launch measured it
        self.seconds_per_item: float | None = None
        #: launches that went to the pool because of their estimated work
        self.heavy_launches = 0

    def __repr__(self) -> str:
        return f"CpuEntry({self.symbol!r}, seconds_per_item={self.seconds_per_item})"


def _update_cost(entry: CpuEntry, old: float | None, measured: float) -> None:
    """Fold a new measurement into the entry's cost: lower figures are taken at once, higher ones at
    most double the estimate (a timing inflated by preemption should not flip launches to the pool)."""
    entry.seconds_per_item = measured if old is None or measured < old else min(measured, 2.0 * old)


class CpuLoadedCode(LoadedCode):
    """Object code linked into the process (see :func:`warp.targets.cpu.jit.load_object`)."""

    def __init__(self, module: cpu_jit.LoadedModule) -> None:
        self.module = module

    def entry(self, symbol: str) -> CpuEntry:
        fn = cpu_jit.entry_function(self.module.address(symbol))
        # the code lives as long as a handle to it (an attribute on the ctypes function object)
        fn._wp_module = self.module  # type: ignore[attr-defined]
        return CpuEntry(fn, symbol)


class CpuTarget(Target):
    """Host CPU: llvmlite object code, ORC JIT loading, thread-pool launches, NumPy-backed memory."""

    name = "cpu"
    entry_variants = True

    def device_count(self) -> int:
        return 1

    # -- lowering --------------------------------------------------------------------------
    def emit_printf(self, ctx: LowerContext, fmt: ir.Value, args: Sequence[ir.Value]) -> None:
        printf = ctx.declare("printf", lt.I32, [lt.PTR], var_arg=True)
        ctx.builder.call(printf, [fmt, *args])

    def finish_module(self, module: ir.Module) -> None:
        legalize_half_conversions(module)  # no compiler-runtime helpers for float16 conversions here

    # -- code ------------------------------------------------------------------------------
    def fingerprint(self, device: Any) -> str:
        return cpu_jit.target_fingerprint()

    def define_entry(
        self, module: ir.Module, name: str, body: ir.Function, kernel_ir: wir.Function,
        options: CompileOptions, *, contiguous: bool, variant: EntryVariant | None = None,
    ) -> None:
        define_entry(module, name, body, kernel_ir, options, contiguous=contiguous, variant=variant)

    def compile(
        self, llvm_ir: str, *, name: str, options: CompileOptions, device: Any = None,
        store: CodeStore | None = None,
    ) -> bytes:
        return cpu_jit.compile_ir(llvm_ir, opt_level=options.optimization_level, name=name)

    def load(
        self, code: bytes, symbols: list[str], *, name: str, device: Any, store: CodeStore | None = None
    ) -> CpuLoadedCode:
        return CpuLoadedCode(cpu_jit.load_object(code, symbols, name=name))

    def load_many(
        self, items: Sequence[tuple[bytes, list[str], str]], *, device: Any, store: CodeStore | None = None
    ) -> list[LoadedCode]:
        """All objects linked into one JIT library (one link instead of one per kernel); their
        code stays loaded while any of the returned handles is referenced."""
        if len(items) < 2:
            return [self.load(code, symbols, name=name, device=device) for code, symbols, name in items]
        symbols = [s for _, entry_symbols, _ in items for s in entry_symbols]
        module = cpu_jit.load_objects([code for code, _, _ in items], symbols, name=items[0][2])
        return [CpuLoadedCode(module) for _ in items]

    def __init__(self) -> None:
        self.recorder = CommandRecorder()

    def runner(self, device: Any, entry: CpuEntry) -> Any:
        # one-thread launches call the entry without ctypes' per-call conversion of the arguments
        # (bytes pass as char*; prebuilt int64 objects): 0.2 us instead of 0.4 us per call
        address = ctypes.cast(entry.fn, ctypes.c_void_p).value
        assert address is not None  # an entry resolved from loaded code
        untyped = _UntypedEntry(address)
        zero, one = _INT64_0, _INT64_1
        launch = self.launch
        capturing = self.recorder.active  # empty unless some thread captures

        def run(args: bytes, n: int, stream: Any = None, keep: Any = None, shape: Any = None) -> None:
            if n == 1 and not capturing:
                untyped(args, zero, one)
            else:
                launch(device, entry, args, n, stream, keep)

        return run

    def launch(
        self, device: Any, entry: CpuEntry, args: bytes, n: int, stream: Any = None, keep: Any = None
    ) -> None:
        if self.recorder.active and self.recorder.record(
            device, "launch", functools.partial(self.run_now, entry, args, n), (args, keep), entry.symbol
        ):
            return
        self.run_now(entry, args, n)

    def run_now(self, entry: CpuEntry, args: bytes, n: int) -> None:
        """Run ``entry`` over ``[0, n)`` now: serially or on the pool, by the estimated work."""
        if n < 2:
            if n == 1:
                entry.fn(args, 0, 1)
            return
        if n >= config.cpu_parallel_min_dim:
            thread_pool.parallel_for(entry.fn, args, n, min_parallel=0)
            return
        per_item = entry.seconds_per_item
        fn = entry.fn
        if per_item is None:
            if n < PROBE_FRACTION * PROBE_MIN_ITEMS:  # too small to probe: run it whole, timed
                t0 = time.perf_counter()
                fn(args, 0, n)
                _update_cost(entry, None, (time.perf_counter() - t0) / n)
                return
            self._probe_then_run(entry, args, n, thread_pool.configured_threads() > 1)
            return
        # (the thread count, a system call, is asked only for launches heavy enough to split)
        if n * per_item >= PARALLEL_MIN_WORK_S and thread_pool.configured_threads() > 1:
            # Known to be heavy: run on the pool. Every REPROBE_EVERY-th such launch measures a probe
            # first, so a kernel whose work per thread shrank (or a timing spike) goes serial again.
            entry.heavy_launches += 1
            if entry.heavy_launches % REPROBE_EVERY == 0:
                self._probe_then_run(entry, args, n, True)
            else:
                thread_pool.parallel_for(fn, args, n, min_parallel=0)
            return
        t0 = time.perf_counter()
        fn(args, 0, n)
        _update_cost(entry, per_item, (time.perf_counter() - t0) / n)

    @staticmethod
    def _probe_then_run(entry: CpuEntry, args: bytes, n: int, parallel: bool) -> None:
        """Time the first ``n // PROBE_FRACTION`` threads here, then run the rest serially or on the pool."""
        fn = entry.fn
        probe = max(1, n // PROBE_FRACTION)
        t0 = time.perf_counter()
        fn(args, 0, probe)
        per_item = (time.perf_counter() - t0) / probe
        entry.seconds_per_item = per_item
        if parallel and (n - probe) * per_item >= PARALLEL_MIN_WORK_S:
            thread_pool.parallel_for(fn, args, n - probe, start=probe, min_parallel=0)
        elif probe < n:
            fn(args, probe, n)

    def flush_output(self, device: Any) -> None:
        cpu_jit.flush_c_stdout()

    # -- graph capture: the calling thread's work on the CPU is recorded as host commands ------
    def capture_begin(self, device: Any, stream: Any = None) -> None:
        self.recorder.begin(device)

    def capture_end(self, device: Any, stream: Any = None) -> CommandList:
        return self.recorder.end(device)

    def capture_resume(self, device: Any, commands: CommandList, stream: Any = None) -> None:
        self.recorder.begin(device, commands)

    def capture_replay(self, commands: CommandList, stream: Any = None) -> None:
        self.recorder.replay(commands)

    def capture_host_callback(self, device: Any, fn: Any, stream: Any = None) -> None:
        if not self.recorder.record(device, "host", fn):
            raise RuntimeError(f"no graph capture is active on device '{device}' in this thread")

    def is_capturing(self, device: Any, stream: Any = None) -> bool:
        return self.recorder.current(device) is not None

    # -- memory ----------------------------------------------------------------------------
    def allocate(self, device: Any, nbytes: int, *, zero: bool = False, pinned: bool = False) -> Allocation:
        nbytes = int(nbytes)
        buf = (np.zeros if zero else np.empty)(nbytes + ALIGNMENT, dtype=np.uint8)
        base = buf.__array_interface__["data"][0]
        return Allocation(base + (-base) % ALIGNMENT, nbytes, device, owner=buf)

    def copy(
        self, dst: int, dst_device: Any, src: int, src_device: Any, nbytes: int, stream: Any = None,
        keep: Any = None,
    ) -> None:
        for d in (dst_device, src_device):
            if not getattr(d, "is_cpu", False):
                raise RuntimeError(f"the CPU target cannot copy memory of device '{d}'")
        if nbytes <= 0:
            return
        run = functools.partial(ctypes.memmove, dst, src, nbytes)
        if not (self.recorder.active and self.recorder.record(dst_device, "copy", run, keep)):
            run()

    def memset(
        self, device: Any, ptr: int, value: int, nbytes: int, stream: Any = None, keep: Any = None
    ) -> None:
        if nbytes <= 0:
            return
        run = functools.partial(ctypes.memset, ptr, int(value) & 0xFF, nbytes)
        if not (self.recorder.active and self.recorder.record(device, "memset", run, keep)):
            run()

    def fill(
        self, device: Any, ptr: int, pattern: bytes, count: int, stream: Any = None, keep: Any = None
    ) -> None:
        if count <= 0 or not pattern:
            return
        run = _filler(ptr, bytes(pattern), count)
        if not (self.recorder.active and self.recorder.record(device, "fill", run, keep)):
            run()


_WORDS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _filler(ptr: int, pattern: bytes, count: int) -> Any:
    """A callable writing ``count`` copies of ``pattern`` from ``ptr`` (built once: a recorded
    fill replays at the cost of one call). A pattern of identical bytes is a ``memset``; a 1, 2, 4
    or 8-byte aligned one a NumPy ``fill`` of a word view (a byte-wise broadcast is ~100x slower)."""
    size = len(pattern)
    if pattern == pattern[:1] * size:
        return functools.partial(ctypes.memset, ptr, pattern[0], size * count)
    raw = np.ctypeslib.as_array((ctypes.c_uint8 * (size * count)).from_address(ptr))
    word = _WORDS.get(size)
    if word is not None and ptr % size == 0:
        return functools.partial(raw.view(word).fill, np.frombuffer(pattern, dtype=word)[0])
    rows, source = raw.reshape(count, size), np.frombuffer(pattern, dtype=np.uint8)
    return functools.partial(np.copyto, rows, source)
