"""Loading a module of six kernels in a new process: cold (empty kernel cache: compile) and warm
(the same module again from the kernel cache), on the CPU and on cuda:0 where present.

    python benchmarks/bench_module_load.py [--runs 7] [--devices cpu,cuda:0]

Each figure is the median over ``--runs`` fresh processes of the time ``wp.load_module`` takes
for the module (the device is initialized first, so its start-up is not counted: on every device
its target, the runtime that loads and launches code, is started, as ``wp.init`` starts NVIDIA
Warp's native runtime, and CUDA's context is made). Reference
(issue 19): NVIDIA Warp 1.19 warm load of six kernels, 2.9 ms on an H200, 4.3 ms on the CPU of
the development machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, result  # noqa: E402

WARP_NS = {"cpu": 4.3, "cuda:0": 2.9}


def _child(module_path: str, device: str) -> None:
    """In a fresh process: seconds spent in wp.load_module for the module at ``module_path``."""
    import warp as wp

    wp.config.quiet = True
    dev = wp.get_device(device)
    dev.target  # noqa: B018 - start the device's runtime (its target), on the CPU as on CUDA
    if dev.is_cuda:
        wp.synchronize_device(dev)
    spec = importlib.util.spec_from_file_location("six_kernels_load", module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    t0 = time.perf_counter()
    wp.load_module(module, device=dev)
    print(f"{time.perf_counter() - t0:.6f}")


def _load_time(module_path: str, device: str, cache: str) -> float:
    env = dict(os.environ, WARP_CACHE_PATH=cache)
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", module_path, device],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--devices", default=None, help="comma-separated (default: cpu, cuda:0 if present)")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    import warp as wp
    from bench_cuda import _compile_source

    wp.config.quiet = True
    print(machine_info())
    devices = ["cpu"] + (["cuda:0"] if wp.is_cuda_available() else [])
    if args.devices:
        devices = args.devices.split(",")
    for device in devices:
        cold, warm = [], []
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "six_kernels_load.py")
            with open(path, "w") as f:
                f.write(_compile_source("load"))
            for r in range(args.runs):
                cache = os.path.join(tmp, f"cache{r}")
                cold.append(_load_time(path, device, cache))
                warm.append(_load_time(path, device, cache))
        c, w = statistics.median(cold), statistics.median(warm)
        name = device.replace(":", "")
        print(
            f"{device}: 6-kernel module, cold load (compile) {c * 1e3:.1f} ms, warm load (kernel cache) "
            f"{w * 1e3:.2f} ms (median of {args.runs} processes; NVIDIA Warp 1.19 warm "
            f"{WARP_NS.get(device, '?')} ms)"
        )
        result(f"module_cold_load_{name}", c * 1e3, "ms", None)
        result(f"module_warm_load_{name}", w * 1e3, "ms", WARP_NS.get(device))


if __name__ == "__main__":
    main()
