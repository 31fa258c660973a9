"""First-launch latency of a small kernel: cold (empty kernel cache) and cached, each in a fresh process.

    python benchmarks/bench_compile.py [--repeats 5]

Every measurement runs in a new Python subprocess with ``WARP_CACHE_PATH`` pointing at a
temporary directory: "cold" starts from an empty directory (full compile: frontend, lowering,
LLVM optimization and code generation), "cached" runs again on the directory the cold run
filled (load object code from disk). The time is taken from just before the first
``wp.launch`` to just after it; ``import warp`` is reported separately.
Targets: <= 0.15 s cold, <= 10 ms cached.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, result  # noqa: E402

TARGET_COLD_S = 0.15
TARGET_CACHED_MS = 10.0

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import warp as wp
t1 = time.perf_counter()
wp.config.quiet = True

@wp.kernel
def small(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32, n: int):
    i = wp.tid()
    v = x[i]
    s = 0.0
    for k in range(n):
        if v > 0.5:
            s += a * v
        else:
            s -= v * v
    y[i] = s

x = wp.ones(16, dtype=wp.float32)
y = wp.zeros(16, dtype=wp.float32)
t2 = time.perf_counter()
wp.launch(small, dim=16, inputs=[x, y, 2.0, 3])
t3 = time.perf_counter()
assert float(y.numpy()[0]) == 6.0, y.numpy()
print(json.dumps({"import_s": t1 - t0, "first_launch_s": t3 - t2}))
"""


def run_child(script: str, cache_dir: str) -> dict:
    env = dict(os.environ, WARP_CACHE_PATH=cache_dir)
    proc = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark subprocess failed (rc={proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import warp as wp

    wp.config.quiet = True
    print(machine_info())

    cold, cached, imports = [], [], []
    for _ in range(args.repeats):
        # kernels need their source on disk (inspect), so the child is a script file
        with tempfile.TemporaryDirectory(prefix="warp-bench-compile-") as tmp:
            script = os.path.join(tmp, "first_launch.py")
            with open(script, "w") as f:
                f.write(CHILD)
            cache_dir = os.path.join(tmp, "cache")
            c = run_child(script, cache_dir)
            w = run_child(script, cache_dir)
        cold.append(c["first_launch_s"])
        cached.append(w["first_launch_s"])
        imports += [c["import_s"], w["import_s"]]

    cold_s = statistics.median(cold)
    cached_s = statistics.median(cached)
    print(f"first launch of a small kernel, fresh process, median of {args.repeats}:")
    print(
        f"  cold (empty cache)  {cold_s * 1e3:8.1f} ms  (min {min(cold) * 1e3:.1f})  target <= "
        f"{TARGET_COLD_S * 1e3:.0f} ms"
    )
    print(
        f"  cached              {cached_s * 1e3:8.2f} ms  (min {min(cached) * 1e3:.2f})  target <= "
        f"{TARGET_CACHED_MS:.0f} ms"
    )
    print(f"  import warp         {statistics.median(imports) * 1e3:8.1f} ms")
    result("compile_cold", cold_s, "s", TARGET_COLD_S)
    result("compile_cached", cached_s * 1e3, "ms", TARGET_CACHED_MS)
    result("import_warp", statistics.median(imports) * 1e3, "ms", None)


if __name__ == "__main__":
    main()
