"""Cost of handing framework tensors to a warp kernel: from_*, return_ctype, direct tensors.

    python benchmarks/bench_interop.py [--iterations 20000] [--repeats 5] [--n 1]
                                       [--frameworks torch,paddle]

Mirrors the guide's performance notes (``benchmark_interop_torch`` / ``_paddle``): each
iteration converts two tensors and launches a saxpy kernel over them, in three ways:

* ``from_torch(...)`` / ``from_paddle(...)``: wrap each tensor as a ``wp.array``, launch;
* ``...(..., return_ctype=True)``: wrap each tensor as a launch descriptor;
* direct: pass the tensors to ``wp.launch`` (converted by the interop plugin's hook).

A tiny ``n`` makes the conversion and launch overhead dominate, as in the guide. Figures are
the median over repeats of the mean time per iteration (conversion of both tensors + launch);
the guide's figures (NVIDIA Warp on a GPU) are printed relative to ``return_ctype`` next to
ours. The machine is shared: expect noise of 10-30%.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, result  # noqa: E402

import warp as wp  # noqa: E402

#: The guide's sample outputs (ms for the same number of iterations; NVIDIA Warp, CUDA device).
GUIDE_MS = {
    "torch": {"from": 5095.0, "return_ctype": 2113.0, "direct": 2950.0},
    "paddle": {"from": 13990.0, "return_ctype": 5990.0, "direct": 35167.0},
}


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def measure(cases: dict[str, Callable[[], None]], iterations: int, repeats: int) -> dict[str, float]:
    """Median over ``repeats`` of the mean time per iteration of each case (after a warm-up run)."""
    for fn in cases.values():  # compile, load, warm up every path
        fn()
    per_iter = {}
    for name, fn in cases.items():
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) / iterations)
        per_iter[name] = statistics.median(times)
    return per_iter


def report(framework: str, per_iter: dict[str, float], guide_ms: dict[str, float]) -> None:
    base = per_iter["return_ctype"]
    labels = {"from": f"from_{framework}(...)",
              "return_ctype": f"from_{framework}(..., return_ctype=True)",
              "direct": f"direct from {framework}", "reuse_arrays": "arrays converted once (reference)"}
    print(f"{'case':<40}{'us/iter':>10}{'vs ctype':>10}{'guide':>10}")
    for name, seconds in per_iter.items():
        guide = f"{guide_ms[name] / guide_ms['return_ctype']:.2f}" if name in guide_ms else "-"
        print(f"{labels[name]:<40}{seconds * 1e6:>10.2f}{seconds / base:>10.2f}{guide:>10}")
    for name, seconds in per_iter.items():
        result(f"interop_{framework}_{name}", seconds * 1e6, "us", None)


def cases_for(convert: Callable[..., Any], x_t: Any, y_t: Any, n: int, iterations: int) -> dict[str, Any]:
    launch, device = wp.launch, "cpu"

    def with_arrays() -> None:
        for _ in range(iterations):
            x_w = convert(x_t)
            y_w = convert(y_t)
            launch(saxpy, dim=n, inputs=[x_w, y_w, 1.0], device=device)

    def with_ctypes() -> None:
        for _ in range(iterations):
            x_c = convert(x_t, return_ctype=True)
            y_c = convert(y_t, return_ctype=True)
            launch(saxpy, dim=n, inputs=[x_c, y_c, 1.0], device=device)

    def direct() -> None:
        for _ in range(iterations):
            launch(saxpy, dim=n, inputs=[x_t, y_t, 1.0], device=device)

    def reuse() -> None:  # the guide's advice: convert once, reuse the arrays
        x_w, y_w = convert(x_t), convert(y_t)
        for _ in range(iterations):
            launch(saxpy, dim=n, inputs=[x_w, y_w, 1.0], device=device)

    return {"from": with_arrays, "return_ctype": with_ctypes, "direct": direct, "reuse_arrays": reuse}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=20_000, help="iterations per repeat")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n", type=int, default=1, help="tensor length")
    parser.add_argument("--frameworks", default="torch,paddle", help="comma-separated: torch, paddle")
    args = parser.parse_args()
    wp.config.quiet = True
    print(machine_info())
    print(f"n = {args.n}; {args.iterations} iterations x {args.repeats} repeats; "
          "figures: conversion of two tensors + one launch, per iteration")
    for framework in args.frameworks.split(","):
        try:
            module = importlib.import_module(framework)
        except ImportError:
            print(f"SKIP interop_{framework} not installed (pip install \".[{framework}]\")")
            continue
        print(f"\n{framework} {module.__version__}")
        if framework == "torch":
            x_t = module.arange(args.n, dtype=module.float32)
            y_t = module.ones(args.n, dtype=module.float32)
            convert = wp.from_torch
        else:
            x_t = module.arange(args.n, dtype=module.float32)
            y_t = module.ones([args.n], dtype=module.float32)
            convert = wp.from_paddle
        cases = cases_for(convert, x_t, y_t, args.n, args.iterations)
        per_iter = measure(cases, args.iterations, args.repeats)
        report(framework, per_iter, GUIDE_MS[framework])


if __name__ == "__main__":
    main()
