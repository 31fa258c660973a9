"""A persistent pool of worker threads that runs a kernel entry over chunks of a launch range.

``parallel_for(fn, args, n)`` splits ``[0, n)`` into contiguous chunks, one per thread; the calling
thread runs the first chunk itself and the pool's workers run the others. ``fn`` is normally a
ctypes function of a JIT'd kernel entry (ctypes releases the GIL, so chunks run in parallel).

Each worker owns a ``SimpleQueue`` of tasks; each call collects its own chunks' completions on a
private ``SimpleQueue``, so concurrent calls from several Python threads only wait for their own
work. Idle workers block on their queue (no spinning). The pool is created on first use, sized from
``warp.config.cpu_threads`` (default: the cores this process may run on) and follows changes of that
setting at the next call.
"""

from __future__ import annotations

import os
import threading
from queue import SimpleQueue
from typing import Any, Callable

import warp.config

_STOP = object()


def available_cores() -> int:
    """Cores this process may run on (``os.sched_getaffinity``, else ``os.cpu_count``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def configured_threads() -> int:
    """Threads used for CPU launches: ``warp.config.cpu_threads`` or :func:`available_cores`."""
    n = warp.config.cpu_threads
    if n is None:
        return available_cores()
    n = int(n)
    if n < 1:
        raise ValueError(f"warp.config.cpu_threads must be >= 1 or None, got {n}")
    return n


class _Worker:
    """One daemon thread executing ``(fn, args, start, end, done)`` tasks from its own queue."""

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
            fn, args, start, end, done = task
            try:
                fn(args, start, end)
            except BaseException as e:  # reported to the launching thread
                done.put(e)
            else:
                done.put(None)
            del task, fn, args, done


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
            for w, task in zip(workers, tasks):
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
        re-raised here after all chunks of this call have finished.
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

        done: SimpleQueue = SimpleQueue()
        base, extra = divmod(n, count)
        # Chunk k covers [bounds[k], bounds[k + 1]); the first `extra` chunks get one more index.
        bounds = [start + k * base + min(k, extra) for k in range(count + 1)]
        self._submit(
            [(fn, args, bounds[k], bounds[k + 1], done) for k in range(1, count)],
            keep=configured - 1 if threads is None else None,
        )

        error: BaseException | None = None
        try:
            fn(args, bounds[0], bounds[1])
        except BaseException as e:
            error = e
        # Always wait for every chunk: they use `args`, which the caller may free after returning.
        for _ in range(count - 1):
            result = done.get()
            if result is not None and error is None:
                error = result
        if error is not None:
            raise error


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
    """Run ``fn(args, lo, hi)`` over ``[start, start + n)`` on the process-wide pool (see :meth:`ThreadPool.parallel_for`)."""
    get_pool().parallel_for(fn, args, n, threads=threads, min_parallel=min_parallel, start=start)


def _reset_after_fork() -> None:
    # Worker threads do not survive fork(); the child starts a fresh pool on demand.
    global _pool, _pool_lock
    _pool_lock = threading.Lock()
    _pool = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)
