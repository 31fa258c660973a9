"""A persistent pool of worker threads that runs a kernel entry over chunks of a launch range.

``parallel_for(fn, args, n)`` splits ``[0, n)`` into contiguous chunks, one per thread; the calling
thread runs the first chunk itself and the pool's workers run the others. ``fn`` is normally a
ctypes function of a JIT'd kernel entry (ctypes releases the GIL, so chunks run in parallel).

Each worker owns a ``SimpleQueue`` of tasks; each call tracks its own chunks, so concurrent calls
from several Python threads only wait for their own work. Idle workers block on their queue (no
spinning). The pool is created on first use, sized from ``warp.config.cpu_threads`` (default: the
cores this process may run on; values above :func:`max_threads` are clamped with a warning) and
follows changes of that setting at the next call.

A call never returns (or raises) while one of its chunks is still running, because the chunks use
memory the caller may free right after. When the calling thread is interrupted (Ctrl-C raises
``KeyboardInterrupt`` while it waits, or between pieces of its own chunk), the call cancels the
chunks that have not started, lets running ones stop at their next piece boundary (chunks run in
pieces of :data:`PIECE` threads), waits for them, and then re-raises.
"""

from __future__ import annotations

import os
import threading
import warnings
from queue import SimpleQueue
from typing import Any, Callable

import warp.config

_STOP = object()

#: Chunks run in pieces of at most this many threads; cancellation takes effect between pieces.
PIECE = 1 << 18


