"""Graph capture on the CPU: per-operation cost of replaying a captured graph vs launching directly.

    python benchmarks/bench_capture.py [--ops 100] [--repeats 20]

A graph of ``--ops`` launches of a 3-argument kernel with dim=1 is recorded once with
``wp.ScopedCapture``; the figure is the median over repeats of the time per launch, for direct
``wp.launch`` calls and for ``wp.capture_launch`` of the graph (which skips argument checking and
packing). Both results are checked against each other.

A second graph mixes operations: per step a launch, a ``wp.copy`` (``--n`` floats), an
``array.zero_()`` and an ``array.fill_()``; the figure is the time per recorded operation, next
to the same sequence issued directly. ``--profile`` prints where a replay of it spends its time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import warp as wp  # noqa: E402
from _common import machine_info, result  # noqa: E402


@wp.kernel
def tiny(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32):
    i = wp.tid()
    y[i] = y[i] + a * x[i]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", type=int, default=100, help="launches per graph")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--profile", action="store_true", help="cProfile the mixed graph's replays")
    parser.add_argument("--n", type=int, default=64, help="array size (and launch dim) of the mixed graph")
    args = parser.parse_args()
    wp.config.quiet = True
    print(machine_info())

    x = wp.ones(1, dtype=wp.float32)
    y = wp.zeros(1, dtype=wp.float32)
    wp.launch(tiny, dim=1, inputs=[x, y, 1.0])  # compile / load
    with wp.ScopedCapture() as capture:
        for _ in range(args.ops):
            wp.launch(tiny, dim=1, inputs=[x, y, 1.0])
    graph = capture.graph

    direct, replay = [], []
    for _ in range(args.repeats + 1):  # the first round is warm-up
        t0 = time.perf_counter()
        for _ in range(args.ops):
            wp.launch(tiny, dim=1, inputs=[x, y, 1.0])
        t1 = time.perf_counter()
        wp.capture_launch(graph)
        t2 = time.perf_counter()
        direct.append((t1 - t0) / args.ops)
        replay.append((t2 - t1) / args.ops)
    direct, replay = direct[1:], replay[1:]
    expected = 1.0 + 2 * args.ops * (args.repeats + 1)
    assert np.isclose(float(y.numpy()[0]), expected), (float(y.numpy()[0]), expected)

    d, r = statistics.median(direct), statistics.median(replay)
    print(f"{args.ops} launches of a dim=1 kernel, median of {args.repeats}:")
    print(f"  wp.launch          {d * 1e6:7.3f} us per launch")
    print(f"  wp.capture_launch  {r * 1e6:7.3f} us per recorded launch  ({d / r:.1f}x less)")
    result("capture_replay_per_launch", r * 1e6, "us", None)
    mixed(args)


def mixed(args: argparse.Namespace) -> None:
    """Replay of a graph mixing launches, copies, zero_ and fill_ (per recorded operation)."""
    n = args.n
    x = wp.ones(n, dtype=wp.float32)
    y = wp.zeros(n, dtype=wp.float32)
    z = wp.zeros(n, dtype=wp.float32)
    w = wp.zeros(n, dtype=wp.float32)
    steps = max(1, args.ops // 4)

    def issue() -> None:
        for _ in range(steps):
            wp.launch(tiny, dim=n, inputs=[x, y, 1.0])
            wp.copy(z, y)
            w.zero_()
            w.fill_(2.0)

    issue()
    with wp.ScopedCapture() as capture:
        issue()
    graph = capture.graph
    ops = len(graph)
    assert ops == 4 * steps, ops
    direct, replay = [], []
    for _ in range(args.repeats + 1):
        t0 = time.perf_counter()
        issue()
        t1 = time.perf_counter()
        wp.capture_launch(graph)
        t2 = time.perf_counter()
        direct.append((t1 - t0) / ops)
        replay.append((t2 - t1) / ops)
    direct, replay = direct[1:], replay[1:]
    runs = 2 * (args.repeats + 1) + 1  # issued directly and replayed, plus the first issue
    np.testing.assert_allclose(y.numpy(), np.full(n, steps * runs, np.float32))
    np.testing.assert_array_equal(z.numpy(), y.numpy())
    np.testing.assert_array_equal(w.numpy(), np.full(n, 2.0, np.float32))
    d, r = statistics.median(direct), statistics.median(replay)
    print(f"{ops} operations (launch, copy, zero_, fill_ of {n} floats), median of {args.repeats}:")
    print(f"  issued directly    {d * 1e6:7.3f} us per operation")
    print(f"  wp.capture_launch  {r * 1e6:7.3f} us per recorded operation  ({d / r:.1f}x less)")
    result("capture_replay_mixed_per_op", r * 1e6, "us", None)
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(200):
            wp.capture_launch(graph)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
