"""Backward / forward time of a dynamic loop with a nonlinear carried value (issue 12).

    python benchmarks/bench_loop_adjoint.py [--threads 10000] [--trips 10,100,1000,10000]
                                            [--runs 5] [--budget BYTES]

Kernel (float32, one thread per element)::

    v = x[i]
    for k in range(n):
        v = wp.sin(v) * v + 0.5
    y[i] = v

"forward" is one launch; "backward" is ``tape.backward(grads={y: ones})`` on a tape that
recorded it (one adjoint launch: the adjoint replays the loop storing ``v`` of every iteration
in scratch memory, then sweeps it backwards; beyond ``wp.config.adjoint_loop_memory`` it
recomputes from checkpoints). Target: backward <= 3x forward at every trip count with the
default budget. The gradient of the same loop in float64 is checked against the chain rule
(with the same per-thread memory, so the same strategy).
Timings on a shared machine are noisy: compare runs, not single figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, median_time, result  # noqa: E402

import warp as wp  # noqa: E402
from warp_autodiff.loop_memory import STACK_DEPTH  # noqa: E402

TARGET_RATIO = 3.0


@wp.kernel
def sin_recurrence(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    for _k in range(n):
        v = wp.sin(v) * v + 0.5
    y[i] = v


@wp.kernel
def sin_recurrence64(x: wp.array(dtype=wp.float64), n: int, y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    for _k in range(n):
        v = wp.sin(v) * v + wp.float64(0.5)
    y[i] = v


def reference_gradient(x0: np.ndarray, n: int) -> np.ndarray:
    """d y / d x by the chain rule in float64."""
    v = x0.astype(np.float64)
    g = np.ones_like(v)
    for _ in range(n):
        g = g * (np.cos(v) * v + np.sin(v))
        v = np.sin(v) * v + 0.5
    return g


def float64_error(n: int, budget: int) -> float:
    """Largest relative error of the float64 adjoint on 64 threads against the chain rule."""
    x_np = np.random.default_rng(1).uniform(-1.0, 1.0, 64)
    x = wp.array(x_np, dtype=wp.float64, requires_grad=True)
    y = wp.zeros(64, dtype=wp.float64, requires_grad=True)
    saved = wp.config.adjoint_loop_memory
    wp.config.adjoint_loop_memory = budget
    try:
        tape = wp.Tape()
        with tape:
            wp.launch(sin_recurrence64, 64, inputs=[x, n], outputs=[y])
        tape.backward(grads={y: wp.array(np.ones(64), dtype=wp.float64)})
    finally:
        wp.config.adjoint_loop_memory = saved
    ref = reference_gradient(x_np, n)
    scale = np.maximum(np.abs(ref), np.abs(ref).max() * 1e-12 + 1e-300)
    return float(np.max(np.abs(x.grad.numpy() - ref) / scale))


def measure(n: int, m: int, x: wp.array, y: wp.array, ones: wp.array, runs: int) -> tuple[float, float]:
    """(forward, backward) median seconds for ``n`` iterations over ``m`` threads."""
    wp.launch(sin_recurrence, m, inputs=[x, n], outputs=[y])
    fwd, _ = median_time(lambda: wp.launch(sin_recurrence, m, inputs=[x, n], outputs=[y]), runs)
    tape = wp.Tape()
    with tape:
        wp.launch(sin_recurrence, m, inputs=[x, n], outputs=[y])

    def backward() -> None:
        tape.zero()
        tape.backward(grads={y: ones})

    backward()
    bwd, _ = median_time(backward, runs, warmup=0)
    return fwd, bwd


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=10_000)
    parser.add_argument("--trips", default="10,100,1000,10000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=int, default=None, help="wp.config.adjoint_loop_memory in bytes")
    args = parser.parse_args()
    wp.config.quiet = True
    warnings.simplefilter("ignore", wp.AdjointWarning)
    if args.budget is not None:
        wp.config.adjoint_loop_memory = args.budget
    budget = wp.config.adjoint_loop_memory
    print(machine_info())
    print(f"adjoint loop memory budget: {budget / 2**20:.0f} MiB per launch")

    m = args.threads
    x_np = np.random.default_rng(0).uniform(-1.0, 1.0, m).astype(np.float32)
    x = wp.array(x_np, requires_grad=True)
    y = wp.zeros(m, requires_grad=True)
    ones = wp.array(np.ones(m, dtype=np.float32))
    head = f"{'trips':>6} {'forward ms':>11} {'backward ms':>12} {'bwd/fwd':>8} {'strategy':>12}"
    print(head + "  float64 rel err")
    for n in (int(t) for t in args.trips.split(",")):
        runs = args.runs if n <= 1000 else max(1, args.runs // 2)
        fwd, bwd = measure(n, m, x, y, ones, runs)
        # the per-thread share of the budget stores whole loops up to `leaf` iterations (4-byte slots)
        leaf = (budget // m - 8 * (STACK_DEPTH + 1)) // 4 - STACK_DEPTH - 1
        strategy = "stored" if n <= leaf else "checkpoints"
        err = float64_error(n, budget * 64 // m)  # the same per-thread share on 64 threads
        print(f"{n:>6} {fwd * 1e3:>11.3f} {bwd * 1e3:>12.3f} {bwd / fwd:>8.2f} {strategy:>12}  {err:.1e}")
        result(f"loop_adjoint_n{n}_backward_over_forward", bwd / fwd, "x", TARGET_RATIO)


if __name__ == "__main__":
    main()
