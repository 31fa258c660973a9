"""Python-side overhead of one ``wp.launch`` of a 3-argument kernel with dim=1.

    python benchmarks/bench_launch_overhead.py [--launches 20000] [--repeats 15]

Launches run back to back in batches; the figure is the median over batches of the mean time per
launch, in microseconds. Target: <= 3 us.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, result  # noqa: E402

import warp as wp  # noqa: E402

TARGET_US = 3.0


@wp.kernel
def tiny(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32):
    i = wp.tid()
    y[i] = a * x[i]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=20_000, help="launches per batch")
    parser.add_argument("--repeats", type=int, default=15, help="batches")
    args = parser.parse_args()
    wp.config.quiet = True
    print(machine_info())

    x = wp.ones(1, dtype=wp.float32)
    y = wp.zeros(1, dtype=wp.float32)
    launch = wp.launch
    launch(tiny, dim=1, inputs=[x, y, 2.0])  # compile / load
    assert y.numpy()[0] == 2.0

    per_launch = []
    for _ in range(args.repeats + 1):  # the first batch is warm-up
        t0 = time.perf_counter()
        for _ in range(args.launches):
            launch(tiny, dim=1, inputs=[x, y, 2.0])
        per_launch.append((time.perf_counter() - t0) / args.launches)
    per_launch = per_launch[1:]

    # the loop itself, for reference
    t0 = time.perf_counter()
    for _ in range(args.launches):
        pass
    loop_s = (time.perf_counter() - t0) / args.launches

    med = statistics.median(per_launch)
    print(
        f"wp.launch(dim=1, 3 args): median {med * 1e6:.3f} us per launch, min {min(per_launch) * 1e6:.3f} us "
        f"({args.repeats} batches of {args.launches}; empty loop {loop_s * 1e9:.0f} ns)  (target <= "
        f"{TARGET_US} us)"
    )
    result("launch_overhead", med * 1e6, "us", TARGET_US)


if __name__ == "__main__":
    main()
