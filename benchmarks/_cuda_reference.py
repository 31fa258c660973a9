"""The CUDA workloads of ``bench_cuda.py`` written in CUDA C (CuPy RawKernel, NVRTC defaults) and
PyTorch, timed in the same process on the same card. Each function returns None when its
framework is not installed or has no CUDA device, so the benchmark prints what it can.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

CUDA_SOURCE = r"""
extern "C" __global__ void saxpy(const float* x, float* y, float a, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void saxpy4(const float4* x, float4* y, float a, long long n4) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 u = x[i], v = y[i];
        v.x = a * u.x + v.x; v.y = a * u.y + v.y; v.z = a * u.z + v.z; v.w = a * u.w + v.w;
        y[i] = v;
    }
}

extern "C" __global__ void sincos_loop(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], s = 0.0f;
    for (int k = 0; k < 200; ++k) { s = s + sinf(v) + cosf(v); v = v + 0.001f; }
    out[i] = s;
}

extern "C" __global__ void nbody(const float* pos, float* vel, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float px = pos[3 * i], py = pos[3 * i + 1], pz = pos[3 * i + 2];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; ++j) {
        float dx = pos[3 * j] - px, dy = pos[3 * j + 1] - py, dz = pos[3 * j + 2] - pz;
        float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + 0.01f);
        float inv3 = inv * inv * inv;
        ax += dx * inv3; ay += dy * inv3; az += dz * inv3;
    }
    vel[3 * i] += ax * dt; vel[3 * i + 1] += ay * dt; vel[3 * i + 2] += az * dt;
}

extern "C" __global__ void empty(float* a, float b) {}
"""


def _median_event_ms(
    record_start: Callable, record_end: Callable, elapsed: Callable, fn, runs: int, launches: int = 1
):
    """Median over ``runs`` of the time per call of ``launches`` calls of ``fn`` between two events
    (``launches`` > 1: back to back, close to the kernel's own time; 1: includes issuing it)."""
    times = []
    for _ in range(runs):
        s = record_start()
        for _ in range(launches):
            fn()
        e = record_end()
        times.append(elapsed(s, e) / launches)
    return float(np.median(times))


def cuda_c_figures(n: int, m: int, bodies: int, runs: int, launches: int) -> dict[str, float] | None:
    """saxpy (scalar and float4), sin/cos, n-body in CUDA C via CuPy: {name: figure}."""
    try:
        import cupy as cp

        if cp.cuda.runtime.getDeviceCount() == 0:
            return None
    except Exception:
        return None
    module = cp.RawModule(code=CUDA_SOURCE)
    k = {name: module.get_function(name) for name in ("saxpy", "saxpy4", "sincos_loop", "nbody", "empty")}

    def timed(fn, launches: int = 1) -> float:
        def start():
            ev = cp.cuda.Event()
            ev.record()
            return ev

        def elapsed(s, e) -> float:
            e.synchronize()
            return cp.cuda.get_elapsed_time(s, e)

        return _median_event_ms(start, start, elapsed, fn, runs if launches == 1 else 10, launches)

    out: dict[str, float] = {}
    block = 256
    x = cp.asarray(np.random.default_rng(0).random(n, dtype=np.float32))
    y = cp.zeros(n, dtype=cp.float32)
    grid = ((n + block - 1) // block,)
    args = (x, y, cp.float32(2.0), cp.int64(n))
    k["saxpy"](grid, (block,), args)
    out["saxpy_us"] = timed(lambda: k["saxpy"](grid, (block,), args)) * 1000
    n4 = n // 4
    grid4 = ((n4 + block - 1) // block,)
    args4 = (x, y, cp.float32(2.0), cp.int64(n4))
    out["saxpy4_us"] = timed(lambda: k["saxpy4"](grid4, (block,), args4)) * 1000
    out["saxpy_b2b_us"] = timed(lambda: k["saxpy"](grid, (block,), args), 20) * 1000
    out["saxpy4_b2b_us"] = timed(lambda: k["saxpy4"](grid4, (block,), args4), 20) * 1000

    xs = cp.linspace(0, 1, m, dtype=cp.float32)
    o = cp.zeros(m, dtype=cp.float32)
    gm = ((m + block - 1) // block,)
    out["sincos_ms"] = timed(lambda: k["sincos_loop"](gm, (block,), (xs, o, cp.int32(m))))
    out["sincos_b2b_ms"] = timed(lambda: k["sincos_loop"](gm, (block,), (xs, o, cp.int32(m))), 20)

    pos = cp.asarray(np.random.default_rng(1).random((bodies, 3), dtype=np.float32))
    vel = cp.zeros((bodies, 3), dtype=cp.float32)
    gb = ((bodies + block - 1) // block,)
    out["nbody_ms"] = timed(lambda: k["nbody"](gb, (block,), (pos, vel, cp.float32(0.01), cp.int32(bodies))))

    a = cp.zeros(1, dtype=cp.float32)
    k["empty"]((1,), (1,), (a, cp.float32(1.0)))
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(launches):
        k["empty"]((1,), (1,), (a, cp.float32(1.0)))
    out["launch_us"] = (time.perf_counter() - t0) / launches * 1e6
    cp.cuda.Device().synchronize()
    return out


def torch_figures(n: int, runs: int, launches: int) -> dict[str, float] | None:
    """saxpy (``y.add_(x, alpha=a)``) and the launch overhead of a 1-element add_ in PyTorch."""
    try:
        import torch

        if not torch.cuda.is_available():
            return None
    except Exception:
        return None

    def start():
        ev = torch.cuda.Event(enable_timing=True)
        ev.record()
        return ev

    def elapsed(s, e):
        e.synchronize()
        return s.elapsed_time(e)

    x = torch.rand(n, device="cuda", dtype=torch.float32)
    y = torch.zeros(n, device="cuda", dtype=torch.float32)
    y.add_(x, alpha=2.0)
    out = {"saxpy_us": _median_event_ms(start, start, elapsed, lambda: y.add_(x, alpha=2.0), runs) * 1000}
    out["saxpy_b2b_us"] = _median_event_ms(start, start, elapsed, lambda: y.add_(x, alpha=2.0), 10, 20) * 1000
    a = torch.zeros(1, device="cuda")
    a.add_(1.0)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(launches):
        a.add_(1.0)
    out["launch_us"] = (time.perf_counter() - t0) / launches * 1e6
    torch.cuda.synchronize()
    return out
