"""200 sin + cos evaluations per element over 1M float32 elements (transcendental throughput).

    python benchmarks/bench_sincos.py [--n 1000000] [--runs 5] [--dtype float64] [--fast-math]

Also times the elementwise shape (one sin and one cos per thread over 16 n values).

``--fast-math`` sets the module option ``fast_math=True``: the cheaper sin/cos argument reduction
(accurate below ~1e13 for float32) instead of the default full-range one.

Needs ``wp.sin`` / ``wp.cos`` from the warp-builtins package; without them it says so and
exits with status 0. Also times NumPy doing the same work in chunks, for reference.
Target: <= 0.40 s per launch.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, median_time, result  # noqa: E402

import warp as wp  # noqa: E402

TARGET_S = 0.40
TERMS = 200


@wp.kernel
def sincos_sum(a: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    x = a[i]
    s = 0.0
    for k in range(200):
        s += wp.sin(x + float(k) * 0.001) + wp.cos(x - float(k) * 0.002)
    out[i] = s


@wp.kernel
def sincos_sum64(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    x = a[i]
    s = wp.float64(0.0)
    for k in range(200):
        s += wp.sin(x + wp.float64(k) * wp.float64(0.001)) + wp.cos(x - wp.float64(k) * wp.float64(0.002))
    out[i] = s


@wp.kernel
def sincos_elementwise(a: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = wp.sin(a[i]) + wp.cos(a[i] * 0.5)


@wp.kernel
def sincos_elementwise64(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = wp.sin(a[i]) + wp.cos(a[i] * wp.float64(0.5))


def cpu_ns_per_eval(launch, runs: int, evals: int) -> float:
    """Median process CPU time (all threads) of ``launch`` per evaluation, in ns."""
    cpu = []
    for _ in range(runs):  # steadier than wall time under load
        t0 = time.process_time()
        launch()
        cpu.append(time.process_time() - t0)
    return statistics.median(cpu) / evals * 1e9


def numpy_sincos(a: np.ndarray, out: np.ndarray, chunk: int = 1 << 16) -> None:
    k = np.arange(TERMS, dtype=np.float32)
    for start in range(0, a.shape[0], chunk):
        x = a[start : start + chunk, None]
        out[start : start + chunk] = (
            np.sin(x + k * np.float32(0.001)) + np.cos(x - k * np.float32(0.002))
        ).sum(axis=1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-numpy", action="store_true", help="skip the NumPy reference")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    parser.add_argument("--fast-math", action="store_true", help="module option fast_math=True")
    args = parser.parse_args()
    wp.config.quiet = True
    print(machine_info())

    from warp.compiler.registry import builtin_registry

    missing = [name for name in ("sin", "cos") if name not in builtin_registry]
    if missing:
        print(
            f"bench_sincos: skipped: builtin(s) {', '.join('wp.' + m for m in missing)} not registered "
            "(they come from the warp-builtins package: pip install -e packages/warp-builtins)"
        )
        print("SKIP sincos_1M_x200 builtins-missing")
        return

    n = args.n
    if args.fast_math:
        wp.set_module_options({"fast_math": True})
    a_np = np.random.default_rng(0).random(n, dtype=np.float32) * np.float32(6.0) - np.float32(3.0)
    wp_dtype, kernel, tag = wp.float32, sincos_sum, ""
    if args.dtype == "float64":
        a_np = a_np.astype(np.float64)
        wp_dtype, kernel, tag = wp.float64, sincos_sum64, "_f64"
    a = wp.array(a_np, dtype=wp_dtype)
    out = wp.zeros(n, dtype=wp_dtype)
    wp.launch(kernel, dim=n, inputs=[a, out])  # compile / load

    check = 4096
    ref = np.empty(check, dtype=a_np.dtype)
    numpy_sincos(a_np[:check].astype(np.float64), ref)
    err = float(np.max(np.abs(out.numpy()[:check] - ref)))
    print(f"max abs error vs NumPy on {check} elements (sums of {2 * TERMS} terms): {err:.3g}")

    warp_med, warp_min = median_time(
        lambda: wp.launch(kernel, dim=n, inputs=[a, out]), args.runs, warmup=0
    )
    evals = 2 * TERMS * n
    cpu_ns = cpu_ns_per_eval(lambda: wp.launch(kernel, dim=n, inputs=[a, out]), args.runs, evals)
    variant = " fast_math" if args.fast_math else ""
    print(f"sin+cos x{TERMS} over n={n:,} {args.dtype}{variant}, median of {args.runs} (min in brackets):")
    print(
        f"  warp launch   {warp_med:8.4f} s  [{warp_min:.4f}]  {evals / warp_med / 1e9:6.2f} G "
        f"evals/s  (target <= {TARGET_S} s)"
    )
    print(f"  warp CPU time {cpu_ns:8.3f} ns per evaluation (median, all threads)")
    # the other common shape: one sin and one cos per thread, no inner loop
    ew_kernel = sincos_elementwise64 if tag else sincos_elementwise
    m = 16 * n
    ea = wp.array(np.resize(a_np, m), dtype=wp_dtype)
    eout = wp.zeros(m, dtype=wp_dtype)
    wp.launch(ew_kernel, dim=m, inputs=[ea, eout])
    ref_ew = np.sin(a_np[:check].astype(np.float64)) + np.cos(a_np[:check].astype(np.float64) * 0.5)
    assert np.max(np.abs(eout.numpy()[:check] - ref_ew)) < 1e-6
    ew_med, _ = median_time(lambda: wp.launch(ew_kernel, dim=m, inputs=[ea, eout]), args.runs, warmup=0)
    ew_ns = cpu_ns_per_eval(lambda: wp.launch(ew_kernel, dim=m, inputs=[ea, eout]), args.runs, 2 * m)
    print(f"  elementwise   {ew_med:8.4f} s for sin+cos of {m:,} values; CPU {ew_ns:.3f} ns per evaluation")
    if not args.no_numpy and not tag:
        np_out = np.empty(n, dtype=np.float32)
        np_med, _ = median_time(lambda: numpy_sincos(a_np, np_out), 1, warmup=0)
        print(f"  numpy         {np_med:8.4f} s            {evals / np_med / 1e9:6.2f} G evals/s")
        result("sincos_1M_x200_numpy", np_med, "s", None)
    tag += "_fast_math" if args.fast_math else ""
    result(f"sincos_1M_x200_warp{tag}", warp_med, "s", TARGET_S if not tag else None)
    result(f"sincos_elementwise_16M_warp{tag}", ew_med, "s", None)


if __name__ == "__main__":
    main()
