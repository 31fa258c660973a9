"""Reverse mode: forward + backward of a 3-kernel chain vs. the forward alone, and adjoint compile cost.

    python benchmarks/bench_autodiff.py [--n 1000000] [--runs 30] [--repeats 3]

Chain (float32, n elements, every array with requires_grad=True)::

    b = a*a + 2a          (k1)
    c = b*w - 0.5*b/(1+b*b)   (k2, w a second input)
    d = c*c + c           (k3)

"forward" launches k1..k3; "backward" is ``tape.backward(grads={d: ones})`` on a tape that
recorded them (three adjoint launches, gradients into a.grad, w.grad, b.grad, c.grad); the
"full step" adds ``tape.reset()`` (zeroing five gradient arrays) and the recorded forward.
Target: backward <= 3x the forward (a well-built adjoint costs roughly 2-3x).

Compile cost: a fresh process per measurement with an empty kernel cache times the first
launches of the three kernels (forward code only: adjoints are generated when first needed),
then the first ``tape.backward`` minus a warm one: what adjoint generation adds (the reverse-mode
transform plus LLVM for the adjoint code).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, median_time, result  # noqa: E402

import warp as wp  # noqa: E402

TARGET_RATIO = 3.0

KERNELS = r'''
import warp as wp

@wp.kernel
def k1(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    b[i] = x * x + 2.0 * x

@wp.kernel
def k2(b: wp.array(dtype=float), w: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    x = b[i]
    c[i] = x * w[i] - 0.5 * x / (1.0 + x * x)

@wp.kernel
def k3(c: wp.array(dtype=float), d: wp.array(dtype=float)):
    i = wp.tid()
    x = c[i]
    d[i] = x * x + x
'''

CHILD = r"""
import json, sys, time
import warp as wp
wp.config.quiet = True
import importlib.util
spec = importlib.util.spec_from_file_location("bench_autodiff_kernels", sys.argv[1])
ns = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ns)
ns = vars(ns)
# warm the JIT with an unrelated kernel so LLVM initialization is not counted
@wp.kernel(enable_backward=False)
def warm(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] + 1.0
wp.launch(warm, dim=4, inputs=[wp.zeros(4)])
a, w = wp.ones(16), wp.ones(16)
b, c, d = wp.zeros(16), wp.zeros(16), wp.zeros(16)
for arr in (a, w, b, c, d):
    arr.requires_grad = True
def record():
    tape = wp.Tape()
    with tape:
        wp.launch(ns["k1"], dim=16, inputs=[a, b])
        wp.launch(ns["k2"], dim=16, inputs=[b, w, c])
        wp.launch(ns["k3"], dim=16, inputs=[c, d])
    return tape
