"""How fast can saxpy over 10M floats go on this card: CUDA C variants (CuPy) beside warp's entries.

    python benchmarks/bench_saxpy_variants.py [--n 10000000]

``y = a * x + y`` moves 12 bytes per element. Each variant is timed back to back (20 launches
between two events: the kernel's own time) and per run (one launch between two events started on
an idle stream: the host's issue time included). CUDA C variants: one float4 per thread (CuPy's
``saxpy4`` of bench_cuda.py), two and four float4 per thread (indices a grid apart, so each load
instruction stays coalesced), a grid-stride loop over a grid of a few blocks per SM, and the
one-float4 kernel with streaming loads/stores (``__ldcs``/``__stcs``); block sizes 128-1024. Then
warp's saxpy with its vector entry (4 and 8 indices per thread) and its strided entry.
Needs CuPy and a CUDA device; prints a message and exits without them.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import result  # noqa: E402

import warp as wp  # noqa: E402

SOURCE = r"""
#define AXPY(u, v) v.x = a * u.x + v.x; v.y = a * u.y + v.y; v.z = a * u.z + v.z; v.w = a * u.w + v.w;
extern "C" __global__ void one(const float4* __restrict__ x, float4* __restrict__ y, float a, long long n4) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) { float4 u = x[i], v = y[i]; AXPY(u, v) y[i] = v; }
}
extern "C" __global__ void stream(const float4* __restrict__ x, float4* __restrict__ y, float a,
                                  long long n4) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) { float4 u = __ldcs(x + i), v = __ldcs(y + i); AXPY(u, v) __stcs(y + i, v); }
}
template <int K>
__device__ void multi(const float4* __restrict__ x, float4* __restrict__ y, float a, long long n4) {
    long long span = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    float4 u[K], v[K];
    #pragma unroll
    for (int k = 0; k < K; ++k) if (i + k * span < n4) { u[k] = x[i + k * span]; v[k] = y[i + k * span]; }
    #pragma unroll
    for (int k = 0; k < K; ++k) if (i + k * span < n4) { AXPY(u[k], v[k]) y[i + k * span] = v[k]; }
}
extern "C" __global__ void two(const float4* x, float4* y, float a, long long n4) { multi<2>(x, y, a, n4); }
extern "C" __global__ void four(const float4* x, float4* y, float a, long long n4) { multi<4>(x, y, a, n4); }
extern "C" __global__ void gridstride(const float4* __restrict__ x, float4* __restrict__ y, float a,
                                      long long n4) {
    long long span = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += span) {
        float4 u = x[i], v = y[i]; AXPY(u, v) y[i] = v;
    }
}
"""


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


saxpy_8 = wp.Kernel(saxpy.func, key="saxpy_v8", options={"cuda_vector_entry": 8})
saxpy_strided = wp.Kernel(saxpy.func, key="saxpy_strided_only", options={"cuda_vector_entry": False})


def _times_us(fn, runs: int = 30) -> tuple[float, float]:
    """(per run, back to back) median microseconds of ``fn`` between warp events."""
    per_run, b2b = [], []
    for _ in range(runs):
        s, e = wp.Event(enable_timing=True), wp.Event(enable_timing=True)
        wp.record_event(s)
        fn()
        wp.record_event(e)
        per_run.append(wp.get_event_elapsed_time(s, e) * 1000)
    for _ in range(10):
        s, e = wp.Event(enable_timing=True), wp.Event(enable_timing=True)
        wp.record_event(s)
        for _ in range(20):
            fn()
        wp.record_event(e)
        b2b.append(wp.get_event_elapsed_time(s, e) * 1000 / 20)
    return float(np.median(per_run)), float(np.median(b2b))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10_000_000)
    n = parser.parse_args().n
    try:
        import cupy as cp
    except ImportError:
        cp = None
    if not wp.is_cuda_available():
        print("no CUDA device: skipped")
        return
    dev = wp.get_device("cuda:0")
    x = wp.array(np.random.default_rng(0).random(n, dtype=np.float32), device=dev)
    y = wp.zeros(n, dtype=float, device=dev)

    def report(name: str, fn) -> None:
        fn()
        wp.synchronize()
        run, b2b = _times_us(fn)
        tbps = n * 12 / (b2b * 1e-6) / 1e12
        print(f"{name:<44} per run {run:6.1f} us   back to back {b2b:6.1f} us ({tbps:.2f} TB/s)")
        result("saxpy_variant_" + name.split(",")[0].replace(" ", "_"), b2b, "us", None)

    for name, k in (
        ("warp vector entry 4", saxpy),
        ("warp vector entry 8", saxpy_8),
        ("warp strided", saxpy_strided),
    ):
        report(name, lambda k=k: wp.launch(k, dim=n, inputs=[x, y, 2.0], device=dev))
    if cp is None:
        print("CuPy not installed: CUDA C variants skipped")
        return
    module = cp.RawModule(code=SOURCE, options=("-std=c++17",))
    sms = dev.sm_count
    stream = cp.cuda.ExternalStream(int(wp.get_stream(dev).cuda_stream))
    cx = cp.ndarray((n,), cp.float32, cp.cuda.MemoryPointer(cp.cuda.UnownedMemory(x.ptr, n * 4, x), 0))
    cy = cp.ndarray((n,), cp.float32, cp.cuda.MemoryPointer(cp.cuda.UnownedMemory(y.ptr, n * 4, y), 0))
    n4 = n // 4
    with stream:
        for kname, per_thread in (("one", 1), ("stream", 1), ("two", 2), ("four", 4)):
            kern = module.get_function(kname)
            for block in (128, 256, 512, 1024):
                grid = (n4 + block * per_thread - 1) // (block * per_thread)
                args = (cx, cy, cp.float32(2.0), cp.int64(n4))
                report(f"C {kname}, block {block}", lambda g=grid, b=block, a=args, k=kern: k((g,), (b,), a))
        kern = module.get_function("gridstride")
        for per_sm in (2, 4, 8, 16):
            args = (cx, cy, cp.float32(2.0), cp.int64(n4))
            report(
                f"C gridstride {per_sm}/SM, block 256", lambda p=per_sm, a=args: kern((sms * p,), (256,), a)
            )


if __name__ == "__main__":
    main()
