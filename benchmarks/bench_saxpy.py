"""saxpy (y = a*x + y) over 10M float32 values: warp kernel vs. NumPy, warm, median of N runs.

    python benchmarks/bench_saxpy.py [--n 10000000] [--runs 50]

Target: <= 2.5 ms per warp launch (memory bound: 120 MB moved per launch).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, median_time, result  # noqa: E402

import warp as wp  # noqa: E402

TARGET_MS = 2.5


@wp.kernel
def saxpy(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    wp.config.quiet = True
    print(machine_info())

    n = args.n
    rng = np.random.default_rng(0)
    x_np = rng.random(n, dtype=np.float32)
    y_np = rng.random(n, dtype=np.float32)
    a = 2.0
    x = wp.array(x_np, dtype=wp.float32)
    y = wp.array(y_np, dtype=wp.float32)

    wp.launch(saxpy, dim=n, inputs=[x, y, a])  # compile / load, and check the result once
    expected = np.float32(a) * x_np + y_np
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6)

    warp_med, warp_min = median_time(lambda: wp.launch(saxpy, dim=n, inputs=[x, y, a]), args.runs)

    xr, yr = x_np.copy(), y_np.copy()
    af = np.float32(a)

    def numpy_saxpy() -> None:
        yr[:] = af * xr + yr

    def numpy_saxpy_inplace() -> None:  # no temporaries: closest NumPy gets to one pass
        np.multiply(xr, af, out=tmp)
        np.add(tmp, yr, out=yr)

    tmp = np.empty_like(xr)
    np_med, np_min = median_time(numpy_saxpy, args.runs)
    npi_med, npi_min = median_time(numpy_saxpy_inplace, args.runs)

    gbytes = 3 * 4 * n / 1e9
    print(f"saxpy n={n:,} float32, median of {args.runs} warm runs (min in brackets):")
    print(
        f"  warp launch       {warp_med * 1e3:8.3f} ms  [{warp_min * 1e3:.3f}]  {gbytes / warp_med:6.1f} GB/s"
    )
    print(f"  numpy y=a*x+y     {np_med * 1e3:8.3f} ms  [{np_min * 1e3:.3f}]  {gbytes / np_med:6.1f} GB/s")
    print(f"  numpy out= ops    {npi_med * 1e3:8.3f} ms  [{npi_min * 1e3:.3f}]")
    print(f"  warp vs numpy     {np_med / warp_med:8.2f}x   (target: warp <= {TARGET_MS} ms)")
    result("saxpy_10M_warp", warp_med * 1e3, "ms", TARGET_MS)
    result("saxpy_10M_numpy", np_med * 1e3, "ms", None)


if __name__ == "__main__":
    main()