def available_cores() -> int:
    """Cores this process may run on (``os.sched_getaffinity``, else ``os.cpu_count``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def max_threads() -> int:
    """The most threads a launch uses: 4 per available core, and at least 64."""
    return max(64, 4 * available_cores())


_warned_for: Any = None


def configured_threads() -> int:
    """Threads used for CPU launches: ``warp.config.cpu_threads`` or :func:`available_cores`.

    Values above :func:`max_threads` are clamped to it (with a ``RuntimeWarning`` once per value);
    values that are not positive integers raise.
    """
    global _warned_for
    n = warp.config.cpu_threads
    if n is None:
        return available_cores()
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"warp.config.cpu_threads must be a positive int or None, got {n!r}")
    n = n.__index__()
    if n < 1:
        raise ValueError(f"warp.config.cpu_threads must be >= 1 or None, got {n}")
    cap = max_threads()
    if n > cap:
        if _warned_for != n:
            _warned_for = n
            warnings.warn(
                f"warp.config.cpu_threads = {n} is more than the limit of {cap} threads "
                f"(4 per available core, at least 64); using {cap}",
                RuntimeWarning,
                stacklevel=3,
            )
        return cap
    return n


class _Call:
    """Progress of the worker chunks of one ``parallel_for`` call."""

    __slots__ = ("cond", "started", "finished", "cancelled", "error")

    def __init__(self) -> None:
        self.cond = threading.Condition(threading.Lock())
        self.started = 0
        self.finished = 0
        self.cancelled = False
        self.error: BaseException | None = None


def _run_pieces(fn: Callable[[Any, int, int], Any], args: Any, lo: int, hi: int, call: _Call) -> None:
    """``fn`` over ``[lo, hi)`` in pieces of :data:`PIECE`, stopping early once ``call`` is cancelled."""
    while lo < hi:
        end = min(hi, lo + PIECE)
        fn(args, lo, end)
        lo = end
        if call.cancelled:
            return


class _Worker:
    """One daemon thread executing ``(fn, args, lo, hi, call)`` tasks from its own queue."""

    def __init__(self, index: int):
        self.tasks: SimpleQueue = SimpleQueue()
        self.thread = threading.Thread(target=self._run, name=f"warp-cpu-worker-{index}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        _local.is_worker = True
        tasks = self.tasks
        while True:
            task = tasks.get()
            if task is _STOP:
                return
            fn, args, lo, hi, call = task
            del task
            with call.cond:
                skip = call.cancelled
                if not skip:
                    call.started += 1
            if not skip:
                try:
                    _run_pieces(fn, args, lo, hi, call)
                except BaseException as e:  # reported to the launching thread
                    if call.error is None:
                        call.error = e
                finally:
                    with call.cond:
                        call.finished += 1
                        call.cond.notify_all()
            del fn, args, call


_local = threading.local()


class ThreadPool:
    """Worker threads for :meth:`parallel_for`; the calling thread always takes part."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        self._next_index = 0

    @property
    def size(self) -> int:
        """Number of worker threads (excluding callers)."""
        return len(self._workers)

    def _submit(self, tasks: list[tuple], keep: int | None) -> None:
        """Queue one task per worker, growing the pool first (and shrinking it to ``keep`` workers
        when ``keep`` is given).

        Runs under the pool lock so that a concurrent shrink never queues a stop marker ahead of a
        task already assigned to that worker.
        """
        need = len(tasks)
        with self._lock:
            workers = self._workers
            if len(workers) < need:
                for _ in range(need - len(workers)):
                    workers.append(_Worker(self._next_index))
                    self._next_index += 1
            elif keep is not None and len(workers) > max(keep, need):
                need = max(keep, need)
                # Tasks already queued on those workers still run: the stop marker is queued behind them.
                for w in workers[need:]:
                    w.tasks.put(_STOP)
                del workers[need:]
            for w, task in zip(workers, tasks, strict=False):
                w.tasks.put(task)

    def shutdown(self) -> None:
        """Stop all workers (after their pending tasks); the pool restarts on the next call."""
        with self._lock:
            for w in self._workers:
                w.tasks.put(_STOP)
            self._workers = []

    def parallel_for(
        self,
        fn: Callable[[Any, int, int], Any],
        args: Any,
        n: int,
        *,
        threads: int | None = None,
        min_parallel: int | None = None,
        start: int = 0,
    ) -> None:
        """Call ``fn(args, lo, hi)`` over contiguous chunks covering ``[start, start + n)`` exactly once.

        ``threads`` overrides the thread count (default :func:`configured_threads`); launches with
        ``n < min_parallel`` (default ``warp.config.cpu_parallel_min_dim``) run inline as a single
        call, as do calls made from a pool worker. The first exception raised by a chunk is
        re-raised here after all chunks of this call have finished; an interruption of the calling
        thread stops the chunks early (see the module docstring) and is re-raised after they stopped.
        """
        n = int(n)
        if n <= 0:
            return
        if min_parallel is None:
            min_parallel = warp.config.cpu_parallel_min_dim
        if n < min_parallel or getattr(_local, "is_worker", False):
            fn(args, start, start + n)
            return
        configured = configured_threads()
        count = configured if threads is None else int(threads)
        if count < 1:
            raise ValueError(f"threads must be >= 1, got {count}")
        count = min(count, n)
        if count == 1:
            if threads is None and self._workers:
                self._submit([], keep=configured - 1)  # follow a config change down to one thread
            fn(args, start, start + n)
            return

        base, extra = divmod(n, count)
        # Chunk k covers [bounds[k], bounds[k + 1]); the first `extra` chunks get one more index.
        bounds = [start + k * base + min(k, extra) for k in range(count + 1)]
        call = _Call()
        tasks = [(fn, args, bounds[k], bounds[k + 1], call) for k in range(1, count)]
        error: BaseException | None = None
        submitted = False
        try:
            self._submit(tasks, keep=configured - 1 if threads is None else None)
            submitted = True
            _run_pieces(fn, args, bounds[0], bounds[1], call)
        except BaseException as e:
            error = e
        # An error of the caller's own chunk lets the others finish; an interruption (Ctrl-C) or a
        # failure while queueing cancels what has not started.
        interrupted = error is not None and (not submitted or not isinstance(error, Exception))
        self._wait(call, None if interrupted else len(tasks))
        if error is None:
            error = call.error
        if error is not None:
            raise error

    @staticmethod
    def _wait(call: _Call, expected: int | None) -> None:
        """Wait until ``expected`` worker chunks finished, or, when ``expected`` is None (the call was
        interrupted) or an interruption arrives while waiting, until no chunk of ``call`` runs any more.

        An interruption received here is re-raised once nothing runs.
        """
        interrupt: BaseException | None = None
        while True:
            try:
                with call.cond:
                    if expected is None:
                        call.cancelled = True  # queued chunks that have not started are skipped
                        while call.started != call.finished:
                            call.cond.wait()
                    else:
                        while call.finished != expected:
                            call.cond.wait()
                break
            except BaseException as e:  # KeyboardInterrupt (Ctrl-C) while waiting: cancel, keep waiting
                interrupt = interrupt or e
                expected = None
        if interrupt is not None:
            raise interrupt


_pool_lock = threading.Lock()
_pool: ThreadPool | None = None


def get_pool() -> ThreadPool:
    """The process-wide pool (created on first use)."""
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPool()
    return _pool


def parallel_for(
    fn: Callable[[Any, int, int], Any],
    args: Any,
    n: int,
    *,
    threads: int | None = None,
    min_parallel: int | None = None,
    start: int = 0,
) -> None:
    """Run ``fn(args, lo, hi)`` over ``[start, start + n)`` on the process-wide pool.

    See :meth:`ThreadPool.parallel_for`.
    """
    get_pool().parallel_for(fn, args, n, threads=threads, min_parallel=min_parallel, start=start)


def _reset_after_fork() -> None:
    # Worker threads do not survive fork(); the child starts a fresh pool on demand.
    global _pool, _pool_lock
    _pool_lock = threading.Lock()
    _pool = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)
