"""The CPU target decides parallelism from the work: a launch with few threads that each do a lot
goes to the thread pool, a cheap small launch stays on the calling thread."""

from __future__ import annotations

import numpy as np
import pytest
import warp as wp
from warp.targets.cpu import thread_pool
from warp.targets.cpu import target as cpu_target


@wp.kernel
def heavy_rows(x: wp.array(dtype=float), out: wp.array(dtype=float), inner: int):
    i = wp.tid()
    s = float(0.0)
    for k in range(inner):
        s += x[(i + k) % x.shape[0]]
    out[i] = s


@wp.kernel
def cheap(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] + 1.0


@pytest.fixture
def spy_pool(monkeypatch):
    calls: list[tuple[int, int]] = []
    real = thread_pool.parallel_for

    def spy(fn, args, n, **kw):
        calls.append((kw.get("start", 0), n))
        real(fn, args, n, **kw)

    monkeypatch.setattr(thread_pool, "parallel_for", spy)
    saved = wp.config.cpu_threads
    wp.config.cpu_threads = 2
    yield calls
    wp.config.cpu_threads = saved


def _reference(x: np.ndarray, n: int, inner: int) -> np.ndarray:
    idx = (np.arange(n)[:, None] + np.arange(inner)[None, :]) % x.size
    return x[idx].sum(axis=1)


def test_few_heavy_threads_run_in_parallel(spy_pool):
    n, inner = 2048, 20000  # 40M loads: far more than the pool's dispatch cost
    assert n < wp.config.cpu_parallel_min_dim
    x_np = np.random.default_rng(1).random(4096).astype(np.float32)
    x = wp.array(x_np)
    out = wp.zeros(n, dtype=float)
    wp.launch(heavy_rows, dim=n, inputs=[x, out, inner])
    # first launch: a probe of n/16 threads on the caller, then the rest on the pool
    probe = n // cpu_target.PROBE_FRACTION
    assert spy_pool == [(probe, n - probe)]
    np.testing.assert_allclose(out.numpy(), _reference(x_np, n, inner), rtol=1e-4)
    out.zero_()
    wp.launch(heavy_rows, dim=n, inputs=[x, out, inner])
    assert spy_pool[-1] == (0, n)  # known to be heavy: all of it on the pool
    np.testing.assert_allclose(out.numpy(), _reference(x_np, n, inner), rtol=1e-4)


def test_small_heavy_first_launch_runs_whole_then_parallel(spy_pool):
    n, inner = 64, 400_000  # too few threads to probe: the first launch is timed whole
    x_np = np.random.default_rng(2).random(1000).astype(np.float32)
    x = wp.array(x_np)
    out = wp.zeros(n, dtype=float)

    @wp.kernel
    def heavy_small(x: wp.array(dtype=float), out: wp.array(dtype=float), inner: int):
        i = wp.tid()
        s = float(0.0)
        for k in range(inner):
            s += x[(i + k) % x.shape[0]]
        out[i] = s

    wp.launch(heavy_small, dim=n, inputs=[x, out, inner])
    assert spy_pool == []
    wp.launch(heavy_small, dim=n, inputs=[x, out, inner])
    assert spy_pool == [(0, n)]
    np.testing.assert_allclose(out.numpy(), _reference(x_np, n, inner), rtol=1e-3)


def test_cheap_small_launches_stay_on_the_caller(spy_pool):
    x = wp.zeros(1000, dtype=float)
    # Warm up long enough for the steady state: a timing spike on a busy machine may mark the
    # kernel heavy for a while, until a re-probe (every REPROBE_EVERY pool launches) measures it again.
    warmup = 6 * cpu_target.REPROBE_EVERY
    for _ in range(warmup):
        wp.launch(cheap, dim=1000, inputs=[x])
    before = len(spy_pool)
    for _ in range(3):
        wp.launch(cheap, dim=1000, inputs=[x])
    assert len(spy_pool) == before
    np.testing.assert_array_equal(x.numpy(), np.full(1000, warmup + 3.0))


def test_single_thread_config_never_uses_the_pool(spy_pool):
    wp.config.cpu_threads = 1
    x = wp.array(np.ones(512, dtype=np.float32))
    out = wp.zeros(512, dtype=float)

    @wp.kernel
    def heavy_serial(x: wp.array(dtype=float), out: wp.array(dtype=float), inner: int):
        i = wp.tid()
        s = float(0.0)
        for k in range(inner):
            s += x[(i + k) % x.shape[0]]
        out[i] = s

    for _ in range(2):
        wp.launch(heavy_serial, dim=512, inputs=[x, out, 50000])
    assert spy_pool == []
    np.testing.assert_array_equal(out.numpy(), np.full(512, 50000.0))
