"""Python-side overhead of one ``wp.launch`` of a 3-argument kernel with dim=1.

    python benchmarks/bench_launch_overhead.py [--launches 20000] [--repeats 15]
    python benchmarks/bench_launch_overhead.py --cuda-python-only [--profile]

``--cuda-python-only`` launches on ``cuda:0`` of the tests' stand-in CUDA driver with its
``cuLaunchKernel`` replaced by a no-op (benchmarks/_standin_cuda.py): the figure is this
project's own Python time per CUDA launch (argument packing, stream and context lookups), without
the driver binding's call. It runs bench_cuda.py's loop (``empty_kernel``, 2 arguments, device
given as a ``Device``), the 3-argument kernel below with ``device="cuda:0"`` and the replay of a
recorded launch (``record_cmd=True``).
``--profile`` prints cProfile's top functions of one batch.

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


@wp.kernel
def empty_kernel(a: wp.array(dtype=float), b: float):
    pass


def _per_launch(fn, launches: int, repeats: int) -> list[float]:
    """Seconds per call of ``fn()`` in each of ``repeats`` batches (after one warm-up batch)."""
    per_launch = []
    for _ in range(repeats + 1):
        t0 = time.perf_counter()
        for _ in range(launches):
            fn()
        per_launch.append((time.perf_counter() - t0) / launches)
    return per_launch[1:]


def _profile(fn, launches: int) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(launches):
        fn()
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


def _cuda_python_only(args: argparse.Namespace) -> None:
    from _standin_cuda import install

    install()
    dev = wp.get_device("cuda:0")
    a = wp.zeros(1, dtype=float, device=dev)
    x = wp.ones(1, dtype=wp.float32, device=dev)
    y = wp.zeros(1, dtype=wp.float32, device=dev)
    launch = wp.launch
    cases = {
        "cuda_python_launch_overhead": (
            "wp.launch(empty_kernel, dim=1, inputs=[a, 1.0], device=dev) (bench_cuda's loop)",
            lambda: launch(empty_kernel, dim=1, inputs=[a, 1.0], device=dev),
        ),
        "cuda_python_launch_overhead_3args": (
            'wp.launch(tiny, dim=1, inputs=[x, y, 2.0], device="cuda:0")',
            lambda: launch(tiny, dim=1, inputs=[x, y, 2.0], device="cuda:0"),
        ),
        "cuda_python_recorded_launch": (
            "cmd.launch() of wp.launch(empty_kernel, ..., record_cmd=True)",
            launch(empty_kernel, dim=1, inputs=[a, 1.0], device=dev, record_cmd=True).launch,
        ),
    }
    for name, (what, fn) in cases.items():
        fn()  # compile / load
        per_launch = _per_launch(fn, args.launches, args.repeats)
        med = statistics.median(per_launch)
        print(
            f"{what}: median {med * 1e6:.3f} us per launch, min {min(per_launch) * 1e6:.3f} us "
            f"(stand-in driver, no-op cuLaunchKernel; target <= {TARGET_US} us with the driver call)"
        )
        result(name, med * 1e6, "us", TARGET_US)
        if args.profile:
            _profile(fn, args.launches)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=20_000, help="launches per batch")
    parser.add_argument("--repeats", type=int, default=15, help="batches")
    parser.add_argument("--cuda-python-only", action="store_true",
                        help="CUDA launches on the stand-in driver with a no-op cuLaunchKernel")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions")
    args = parser.parse_args()
    wp.config.quiet = True
    print(machine_info())
    if args.cuda_python_only:
        _cuda_python_only(args)
        return

    x = wp.ones(1, dtype=wp.float32)
    y = wp.zeros(1, dtype=wp.float32)
    launch = wp.launch
    launch(tiny, dim=1, inputs=[x, y, 2.0])  # compile / load
    assert y.numpy()[0] == 2.0

    per_launch = _per_launch(lambda: launch(tiny, dim=1, inputs=[x, y, 2.0]), args.launches, args.repeats)
    if args.profile:
        _profile(lambda: launch(tiny, dim=1, inputs=[x, y, 2.0]), args.launches)

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
