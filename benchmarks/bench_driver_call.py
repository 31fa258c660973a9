"""Cost of the call into ``cuLaunchKernel`` itself, without a GPU: cuda-bindings against ctypes.

    python benchmarks/bench_driver_call.py [--calls 200000]

Compiles a stub ``libcuda.so.1`` with gcc (its ``cuLaunchKernel`` returns success at once;
``cuGetProcAddress_v2`` hands out its functions) and times, in a child process that loads the
stub through ``LD_LIBRARY_PATH``, the launch call as warp makes it (``CUfunction``, ints,
``CUstream``, the ``extra`` array's address) through cuda-bindings, and the same call through
ctypes (with ``argtypes``; without, with prebuilt ctypes arguments). The driver's own work on a
GPU host comes on top of each figure. Needs gcc and cuda-bindings (cuda-python).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time

_STUB = r"""
#include <string.h>
typedef int CUresult;
CUresult cuInit(unsigned int flags) { return 0; }
CUresult cuDriverGetVersion(int *version) { *version = 13000; return 0; }
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  return 0;
}
static CUresult succeed(void) { return 0; }
CUresult cuGetProcAddress_v2(const char *name, void **fn, int version, unsigned long long flags,
                             int *status) {
  if (status) *status = 0;
  if (!strcmp(name, "cuLaunchKernel")) *fn = (void *)cuLaunchKernel;
  else if (!strcmp(name, "cuInit")) *fn = (void *)cuInit;
  else if (!strcmp(name, "cuDriverGetVersion")) *fn = (void *)cuDriverGetVersion;
  else if (!strcmp(name, "cuGetProcAddress")) *fn = (void *)cuGetProcAddress_v2;
  else *fn = (void *)succeed;
  return 0;
}
CUresult cuGetProcAddress(const char *name, void **fn, int version, unsigned long long flags) {
  return cuGetProcAddress_v2(name, fn, version, flags, 0);
}
"""


def _best_ns(fn, calls: int, repeats: int = 7) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e9


def _child(calls: int) -> None:
    from cuda.bindings import driver as cu

    (err,) = cu.cuInit(0)
    assert int(err) == 0, err
    function, stream = cu.CUfunction(0x1234), cu.CUstream(0x5678)
    buffer = ctypes.create_string_buffer(176)
    nbytes = ctypes.c_size_t(len(buffer))
    extra = (ctypes.c_void_p * 5)(1, ctypes.addressof(buffer), 2, ctypes.addressof(nbytes), 0)
    extra_address = ctypes.addressof(extra)
    launch = cu.cuLaunchKernel
    assert int(launch(function, 1, 1, 1, 256, 1, 1, 0, stream, None, extra_address)[0]) == 0
    figures = {
        "cuda-bindings cuLaunchKernel (as warp calls it)":
            lambda: launch(function, 1, 1, 1, 256, 1, 1, 0, stream, None, extra_address),
    }
    lib = ctypes.CDLL("libcuda.so.1")
    typed = lib.cuLaunchKernel
    typed.restype = ctypes.c_int
    typed.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    f, s = int(function), int(stream)
    figures["ctypes, argtypes"] = lambda: typed(f, 1, 1, 1, 256, 1, 1, 0, s, None, extra_address)
    untyped = ctypes.CFUNCTYPE(ctypes.c_int)(("cuLaunchKernel", lib))
    fv, sv, ev = ctypes.c_void_p(f), ctypes.c_void_p(s), ctypes.c_void_p(extra_address)
    figures["ctypes, no argtypes, prebuilt arguments"] = (
        lambda: untyped(fv, 1, 1, 1, 256, 1, 1, 0, sv, None, ev)
    )
    figures["(an empty Python call, for reference)"] = lambda: None
    for name, fn in figures.items():
        print(f"{name}: {_best_ns(fn, calls):.0f} ns per call")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.calls)
        return
    if shutil.which("gcc") is None:
        print("gcc not found: skipped")
        return
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "stub.c")
        with open(source, "w") as f:
            f.write(_STUB)
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", os.path.join(tmp, "libcuda.so.1"), source],
                       check=True)
        env = dict(os.environ, LD_LIBRARY_PATH=tmp + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
        subprocess.run([sys.executable, os.path.abspath(__file__), "--child", "--calls", str(args.calls)],
                       env=env, check=True)


if __name__ == "__main__":
    main()
