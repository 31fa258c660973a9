"""Run every benchmark in its own process and print a summary table (figures only, no assertions).

    python benchmarks/run_all.py [--only saxpy,compile] [--cache-dir DIR]

Each ``bench_*.py`` script prints ``RESULT <name> <value> <unit> <target>`` lines (see
``_common.py``) or ``SKIP <name> <reason>``; this collects them. All scripts share one fresh
temporary kernel cache (unless ``--cache-dir`` is given) so nothing stale is measured.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHMARKS = [
    "bench_launch_overhead", "bench_saxpy", "bench_compile", "bench_sincos", "bench_nbody", "bench_autodiff",
    "bench_geometry",
    "bench_mesh_queries",
    "bench_sparse_marching_cubes",
    "bench_bvh_build",
    "bench_capture",
    "bench_generic_launch",
    "bench_interop",
    "bench_bfloat16",
]


def run_one(name: str, env: dict[str, str]) -> tuple[list[tuple[str, ...]], int, float]:
    print(f"=== {name} ===", flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, os.path.join(HERE, f"{name}.py")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - t0
    rows = []
    for line in proc.stdout.splitlines():
        parts = line.split()
        if parts[:1] == ["RESULT"] and len(parts) == 5:
            rows.append(tuple(parts[1:]))
        elif parts[:1] == ["SKIP"]:
            rows.append((parts[1] if len(parts) > 1 else name, "skipped", "", " ".join(parts[2:])))
        else:
            print(f"  {line}")
    if proc.returncode != 0:
        print(proc.stderr, end="")
        rows.append((name, "FAILED", "", f"rc={proc.returncode}"))
    return rows, proc.returncode, elapsed


def verdict(value: str, target: str) -> str:
    try:
        return "ok" if float(value) <= float(target) else "OVER"
    except ValueError:
        return ""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="", help="comma-separated substrings of benchmark names")
    parser.add_argument("--cache-dir", default=None, help="kernel cache to use (default: a fresh temp dir)")
    args = parser.parse_args()
    selected = [b for b in BENCHMARKS if not args.only or any(s in b for s in args.only.split(","))]

    tmp = None
    cache_dir = args.cache_dir
    if cache_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="warp-bench-")
        cache_dir = tmp.name
    env = dict(os.environ, WARP_CACHE_PATH=cache_dir)

    all_rows, failed = [], 0
    try:
        for name in selected:
            rows, rc, elapsed = run_one(name, env)
            all_rows += rows
            failed += rc != 0
            print(f"  ({elapsed:.1f} s)")
    finally:
        if tmp is not None:
            tmp.cleanup()

    print()
    print(f"{'figure':<26} {'value':>12} {'unit':<5} {'target':>8}  verdict")
    print("-" * 62)
    for row in all_rows:
        figure, value, unit, target = row
        if value in ("skipped", "FAILED"):
            print(f"{figure:<26} {value:>12} {'':<5} {'':>8}  {target}")
            continue
        shown = f"<= {target}" if target != "-" else "-"
        print(f"{figure:<26} {float(value):>12.4g} {unit:<5} {shown:>8}  {verdict(value, target)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
