"""O(n^2) n-body accelerations over 8192 bodies with wp.vec3 positions (vector math throughput).

    python benchmarks/bench_nbody.py [--n 8192] [--runs 5]

Each thread sums the softened gravitational pull of every body on its own: vector subtraction,
``wp.dot``, ``wp.sqrt`` and scalar * vector products, 67M interactions per launch for n = 8192.
Needs the vector builtins of the warp-builtins package; without them it says so and exits with
status 0. Checks the result against NumPy on a few bodies. Target: <= 0.09 s per launch.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import warp as wp  # noqa: E402
from _common import machine_info, median_time, result  # noqa: E402

TARGET_S = 0.09
SOFTENING = 0.01


@wp.kernel
def accelerations(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = pos[i]
    a = wp.vec3(0.0, 0.0, 0.0)
    for j in range(pos.shape[0]):
        d = pos[j] - p
        r2 = wp.dot(d, d) + 0.0001  # SOFTENING ** 2
        inv_r = 1.0 / wp.sqrt(r2)
        a += d * (mass[j] * inv_r * inv_r * inv_r)
    acc[i] = a


def numpy_accelerations(pos: np.ndarray, mass: np.ndarray, rows: np.ndarray) -> np.ndarray:
    d = pos[None, :, :] - pos[rows, None, :]
    r2 = np.sum(d * d, axis=2) + SOFTENING**2
    return np.sum(d * (mass[None, :] / r2**1.5)[:, :, None], axis=1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=8192)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None,
                        help="wp.config.cpu_threads (default: every core)")
    args = parser.parse_args()
    wp.config.quiet = True
    wp.config.cpu_threads = args.threads
    print(machine_info())

    from warp.compiler.registry import builtin_registry

    try:  # until the warp-builtins plugin registers the vector builtins itself (idempotent)
        from warp_builtins import vector_math

        vector_math.register(builtin_registry)
    except ImportError:
        pass
    missing = [name for name in ("dot", "sqrt") if name not in builtin_registry]
    if missing:
        print(
            f"bench_nbody: skipped: builtin(s) {', '.join('wp.' + m for m in missing)} not registered "
            "(they come from the warp-builtins package: pip install -e packages/warp-builtins)"
        )
        print("SKIP nbody_8192 builtins-missing")
        return

    n = args.n
    rng = np.random.default_rng(0)
    pos_np = rng.standard_normal((n, 3)).astype(np.float32)
    mass_np = rng.uniform(0.5, 1.5, n).astype(np.float32)
    pos = wp.array(pos_np, dtype=wp.vec3)
    mass = wp.array(mass_np, dtype=wp.float32)
    acc = wp.zeros(n, dtype=wp.vec3)
    if hasattr(wp, "load_module"):
        wp.load_module(device="cpu")  # compile / load without launching
    else:
        wp.launch(accelerations, dim=n, inputs=[pos, mass, acc])
    t0 = time.perf_counter()
    wp.launch(accelerations, dim=n, inputs=[pos, mass, acc])  # first launch of the loaded kernel
    first_s = time.perf_counter() - t0

    rows = np.arange(0, n, max(1, n // 64))
    ref = numpy_accelerations(pos_np.astype(np.float64), mass_np.astype(np.float64), rows)
    err = float(np.max(np.abs(acc.numpy()[rows] - ref) / (np.abs(ref).max() + 1e-30)))
    print(f"max error vs NumPy (float64) on {len(rows)} bodies, relative to the largest component: {err:.3g}")

    med, fastest = median_time(lambda: wp.launch(accelerations, dim=n, inputs=[pos, mass, acc]), args.runs)
    pairs = n * n
    print(f"n-body accelerations, n={n:,} ({pairs / 1e6:.0f}M interactions), "
          f"median of {args.runs} warm launches:")
    print(f"  warp launch   {med:8.4f} s  [min {fastest:.4f}]  {pairs / med / 1e9:6.2f} G interactions/s  "
          f"(target <= {TARGET_S} s)")
    print(f"  first launch  {first_s:8.4f} s  (measures a probe of 1/16 of the threads, then decides)")
    result("nbody_8192", med, "s", TARGET_S)


if __name__ == "__main__":
    main()
