"""Python-side overhead of launching a generic kernel (``typing.Any`` parameters) compared with the
same kernel with concrete types, dim=1, 3 arguments.

    python benchmarks/bench_generic_launch.py [--launches 20000] [--repeats 15]

A generic kernel infers its instance from the argument types on every launch (the concrete
kernel's launcher is found directly). Figures: median over batches of the mean time per launch,
in microseconds; the machine is shared, so they are noisy. Target for the generic launch: <= 8 us.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, result  # noqa: E402

import warp as wp  # noqa: E402

TARGET_US = 8.0


@wp.kernel
def tiny(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32):
    i = wp.tid()
    y[i] = a * x[i]


@wp.kernel
def tiny_generic(x: wp.array(dtype=Any), y: wp.array(dtype=Any), a: Any):
    i = wp.tid()
    y[i] = a * x[i]


def per_launch(kernel: Any, args: list, launches: int, repeats: int) -> list[float]:
    launch = wp.launch
    times = []
    for _ in range(repeats + 1):  # the first batch is warm-up
        t0 = time.perf_counter()
        for _ in range(launches):
            launch(kernel, dim=1, inputs=args)
        times.append((time.perf_counter() - t0) / launches)
    return times[1:]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=20_000, help="launches per batch")
    parser.add_argument("--repeats", type=int, default=15, help="batches")
    args = parser.parse_args()
    wp.config.quiet = True
    print(machine_info())

    x = wp.ones(1, dtype=wp.float32)
    y = wp.zeros(1, dtype=wp.float32)
    for k in (tiny, tiny_generic):
        wp.launch(k, dim=1, inputs=[x, y, 2.0])  # compile / load
        assert y.numpy()[0] == 2.0
    concrete = statistics.median(per_launch(tiny, [x, y, 2.0], args.launches, args.repeats))
    generic = statistics.median(per_launch(tiny_generic, [x, y, 2.0], args.launches, args.repeats))
    instance = statistics.median(per_launch(tiny_generic.get_overload(
        tiny_generic.infer_argument_types([x, y, 2.0])), [x, y, 2.0], args.launches, args.repeats))
    print(f"concrete kernel:           median {concrete * 1e6:.3f} us per launch")
    print(f"generic kernel:            median {generic * 1e6:.3f} us per launch  (target <= {TARGET_US} us)")
    print(f"its instance, launched directly: median {instance * 1e6:.3f} us per launch")
    result("generic_launch_overhead", generic * 1e6, "us", TARGET_US)


if __name__ == "__main__":
    main()
