"""Cost of calling kernel builtins from Python scope (``wp.sin(1.0)``, ``wp.dot(a, b)``, ...).

    python benchmarks/bench_python_builtins.py [--calls 50000] [--repeats 9]

Each figure is the median over batches of the mean time per warm call, in microseconds (the first
call of each signature compiles or loads its shim; that cost is printed separately). For
reference it also times constructing a ``wp.vec3`` and the same math in NumPy. Target for
``wp.sin(1.0)``: <= 2 us.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, result  # noqa: E402

import numpy as np  # noqa: E402

import warp as wp  # noqa: E402

TARGET_US = 2.0


def per_call_us(fn, calls: int, repeats: int) -> float:
    times = []
    for _ in range(repeats + 1):  # the first batch is warm-up
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) / calls)
    return statistics.median(times[1:]) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=50_000, help="calls per batch")
    parser.add_argument("--repeats", type=int, default=9, help="batches")
    args = parser.parse_args()
    wp.config.quiet = True
    print(machine_info())

    a, b = wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0)
    m = wp.mat33(np.arange(9, dtype=np.float32).reshape(3, 3) + np.eye(3, dtype=np.float32))
    q = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 0.3)
    t = wp.transform(a, q)
    x64 = wp.float64(1.0)
    cases = {
        "sin(1.0)": lambda: wp.sin(1.0),
        "sin(float64)": lambda: wp.sin(x64),
        "min(1.0, 2.0)": lambda: wp.min(1.0, 2.0),
        "dot(vec3, vec3)": lambda: wp.dot(a, b),
        "cross(vec3, vec3)": lambda: wp.cross(a, b),
        "normalize(vec3)": lambda: wp.normalize(a),
        "mul(mat33, vec3)": lambda: wp.mul(m, a),
        "inverse(mat33)": lambda: wp.inverse(m),
        "quat_rotate(quat, vec3)": lambda: wp.quat_rotate(q, a),
        "transform_point(transform, vec3)": lambda: wp.transform_point(t, a),
    }
    for label, fn in cases.items():
        t0 = time.perf_counter()
        fn()
        first_ms = (time.perf_counter() - t0) * 1e3
        us = per_call_us(fn, args.calls, args.repeats)
        print(f"wp.{label:34s} {us:7.3f} us per call   (first call {first_ms:7.2f} ms: compile or load)")
        if label == "sin(1.0)":
            result("python_builtin_sin", us, "us", TARGET_US)
        if label == "dot(vec3, vec3)":
            result("python_builtin_dot_vec3", us, "us", None)
    print("reference:")
    x = np.float32(1.0)
    na, nb = np.array(a), np.array(b)
    references = {
        "wp.vec3(1.0, 2.0, 3.0)": lambda: wp.vec3(1.0, 2.0, 3.0),
        "np.sin(np.float32(1.0))": lambda: np.sin(x),
        "np.dot(a, b) on float32[3]": lambda: np.dot(na, nb),
    }
    for label, fn in references.items():
        print(f"  {label:38s} {per_call_us(fn, args.calls, args.repeats):7.3f} us")
    print("(2 shared cores: figures are noisy)")


if __name__ == "__main__":
    main()
