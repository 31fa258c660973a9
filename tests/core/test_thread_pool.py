"""Tests of warp.targets.cpu.thread_pool.parallel_for."""

from __future__ import annotations

import struct
import threading

import numpy as np
import pytest
import warp.config
from warp.targets.cpu import jit as cpu_jit, thread_pool
from warp.targets.cpu.thread_pool import parallel_for

# counts[i] += 1 (atomically) for i in [start, end); args: i32* counts at 0.
COUNT_IR = r"""
define void @entry(ptr %args, i64 %start, i64 %end) {
entry:
  %counts = load ptr, ptr %args
  %nonempty = icmp slt i64 %start, %end
  br i1 %nonempty, label %loop, label %exit
loop:
  %i = phi i64 [ %start, %entry ], [ %next, %loop ]
  %p = getelementptr i32, ptr %counts, i64 %i
  %old = atomicrmw add ptr %p, i32 1 monotonic
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %end
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
"""

# *total += x[i] for i in [start, end) with atomicrmw fadd; args: float* x at 0, float* total at 8.
SUM_IR = r"""
define void @entry(ptr %args, i64 %start, i64 %end) {
entry:
  %x = load ptr, ptr %args
  %tp = getelementptr i8, ptr %args, i64 8
  %total = load ptr, ptr %tp
  %nonempty = icmp slt i64 %start, %end
  br i1 %nonempty, label %loop, label %exit
loop:
  %i = phi i64 [ %start, %entry ], [ %next, %loop ]
  %px = getelementptr float, ptr %x, i64 %i
  %v = load float, ptr %px
  %old = atomicrmw fadd ptr %total, float %v monotonic
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %end
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
"""


@pytest.fixture(scope="module")
def count_fn():
    module = cpu_jit.load_object(cpu_jit.compile_ir(COUNT_IR), ["entry"])
    fn = cpu_jit.entry_function(module.address("entry"))
    fn.module = module  # keep the code alive
    return fn


@pytest.fixture(scope="module")
def sum_fn():
    module = cpu_jit.load_object(cpu_jit.compile_ir(SUM_IR), ["entry"])
    fn = cpu_jit.entry_function(module.address("entry"))
    fn.module = module
    return fn


@pytest.fixture(autouse=True)
def restore_config():
    saved = (warp.config.cpu_threads, warp.config.cpu_parallel_min_dim)
    yield
    warp.config.cpu_threads, warp.config.cpu_parallel_min_dim = saved


