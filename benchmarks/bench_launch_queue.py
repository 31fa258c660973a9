"""Where a CUDA launch's time goes: the host's issue cost against the GPU's drain rate.

    python benchmarks/bench_launch_queue.py [--device cuda:0]

Launches of an empty kernel are timed on the host in bursts of 32, 256 and 20000, each burst
started on an idle stream (synchronized before, not inside, the timing). A short burst measures
what the host spends per launch; a long one fills the driver's queue, after which the host waits
for the GPU to retire kernels, so its figure is the GPU's rate for back-to-back empty kernels.
Each is measured three ways: ``wp.launch``, ``cuLaunchKernel`` through cuda-bindings with a
prebuilt argument buffer, and the same call through ctypes (no ``argtypes``, prebuilt
arguments). The GPU's own time per empty kernel, between two events, is printed too.
Needs a CUDA device; prints a message and exits without one.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import result  # noqa: E402
from _driver_launch import burst_us, empty_kernel, prepare_empty_launch  # noqa: E402

import warp as wp  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda:0")
    args = parser.parse_args()
    ready = prepare_empty_launch(args.device)
    if ready is None:
        return
    dev, a, prepared = ready
    raw = prepared.ctypes_call()

    ways = {
        "wp.launch": lambda: wp.launch(empty_kernel, dim=1, inputs=[a, 1.0], device=dev),
        "cuda-bindings cuLaunchKernel": prepared.bindings,
        "ctypes cuLaunchKernel": raw,
    }
    for burst, repeats in ((32, 200), (256, 40), (20000, 3)):
        for name, fn in ways.items():
            us = burst_us(fn, burst, repeats)
            print(f"burst {burst:>5}, {name}: {us:.2f} us per launch (host)")
            key = name.split()[0].replace(".", "_").replace("-", "_")
            result(f"launch_burst{burst}_{key}", us, "us", None)

    start, end = wp.Event(enable_timing=True), wp.Event(enable_timing=True)
    wp.synchronize()
    wp.record_event(start)
    for _ in range(5000):
        raw()
    wp.record_event(end)
    wp.synchronize()
    gpu_us = wp.get_event_elapsed_time(start, end) / 5000 * 1000
    print(f"GPU time per empty kernel, 5000 back to back: {gpu_us:.2f} us")
    result("launch_gpu_drain", gpu_us, "us", None)


if __name__ == "__main__":
    main()
