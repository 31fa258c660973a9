"""Tuning of the device radix sort and scan (warp_builtins.device_sort) on a CUDA device.

    python benchmarks/bench_device_sort_tuning.py

Times ``radix_sort_pairs`` of 1M and 4M int32 pairs for several ``SORT_THREADS`` and the
inclusive ``scan`` of 1M and 16M int32 for several ``SCAN_CHUNK`` sizes (median of 5, each
checked against NumPy once). The module's constants were chosen from this on an H200. Needs a
CUDA device.
"""

import sys

import time

import numpy as np

import warp as wp
from warp_builtins import device_sort

if not wp.is_cuda_available():
    sys.exit("needs a CUDA device")
dev = wp.get_device("cuda:0")
rng = np.random.default_rng(0)
chosen_threads, chosen_chunk = device_sort.SORT_THREADS, device_sort.SCAN_CHUNK
for n in (1 << 20, 1 << 22):
    keys = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    k = wp.array(keys, device=dev)
    v = wp.array(np.arange(n, dtype=np.int32), device=dev)
    order = np.argsort(keys.view(np.uint32), kind="stable")
    for threads in (8192, 16384, 32768, 65536, 131072):
        device_sort.SORT_THREADS = threads
        ko, vo = device_sort.radix_sort_pairs(k, v, n, 32)
        wp.synchronize_device(dev)
        ok = np.array_equal(vo.numpy(), order)
        ts = []
        for _ in range(5):
            t = time.perf_counter()
            device_sort.radix_sort_pairs(k, v, n, 32)
            wp.synchronize_device(dev)
            ts.append(time.perf_counter() - t)
        print(
            f"n={n} SORT_THREADS={threads} chunk={device_sort.sort_chunk(n)} ok={ok} "
            f"median {np.median(ts) * 1e3:.3f} ms",
            flush=True,
        )
device_sort.SORT_THREADS = chosen_threads
for n in (1 << 20, 1 << 24):
    data = rng.integers(0, 9, n).astype(np.int32)
    src = wp.array(data, device=dev)
    out = wp.empty(n, dtype=wp.int32, device=dev)
    for chunk in (8, 16, 32, 64, 128):
        device_sort.SCAN_CHUNK = chunk
        device_sort.scan(src, out, n, True)
        wp.synchronize_device(dev)
        ok = np.array_equal(out.numpy(), np.cumsum(data))
        ts = []
        for _ in range(5):
            t = time.perf_counter()
            device_sort.scan(src, out, n, True)
            wp.synchronize_device(dev)
            ts.append(time.perf_counter() - t)
        print(f"scan n={n} SCAN_CHUNK={chunk} ok={ok} median {np.median(ts) * 1e3:.3f} ms", flush=True)
device_sort.SCAN_CHUNK = chosen_chunk
