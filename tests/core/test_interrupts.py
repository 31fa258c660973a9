"""Ctrl-C (KeyboardInterrupt) during a parallel CPU launch: the launch must not return to Python
while a worker thread still runs the kernel (it could write into arrays being freed)."""

from __future__ import annotations

import signal
import threading
import time

import numpy as np
import pytest
import warp as wp
from warp.targets.cpu import thread_pool


@wp.kernel
def spin_then_mark(stop: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32), half: int):
    i = wp.tid()
    if i >= half:  # the worker's half spins until told to stop; the caller's half returns at once
        while wp.atomic_add(stop, 0, 0) == 0:
            pass
    out[i] = 1


@pytest.fixture
def two_threads_small_pieces(monkeypatch):
    saved = (wp.config.cpu_threads, wp.config.cpu_parallel_min_dim)
    wp.config.cpu_threads = 2
    wp.config.cpu_parallel_min_dim = 2
    monkeypatch.setattr(thread_pool, "PIECE", 64)
    # A process started in the background by a non-interactive shell inherits SIGINT as ignored
    # (Python then installs no KeyboardInterrupt handler): make Ctrl-C raise as in a terminal.
    saved_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, saved_handler)
    wp.config.cpu_threads, wp.config.cpu_parallel_min_dim = saved


def test_interrupted_launch_returns_only_after_workers_stopped(two_threads_small_pieces):
    assert threading.current_thread() is threading.main_thread()
    n = 4096
    stop = wp.zeros(1, dtype=wp.int32)
    out = wp.zeros(n, dtype=wp.int32)
    wp.launch(spin_then_mark, dim=n, inputs=[wp.ones(1, dtype=wp.int32), out, n // 2])  # compile, warm up
    out.zero_()
    released_at: list[float] = []

    def release_workers() -> None:
        time.sleep(1.2)
        released_at.append(time.perf_counter())
        stop.numpy()[0] = 1

    main = threading.main_thread().ident
    interrupter = threading.Timer(0.5, signal.pthread_kill, args=(main, signal.SIGINT))  # Ctrl-C
    releaser = threading.Thread(target=release_workers)
    interrupter.start()
    releaser.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            wp.launch(spin_then_mark, dim=n, inputs=[stop, out, n // 2])
            time.sleep(5)  # not reached when the launch is interrupted as it should be
        raised_at = time.perf_counter()
    finally:
        interrupter.cancel()
        stop.numpy()[0] = 1  # never leave a worker spinning
        releaser.join()
    assert released_at and raised_at >= released_at[0], "the launch returned while a worker was still running"
    snapshot = out.numpy().copy()
    time.sleep(0.2)
    np.testing.assert_array_equal(out.numpy(), snapshot)  # nothing writes any more
    assert snapshot[: n // 2].all()  # the caller's chunk completed before the interrupt was seen
    # the worker stopped at a piece boundary after being released: the rest of its chunk was cancelled
    assert snapshot[n // 2] == 1 and not snapshot[-1]


def test_pool_works_after_an_interrupt(two_threads_small_pieces):
    out = wp.zeros(1000, dtype=wp.int32)
    stop = wp.ones(1, dtype=wp.int32)
    wp.launch(spin_then_mark, dim=1000, inputs=[stop, out, 500])
    assert out.numpy().all()


def test_interrupt_between_pieces_of_callers_chunk_cancels_workers(monkeypatch):
    """An interrupt raised while the caller runs its own chunk stops queued chunks from starting."""
    ran: list[tuple[int, int]] = []
    gate = threading.Event()

    def fn(args, lo, hi):
        if lo == 0:
            gate.wait(5)
            raise KeyboardInterrupt  # what a Ctrl-C between the caller's pieces looks like
        ran.append((lo, hi))

    monkeypatch.setattr(thread_pool, "PIECE", 10)
    pool = thread_pool.ThreadPool()
    try:
        gate.set()
        with pytest.raises(KeyboardInterrupt):
            pool.parallel_for(fn, b"", 100, threads=2, min_parallel=0)
        done = list(ran)
        time.sleep(0.1)
        assert ran == done  # nothing ran after the call returned
    finally:
        pool.shutdown()
