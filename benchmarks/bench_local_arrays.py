"""Local vectors/matrices indexed at runtime indices: a traversal stack (also as a kernel-local
``wp.zeros`` array), a local histogram, a matrix updated at computed (row, column) positions;
each beside NumPy.

    python benchmarks/bench_local_arrays.py [--n 200000] [--runs 7]

Such locals are kept in one stack slot and read/written one component at a time
(warp/compiler/lowering/local_memory.py); lowered as SSA aggregates instead, every write at a
runtime index copies the whole value (64 ints for the stack). Figures are the median wall time
of ``--runs`` launches and the median process CPU time (all threads) of the same launches, on a
shared 2-core machine: noisy. No targets: compare before/after a change.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, result  # noqa: E402

import warp as wp  # noqa: E402

stack64 = wp.types.vector(length=64, dtype=wp.int32)
hist16 = wp.types.vector(length=16, dtype=wp.float32)

LEAVES = 1 << 12  # segment tree over 4096 values: nodes 1..8191, leaf k at node LEAVES + k


@wp.kernel
def tree_count(lo: wp.array(dtype=wp.float32), hi: wp.array(dtype=wp.float32),
               qlo: wp.array(dtype=wp.float32), qhi: wp.array(dtype=wp.float32),
               out: wp.array(dtype=wp.int32)):
    """Leaves whose value lies in [qlo, qhi]: depth-first with an explicit stack, pruning subtrees."""
    i = wp.tid()
    a = qlo[i]
    b = qhi[i]
    stack = stack64()
    stack[0] = 1
    sp = int(1)
    found = int(0)
    while sp > 0:
        sp -= 1
        node = stack[sp]
        if lo[node] <= b and hi[node] >= a:
            if node >= 4096:
                found += 1
            else:
                stack[sp] = 2 * node + 1
                stack[sp + 1] = 2 * node
                sp += 2
    out[i] = found


@wp.kernel
def tree_count_fixed(lo: wp.array(dtype=wp.float32), hi: wp.array(dtype=wp.float32),
                     qlo: wp.array(dtype=wp.float32), qhi: wp.array(dtype=wp.float32),
                     out: wp.array(dtype=wp.int32)):
    """``tree_count`` with the stack as a kernel-local array, ``wp.zeros(64, dtype=int)``."""
    i = wp.tid()
    a = qlo[i]
    b = qhi[i]
    stack = wp.zeros(64, dtype=wp.int32)
    stack[0] = 1
    sp = int(1)
    found = int(0)
    while sp > 0:
        sp -= 1
        node = stack[sp]
        if lo[node] <= b and hi[node] >= a:
            if node >= 4096:
                found += 1
            else:
                stack[sp] = 2 * node + 1
                stack[sp + 1] = 2 * node
                sp += 2
    out[i] = found


@wp.kernel
def local_histogram(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.int32)):
    """Most frequent of 16 bins among 64 samples per thread."""
    i = wp.tid()
    h = hist16()
    for k in range(64):
        v = x[(i * 64 + k) % x.shape[0]]
        b = wp.min(int(v * 16.0), 15)
        h[b] += 1.0
    best = int(0)
    for b in range(16):
        if h[b] > h[best]:
            best = b
    out[i] = best


@wp.kernel
def scatter_matrix(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.mat44)):
    """A 4x4 matrix accumulated at data-dependent (row, column) positions."""
    i = wp.tid()
    m = wp.mat44()
    for k in range(32):
        v = x[(i * 32 + k) % x.shape[0]]
        r = int(v * 4.0) % 4
        c = (k + r) % 4
        m[r, c] = m[r, c] + v
    out[i] = m


def tree_arrays(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lo = np.zeros(2 * LEAVES, np.float32)
    hi = np.zeros(2 * LEAVES, np.float32)
    lo[LEAVES:], hi[LEAVES:] = values, values
    for node in range(LEAVES - 1, 0, -1):
        lo[node] = min(lo[2 * node], lo[2 * node + 1])
        hi[node] = max(hi[2 * node], hi[2 * node + 1])
    return lo, hi


def measure(launch, runs: int) -> tuple[float, float]:
    """(median wall s, median process CPU s) of ``runs`` launches after one warm-up."""
    launch()
    wp.synchronize()
    walls, cpus = [], []
    for _ in range(runs):
        c0, t0 = time.process_time(), time.perf_counter()
        launch()
        wp.synchronize()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print(machine_info())
    wp.config.quiet = True
    rng = np.random.default_rng(1)
    n = args.n

    values = np.sort(rng.uniform(0.0, 1.0, LEAVES)).astype(np.float32)
    lo, hi = tree_arrays(values)
    qa = rng.uniform(0.0, 1.0, n).astype(np.float32)
    qb = (qa + rng.uniform(0.0, 0.01, n)).astype(np.float32)
    w = [wp.array(a) for a in (lo, hi, qa, qb)]
    found = wp.zeros(n, dtype=wp.int32)
    wall, cpu = measure(lambda: wp.launch(tree_count, dim=n, inputs=[*w, found]), args.runs)
    t0 = time.perf_counter()
    ref = np.searchsorted(values, qb, side="right") - np.searchsorted(values, qa, side="left")
    t_np = time.perf_counter() - t0
    assert np.array_equal(found.numpy(), ref), "tree_count differs from NumPy"
    print(f"stack traversal, {n} queries (mean {ref.mean():.1f} hits): {wall * 1e3:.2f} ms wall, "
          f"{cpu * 1e3:.2f} ms CPU; NumPy searchsorted {t_np * 1e3:.2f} ms")
    result("local_stack_traversal", wall, "s", None)
    result("local_stack_traversal_cpu", cpu, "s", None)
    found.zero_()
    wall, cpu = measure(lambda: wp.launch(tree_count_fixed, dim=n, inputs=[*w, found]), args.runs)
    assert np.array_equal(found.numpy(), ref), "tree_count_fixed differs from NumPy"
    print(f"same with a wp.zeros(64) local array: {wall * 1e3:.2f} ms wall, {cpu * 1e3:.2f} ms CPU")
    result("local_fixedarray_traversal", wall, "s", None)
    result("local_fixedarray_traversal_cpu", cpu, "s", None)

    x = rng.uniform(0.0, 1.0, 1 << 16).astype(np.float32)
    wx, best = wp.array(x), wp.zeros(n, dtype=wp.int32)
    wall, cpu = measure(lambda: wp.launch(local_histogram, dim=n, inputs=[wx, best]), args.runs)
    idx = (np.arange(n)[:, None] * 64 + np.arange(64)[None, :]) % len(x)
    bins = np.minimum((x[idx] * 16.0).astype(np.int32), 15)
    counts = np.stack([(bins == b).sum(1) for b in range(16)], 1)
    assert np.array_equal(best.numpy(), counts.argmax(1)), "local_histogram differs from NumPy"
    print(f"local 16-bin histogram, {n} threads x 64 samples: {wall * 1e3:.2f} ms wall, "
          f"{cpu * 1e3:.2f} ms CPU")
    result("local_histogram", wall, "s", None)
    result("local_histogram_cpu", cpu, "s", None)

    mats = wp.zeros(n, dtype=wp.mat44)
    wall, cpu = measure(lambda: wp.launch(scatter_matrix, dim=n, inputs=[wx, mats]), args.runs)
    ref_m = np.zeros((n, 4, 4), np.float32)
    rows = np.arange(n)
    for k in range(32):
        v = x[(rows * 32 + k) % len(x)]
        r = (v * 4.0).astype(np.int32) % 4
        ref_m[rows, r, (k + r) % 4] += v
    assert np.allclose(mats.numpy(), ref_m, rtol=1e-6), "scatter_matrix differs from NumPy"
    print(f"matrix written at runtime (row, col), {n} threads x 32 updates: {wall * 1e3:.2f} ms wall, "
          f"{cpu * 1e3:.2f} ms CPU")
    result("local_matrix_scatter", wall, "s", None)
    result("local_matrix_scatter_cpu", cpu, "s", None)


if __name__ == "__main__":
    main()
