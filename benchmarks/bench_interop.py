"""Cost of handing PyTorch tensors to a warp kernel: from_torch, return_ctype, direct tensors.

    python benchmarks/bench_interop.py [--iterations 20000] [--repeats 5] [--n 1]

Mirrors the guide's performance notes (``benchmark_interop_torch``): each iteration converts
two tensors and launches a saxpy kernel over them, in three ways:

* ``from_torch(...)``: wrap each tensor as a ``wp.array``, launch with the arrays;
* ``from_torch(..., return_ctype=True)``: wrap each tensor as a launch descriptor;
* direct: pass the tensors to ``wp.launch`` (converted by the interop plugin's hook).

A tiny ``n`` makes the conversion and launch overhead dominate, as in the guide. Figures are
the median over repeats of the mean time per iteration (conversion of both tensors + launch);
the guide's figures (NVIDIA Warp on a GPU) are printed relative to ``return_ctype`` next to
ours. The machine is shared: expect noise of 10-30%.
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

#: The guide's sample output (ms for the same number of iterations; NVIDIA Warp, CUDA device).
GUIDE_MS = {"from_torch": 5095.0, "return_ctype": 2113.0, "direct": 2950.0}


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=20_000, help="iterations per repeat")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n", type=int, default=1, help="tensor length")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("SKIP interop_from_torch torch is not installed (pip install warp-suite[torch])")
        return
    wp.config.quiet = True
    print(machine_info())
    print(f"torch {torch.__version__}; n = {args.n}; {args.iterations} iterations x {args.repeats} repeats")

    device = "cpu"
    n = args.n
    x_t = torch.arange(n, dtype=torch.float32, device=device)
    y_t = torch.ones(n, dtype=torch.float32, device=device)
    launch, from_torch = wp.launch, wp.from_torch

    def with_arrays() -> None:
        for _ in range(args.iterations):
            x_w = from_torch(x_t)
            y_w = from_torch(y_t)
            launch(saxpy, dim=n, inputs=[x_w, y_w, 1.0], device=device)

    def with_ctypes() -> None:
        for _ in range(args.iterations):
            x_c = from_torch(x_t, return_ctype=True)
            y_c = from_torch(y_t, return_ctype=True)
            launch(saxpy, dim=n, inputs=[x_c, y_c, 1.0], device=device)

    def direct() -> None:
        for _ in range(args.iterations):
            launch(saxpy, dim=n, inputs=[x_t, y_t, 1.0], device=device)

    def reuse() -> None:  # the guide's advice: convert once, reuse the arrays
        x_w, y_w = from_torch(x_t), from_torch(y_t)
        for _ in range(args.iterations):
            launch(saxpy, dim=n, inputs=[x_w, y_w, 1.0], device=device)

    cases = {"from_torch": with_arrays, "return_ctype": with_ctypes, "direct": direct, "reuse_arrays": reuse}
    for fn in cases.values():  # compile, load, warm up every path
        fn()
    per_iter = {}
    for name, fn in cases.items():
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) / args.iterations)
        per_iter[name] = statistics.median(times)

    base = per_iter["return_ctype"]
    print(f"{'case':<36}{'us/iter':>10}{'vs ctype':>10}{'guide':>10}")
    labels = {"from_torch": "from_torch(...)", "return_ctype": "from_torch(..., return_ctype=True)",
              "direct": "direct from torch", "reuse_arrays": "arrays converted once (reference)"}
    for name, seconds in per_iter.items():
        guide = f"{GUIDE_MS[name] / GUIDE_MS['return_ctype']:.2f}" if name in GUIDE_MS else "-"
        print(f"{labels[name]:<36}{seconds * 1e6:>10.2f}{seconds / base:>10.2f}{guide:>10}")
    for name, seconds in per_iter.items():
        result(f"interop_{name}", seconds * 1e6, "us", None)


if __name__ == "__main__":
    main()
