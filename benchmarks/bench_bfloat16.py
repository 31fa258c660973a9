"""saxpy (y = a*x + y) over 10M elements in bfloat16, float16 and float32: warm launches, median.

    python benchmarks/bench_bfloat16.py [--n 10000000] [--runs 20]

bfloat16 moves half the bytes of float32 but pays for its conversions (integer arithmetic in
the kernel: widen on load, round to nearest even after each operation); float16 uses the
CPU's F16C conversions. No target: informational. Measured here (2 shared cores, very noisy:
single runs varied 3.7-18 ms), minima: bfloat16 ~3.7 ms, float16 ~1.4 ms, float32 ~4.4 ms.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, median_time, result  # noqa: E402

import warp as wp  # noqa: E402


def _saxpy(dtype):
    def body(x: wp.array(dtype=dtype), y: wp.array(dtype=dtype), a: dtype):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    return wp.kernel(body, module=f"bench_saxpy_{dtype.__name__}")


def _launcher(kernel, n: int, inputs: list):
    return lambda: wp.launch(kernel, dim=n, inputs=inputs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    wp.config.quiet = True
    print(machine_info())
    rng = np.random.default_rng(0)
    x_np = rng.random(args.n, dtype=np.float32)
    y_np = rng.random(args.n, dtype=np.float32)
    for dtype in (wp.float32, wp.float16, wp.bfloat16):
        kernel = _saxpy(dtype)
        x = wp.array(x_np, dtype=dtype)
        y = wp.array(y_np, dtype=dtype)
        a = dtype(2.0)
        wp.launch(kernel, dim=args.n, inputs=[x, y, a])  # compile / load
        med, low = median_time(_launcher(kernel, args.n, [x, y, a]), args.runs)
        moved = 3 * args.n * wp.types.type_size_in_bytes(dtype)
        print(f"saxpy {dtype.__name__:>8}: median {med * 1e3:7.2f} ms, min {low * 1e3:7.2f} ms, "
              f"{moved / med / 1e9:5.1f} GB/s moved")
        result(f"saxpy_{dtype.__name__}_ms", med * 1e3, "ms", None)


if __name__ == "__main__":
    main()
