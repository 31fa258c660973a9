"""``wp.utils`` on a device: radix sort of pairs, prefix sums and a sum, beside PyTorch.

    python benchmarks/bench_utils.py [--device cuda:0] [--n 1048576] [--runs 10]

On a CUDA device ``wp.utils`` runs kernels there (``warp_builtins.device_utils``); on the CPU it
runs NumPy in place. Each figure is the median wall time of one call followed by a device
synchronization. Beside it, where PyTorch has the device: ``torch.sort(stable=True)`` of the keys
with ``torch.gather`` of the values, ``torch.cumsum`` and ``torch.sum``. The results are checked
against NumPy once before timing.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, median_time, result  # noqa: E402

import warp as wp  # noqa: E402
import warp.utils as wu  # noqa: E402


def _torch_for(device: wp.Device):
    """PyTorch and its device for ``device``, or (None, None) when torch cannot use it."""
    try:
        import torch
    except ImportError:
        return None, None
    if device.is_cuda:
        if not torch.cuda.is_available():
            return None, None
        return torch, torch.device(f"cuda:{device.ordinal}")
    return torch, torch.device("cpu")


def _timed(name: str, fn, device: wp.Device, runs: int) -> float:
    def call() -> None:
        fn()
        wp.synchronize_device(device)

    median, _ = median_time(call, runs, warmup=2)
    ms = median * 1e3
    print(f"{name:40s} {ms:9.3f} ms")
    result(name.replace(" ", "_"), ms, "ms", None)
    return ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--n", type=int, default=1 << 20)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    device = wp.get_device(args.device)
    n, rng = args.n, np.random.default_rng(0)
    print(machine_info())
    print(f"device: {device} ({device.name}); n = {n}")
    torch, tdev = _torch_for(device)

    for dtype, np_type in ((wp.int32, np.int32), (wp.float32, np.float32)):
        raw = rng.integers(-(2**30), 2**30, n) if np_type is np.int32 else rng.normal(size=n)
        keys = raw.astype(np_type)
        k = wp.array(np.concatenate([keys, keys]), dtype=dtype, device=device)
        v = wp.array(np.arange(2 * n, dtype=np.int32), dtype=wp.int32, device=device)
        wu.radix_sort_pairs(k, v, n)
        order = np.argsort(keys, kind="stable")
        if not (np.array_equal(k.numpy()[:n], keys[order]) and np.array_equal(v.numpy()[:n], order)):
            raise SystemExit(f"radix_sort_pairs({dtype.__name__}) disagrees with NumPy")
        sort = lambda k=k, v=v: wu.radix_sort_pairs(k, v, n)  # noqa: E731
        _timed(f"warp radix_sort_pairs {dtype.__name__}", sort, device, args.runs)
        if torch is not None:
            tk = torch.from_numpy(keys).to(tdev)
            tv = torch.arange(n, dtype=torch.int32, device=tdev)

            def torch_sort(tk=tk, tv=tv) -> None:
                sorted_keys, idx = torch.sort(tk, stable=True)
                torch.gather(tv, 0, idx)

            _timed(f"torch sort+gather {dtype.__name__}", torch_sort, device, args.runs)

    values = rng.integers(0, 9, n).astype(np.int32)
    src = wp.array(values, device=device)
    out = wp.empty(n, dtype=wp.int32, device=device)
    wu.array_scan(src, out, inclusive=True)
    if not np.array_equal(out.numpy(), np.cumsum(values)):
        raise SystemExit("array_scan disagrees with NumPy")
    _timed("warp array_scan int32", lambda: wu.array_scan(src, out, inclusive=True), device, args.runs)
    floats = wp.array(rng.random(n).astype(np.float32), device=device)
    total = wp.empty(1, dtype=wp.float32, device=device)
    _timed("warp array_sum float32", lambda: wu.array_sum(floats, out=total), device, args.runs)
    if torch is not None:
        tvals = torch.from_numpy(values).to(tdev)
        tfloats = torch.from_numpy(floats.numpy()).to(tdev)
        _timed("torch cumsum int32", lambda: torch.cumsum(tvals, 0), device, args.runs)
        _timed("torch sum float32", lambda: torch.sum(tfloats), device, args.runs)


if __name__ == "__main__":
    main()