t0 = time.perf_counter()
tape = record()
t1 = time.perf_counter()
tape.backward(grads={d: wp.ones(16, requires_grad=False)})
t2 = time.perf_counter()
tape = record()
t3 = time.perf_counter()
tape.backward(grads={d: wp.ones(16, requires_grad=False)})
t4 = time.perf_counter()
print(json.dumps({"forward_s": t1 - t0, "adjoint_s": (t2 - t1) - (t4 - t3)}))
"""


def cold_compile(kernels_file: str, child: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, WARP_CACHE_PATH=cache)
        proc = subprocess.run([sys.executable, child, kernels_file], env=env,
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr)
        return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    wp.config.quiet = True
    print(machine_info())
    if "Tape" not in dir(wp):
        print("SKIP autodiff warp-autodiff-missing (pip install \".[autodiff]\")")
        return

    tmp = tempfile.TemporaryDirectory()
    kfile = os.path.join(tmp.name, "bench_autodiff_kernels.py")
    with open(kfile, "w") as f:
        f.write(KERNELS)
    spec = importlib.util.spec_from_file_location("bench_autodiff_kernels", kfile)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    k1, k2, k3 = module.k1, module.k2, module.k3
    n = args.n
    rng = np.random.default_rng(0)
    a = wp.array(rng.random(n, dtype=np.float32), requires_grad=True)
    w = wp.array(rng.random(n, dtype=np.float32), requires_grad=True)
    b, c, d = (wp.zeros(n, requires_grad=True) for _ in range(3))
    ones = wp.array(np.ones(n, dtype=np.float32))

    def forward() -> None:
        wp.launch(k1, dim=n, inputs=[a, b])
        wp.launch(k2, dim=n, inputs=[b, w, c])
        wp.launch(k3, dim=n, inputs=[c, d])

    tape = wp.Tape()

    def forward_backward() -> None:
        tape.reset()
        with tape:
            forward()
        tape.backward(grads={d: ones})

    forward_backward()  # compile, and check the gradient once
    x, wv = a.numpy().astype(np.float64), w.numpy().astype(np.float64)
    bb = x * x + 2 * x
    cc = bb * wv - 0.5 * bb / (1 + bb * bb)
    dc = 2 * cc + 1
    db = dc * (wv - 0.5 * (1 - bb * bb) / (1 + bb * bb) ** 2)
    np.testing.assert_allclose(a.grad.numpy(), db * (2 * x + 2), rtol=2e-3, atol=1e-3)
    np.testing.assert_allclose(w.grad.numpy(), dc * bb, rtol=2e-3, atol=1e-3)

    fwd_med, fwd_min = median_time(forward, args.runs)
    fb_med, fb_min = median_time(forward_backward, args.runs)
    bwd_med, bwd_min = median_time(lambda: tape.backward(grads={d: ones}), args.runs)
    zero_med, _ = median_time(tape.zero, args.runs)
    print(f"3-kernel chain, n={n:,} float32, median of {args.runs} warm runs (min in brackets):")
    print(f"  forward (3 launches)             {fwd_med * 1e3:8.3f} ms  [{fwd_min * 1e3:.3f}]")
    print(f"  backward (3 adjoint launches)    {bwd_med * 1e3:8.3f} ms  [{bwd_min * 1e3:.3f}]  "
          f"= {bwd_med / fwd_med:.2f}x the forward (target <= {TARGET_RATIO}x)")
    print(f"  tape.zero() (5 gradient arrays)  {zero_med * 1e3:8.3f} ms")
    print(f"  full step: reset + record/forward + backward  {fb_med * 1e3:8.3f} ms  [{fb_min * 1e3:.3f}]  "
          f"= {fb_med / fwd_med:.2f}x the forward")
    result("autodiff_chain_1M_forward", fwd_med * 1e3, "ms", None)
    result("autodiff_chain_1M_backward", bwd_med * 1e3, "ms", None)
    result("autodiff_chain_1M_backward_over_forward", bwd_med / fwd_med, "x", TARGET_RATIO)
    result("autodiff_chain_1M_step_over_forward", fb_med / fwd_med, "x", None)

    child = os.path.join(tmp.name, "child.py")
    with open(child, "w") as f:
        f.write(CHILD)
    runs = [cold_compile(kfile, child) for _ in range(args.repeats)]
    fwd = statistics.median(r["forward_s"] for r in runs)
    adj = statistics.median(r["adjoint_s"] for r in runs)
    tmp.cleanup()
    print(f"cold compile of the 3 kernels (median of {args.repeats} fresh processes):")
    print(f"  forward code (first launches)          {fwd * 1e3:8.1f} ms")
    print(
        f"  adjoint code (added by first backward) {adj * 1e3:8.1f} ms   ({adj / 3 * 1e3:.1f} ms per kernel)"
    )
    result("autodiff_cold_compile_3_kernels_forward", fwd * 1e3, "ms", None)
    result("autodiff_cold_compile_3_kernels_adjoint", adj * 1e3, "ms", None)
    result("autodiff_cold_compile_adjoint_per_kernel", adj / 3 * 1e3, "ms", None)


if __name__ == "__main__":
    main()