class Recorder:
    """A Python callable recording the chunks it is called with."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: list[tuple[int, int, str]] = []

    def __call__(self, args, start: int, end: int) -> None:
        with self.lock:
            self.calls.append((start, end, threading.current_thread().name))


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 1000, 100_003])
@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_chunks_cover_range_exactly_once(n, threads):
    rec = Recorder()
    parallel_for(rec, b"", n, threads=threads, min_parallel=0)
    spans = sorted((s, e) for s, e, _ in rec.calls)
    assert len(spans) == min(threads, n)
    assert spans[0][0] == 0 and spans[-1][1] == n
    for (s0, e0), (s1, _) in zip(spans, spans[1:], strict=False):
        assert s0 < e0 == s1
    sizes = [e - s for s, e in spans]
    assert max(sizes) - min(sizes) <= 1


def test_jit_counters_each_index_once(count_fn):
    n = 1_000_003
    counts = np.zeros(n, dtype=np.int32)
    args = struct.pack("<Q", counts.ctypes.data)
    parallel_for(count_fn, args, n, threads=4, min_parallel=0)
    assert (counts == 1).all()


def test_parallel_atomic_sum(sum_fn):
    n = 200_000
    x = np.ones(n, dtype=np.float32)
    total = np.zeros(1, dtype=np.float32)
    parallel_for(sum_fn, struct.pack("<QQ", x.ctypes.data, total.ctypes.data), n, threads=4, min_parallel=0)
    assert total[0] == n  # exact: integers below 2**24


def test_small_launch_runs_inline():
    warp.config.cpu_parallel_min_dim = 100
    rec = Recorder()
    parallel_for(rec, b"", 99, threads=4)
    assert rec.calls == [(0, 99, threading.current_thread().name)]
    rec = Recorder()
    parallel_for(rec, b"", 100, threads=4)
    assert len(rec.calls) == 4


def test_zero_size_launch_calls_nothing():
    rec = Recorder()
    parallel_for(rec, b"", 0, min_parallel=0)
    assert rec.calls == []


def test_caller_runs_first_chunk():
    rec = Recorder()
    parallel_for(rec, b"", 100, threads=3, min_parallel=0)
    mine = [c for c in rec.calls if c[2] == threading.current_thread().name]
    assert [(s, e) for s, e, _ in mine] == [(0, 34)]


def test_pool_follows_config():
    pool = thread_pool.ThreadPool()
    try:
        warp.config.cpu_threads = 4
        pool.parallel_for(Recorder(), b"", 1000, min_parallel=0)
        assert pool.size == 3
        warp.config.cpu_threads = 2
        rec = Recorder()
        pool.parallel_for(rec, b"", 1000, min_parallel=0)
        assert pool.size == 1 and len(rec.calls) == 2
        warp.config.cpu_threads = None
        pool.parallel_for(Recorder(), b"", 1000, min_parallel=0)
        assert pool.size == thread_pool.available_cores() - 1
    finally:
        pool.shutdown()


def test_concurrent_callers(count_fn):
    n = 300_001
    arrays = [np.zeros(n, dtype=np.int32) for _ in range(6)]
    errors: list[BaseException] = []

    def work(counts: np.ndarray) -> None:
        try:
            for _ in range(5):
                parallel_for(count_fn, struct.pack("<Q", counts.ctypes.data), n, threads=3, min_parallel=0)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(a,)) for a in arrays]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for a in arrays:
        assert (a == 5).all()


def test_concurrent_callers_while_config_changes():
    errors: list[BaseException] = []
    stop = threading.Event()

    def work() -> None:
        try:
            while not stop.is_set():
                rec = Recorder()
                parallel_for(rec, b"", 1000, min_parallel=0)
                assert sum(e - s for s, e, _ in rec.calls) == 1000
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for k in range(50):
        warp.config.cpu_threads = 1 + k % 5
    stop.set()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors


def test_worker_exception_propagates():
    def fn(args, start, end):
        if start > 0:
            raise ValueError(f"bad chunk {start}")

    with pytest.raises(ValueError, match="bad chunk"):
        parallel_for(fn, b"", 100, threads=4, min_parallel=0)
    # The pool still works afterwards.
    rec = Recorder()
    parallel_for(rec, b"", 100, threads=4, min_parallel=0)
    assert len(rec.calls) == 4


def test_caller_exception_propagates_after_workers_finish():
    finished = []

    def fn(args, start, end):
        if start == 0:
            raise RuntimeError("caller chunk failed")
        finished.append(start)

    with pytest.raises(RuntimeError, match="caller chunk failed"):
        parallel_for(fn, b"", 100, threads=4, min_parallel=0)
    assert len(finished) == 3


def test_nested_call_from_worker_runs_inline():
    inner: list[tuple[int, int]] = []

    def outer(args, start, end):
        if start > 0:
            parallel_for(lambda a, s, e: inner.append((s, e)), b"", 10, threads=4, min_parallel=0)

    parallel_for(outer, b"", 100, threads=2, min_parallel=0)
    assert inner == [(0, 10)]


def test_invalid_threads():
    with pytest.raises(ValueError):
        parallel_for(Recorder(), b"", 100, threads=0, min_parallel=0)


def test_cpu_threads_is_capped_with_a_warning():
    cap = thread_pool.max_threads()
    assert cap >= 64 and cap >= 4 * thread_pool.available_cores()
    warp.config.cpu_threads = 10**6
    with pytest.warns(RuntimeWarning, match=f"cpu_threads = 1000000 is more than the limit of {cap}"):
        assert thread_pool.configured_threads() == cap
    pool = thread_pool.ThreadPool()
    try:
        rec = Recorder()
        pool.parallel_for(rec, b"", 10**6, min_parallel=0)
        assert pool.size == cap - 1 and len(rec.calls) == cap  # not a million threads
    finally:
        pool.shutdown()


@pytest.mark.parametrize("value", [0, -3, 2.5, "4", True])
def test_invalid_cpu_threads_raise(value):
    warp.config.cpu_threads = value
    with pytest.raises((ValueError, TypeError), match="cpu_threads must be"):
        thread_pool.configured_threads()


def test_numpy_integer_cpu_threads():
    warp.config.cpu_threads = np.int64(3)
    assert thread_pool.configured_threads() == 3
