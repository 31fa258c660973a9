"""Which way of calling ``cuLaunchKernel`` costs the host least: stream kinds, parameter passing
and bindings, side by side.

    python benchmarks/bench_launch_variants.py [--device cuda:0]

Every variant launches the same empty one-thread kernel with a prebuilt argument buffer, in
bursts of 32 on an idle stream (the host's cost, not the GPU's drain rate; see
``bench_launch_queue.py``), best of 300 bursts. Variants:

- the stream: warp's current stream (created blocking, as warp's streams are), a stream created
  ``CU_STREAM_NON_BLOCKING``, the legacy default stream (``0``) and the per-thread default
  stream (``CU_STREAM_PER_THREAD``);
- the parameters: the packed buffer through ``extra`` (``CU_LAUNCH_PARAM_BUFFER_POINTER``, what
  warp uses) or through ``kernelParams`` (one pointer, the entry takes one ``byval`` buffer);
- the call: cuda-bindings, or ctypes into libcuda with prebuilt ``c_void_p`` arguments.

A ctypes call of a no-op C function (libc ``abs``) is printed as the floor of any ctypes call.
Needs a CUDA device; prints a message and exits without one.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import result  # noqa: E402
from _driver_launch import PreparedLaunch, burst_us, empty_kernel, prepare_empty_launch  # noqa: E402

import warp as wp  # noqa: E402
from warp.targets.cuda import driver as drv  # noqa: E402

#: cuda.h's special stream handles
_LEGACY, _PER_THREAD = 0x1, 0x2


def _variants(prepared: PreparedLaunch, streams: dict[str, int]) -> dict[str, Callable[[], object]]:
    cu = drv.driver()
    lib = ctypes.CDLL("libcuda.so.1")
    raw = ctypes.CFUNCTYPE(ctypes.c_int)(("cuLaunchKernel", lib))
    function = prepared.function
    f = ctypes.c_void_p(int(function))
    extra = ctypes.c_void_p(prepared.extra_address)
    params = (ctypes.c_void_p * 1)(prepared.buffer_address)
    params_ptr = ctypes.c_void_p(ctypes.addressof(params))
    launch = cu.cuLaunchKernel
    out: dict[str, Callable[[], object]] = {}
    for sname, handle in streams.items():
        s = ctypes.c_void_p(handle)
        cs = cu.CUstream(handle)

        out[f"bindings extra, {sname}"] = lambda cs=cs: launch(
            function, 1, 1, 1, 32, 1, 1, 0, cs, None, prepared.extra_address
        )
        out[f"bindings params, {sname}"] = lambda cs=cs: launch(
            function, 1, 1, 1, 32, 1, 1, 0, cs, ctypes.addressof(params), 0
        )
        out[f"ctypes extra, {sname}"] = lambda s=s: raw(f, 1, 1, 1, 32, 1, 1, 0, s, None, extra)
        out[f"ctypes params, {sname}"] = lambda s=s: raw(f, 1, 1, 1, 32, 1, 1, 0, s, params_ptr, None)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda:0")
    args = parser.parse_args()
    ready = prepare_empty_launch(args.device)
    if ready is None:
        return
    dev, a, prepared = ready
    cu = drv.driver()
    nonblocking = drv.check(
        cu.cuStreamCreate(int(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)), "cuStreamCreate"
    )
    streams = {
        "warp stream": int(prepared.stream),
        "non-blocking stream": int(nonblocking),
        "legacy stream": _LEGACY,
        "per-thread stream": _PER_THREAD,
    }
    libc_abs = ctypes.CDLL(None).abs
    one = ctypes.c_int(1)
    print(f"ctypes floor (libc abs): {burst_us(lambda: libc_abs(one), 32, 300):.3f} us per call")
    launch_us = burst_us(lambda: wp.launch(empty_kernel, dim=1, inputs=[a, 1.0], device=dev), 32, 300)
    print(f"wp.launch: {launch_us:.2f} us")
    cmd = wp.launch(empty_kernel, dim=1, inputs=[a, 1.0], device=dev, record_cmd=True)
    print(f"recorded Launch.launch(): {burst_us(cmd.launch, 32, 300):.2f} us")
    for name, fn in _variants(prepared, streams).items():
        us = burst_us(fn, 32, 300)
        print(f"{name}: {us:.2f} us per launch (host)")
        result("launch_variant_" + name.replace(",", "").replace(" ", "_").replace("-", "_"), us, "us", None)
    drv.check(cu.cuStreamDestroy(nonblocking), "cuStreamDestroy")


if __name__ == "__main__":
    main()
