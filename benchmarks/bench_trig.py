"""Elementwise sin/cos/tan/atan kernels: time per call and max error in ulp over dense samples.

    python benchmarks/bench_trig.py [--n 4000000] [--runs 7] [--ulp-n 2000000]

Times ``out[i] = wp.<fn>(a[i])`` over n float32 and float64 elements (the thread loop is
vectorized by LLVM's ordinary loop vectorizer) for small arguments (|x| < 100) and large ones
(1e5..1e38, float64 up to 1e300) as wall time (median, min) and as process CPU time per
element (all threads; steadier on a loaded machine), then measures the max error in ulp:

* float32: against NumPy's float64 function of the same float32 input (so the figure is the
  library's own error, relative to the exactly rounded result);
* float64: against NumPy's float64 function (glibc, itself within about 0.5 ulp), so figures
  below ~1 ulp are the sum of both errors.

Figures on a loaded machine are noisy: repeat and compare medians.
"""



import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_info, median_time, result  # noqa: E402

import warp as wp  # noqa: E402

FUNCS = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "atan": np.arctan}


def _make_kernel(name: str, dtype):
    fn = getattr(wp, name)

    def k(a: wp.array(dtype=dtype), out: wp.array(dtype=dtype)):
        i = wp.tid()
        out[i] = fn(a[i])

    return wp.Kernel(k, key=f"bench_trig_{name}_{dtype.__name__}")


def cpu_time(fn, runs: int) -> float:
    """Median process CPU time (all threads) of ``fn()`` in seconds: less sensitive than wall
    time to other processes competing for the cores."""
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def ulp_error(got: np.ndarray, ref: np.ndarray, dtype) -> np.ndarray:
    """``|got - ref|`` in units of the spacing of ``ref`` rounded to ``dtype``."""
    with np.errstate(all="ignore"):
        spacing = np.spacing(np.abs(ref.astype(dtype))).astype(np.float64)
        err = np.abs(got.astype(np.float64) - ref) / spacing
    return np.where(got.astype(np.float64) == ref.astype(dtype).astype(np.float64), 0.0, err)


def samples(dtype, n: int, rng: np.random.Generator) -> dict:
    big = 300.0 if dtype == np.float64 else 38.0
    return {
        "|x|<100": rng.uniform(-100, 100, n).astype(dtype),
        "|x|<pi/4": rng.uniform(-0.785, 0.785, n).astype(dtype),
        f"1e5..1e{big:.0f}": (10.0 ** rng.uniform(5, big, n) * rng.choice([-1.0, 1.0], n)).astype(dtype),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=4_000_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--ulp-n", type=int, default=2_000_000)
    parser.add_argument("--funcs", default="sin,cos,tan,atan")
    parser.add_argument("--dtypes", default="float32,float64")
    args = parser.parse_args()
    wp.config.quiet = True
    print(machine_info())
    rng = np.random.default_rng(0)
    for dname in args.dtypes.split(","):
        npt = np.dtype(dname).type
        wpt = wp.float32 if npt == np.float32 else wp.float64
        data = samples(npt, args.n, rng)
        ulp_data = samples(npt, args.ulp_n, np.random.default_rng(1))
        for name in args.funcs.split(","):
            kernel = _make_kernel(name, wpt)
            for label, x in data.items():
                if name == "atan" and label.startswith("1e"):
                    continue
                a = wp.array(x, dtype=wpt)
                out = wp.empty(x.shape[0], dtype=wpt)
                wp.launch(kernel, dim=x.shape[0], inputs=[a, out])
                def run(k=kernel, n=x.shape[0], a=a, out=out) -> None:
                    wp.launch(k, dim=n, inputs=[a, out])

                med, mn = median_time(run, args.runs)
                cpu = cpu_time(run, args.runs)
                xu = ulp_data[label]
                au = wp.array(xu, dtype=wpt)
                ou = wp.empty(xu.shape[0], dtype=wpt)
                wp.launch(kernel, dim=xu.shape[0], inputs=[au, ou])
                err = ulp_error(ou.numpy(), FUNCS[name](xu.astype(np.float64)), npt)
                worst = int(np.argmax(err))
                print(
                    f"{name:4s} {dname} {label:10s}: {med * 1e3:7.2f} ms [min {mn * 1e3:.2f}] "
                    f"cpu {cpu * 1e9 / x.shape[0]:5.2f} ns/elem  max err {err[worst]:.3f} ulp "
                    f"(at {xu[worst]!r}), mean {err.mean():.3f}"
                )
                tag = label.replace("|", "").replace("<", "lt").replace("/", "").replace(".", "_")
                result(f"{name}_{dname}_{tag}_ms", med * 1e3, "ms", None)
                result(f"{name}_{dname}_{tag}_maxulp", float(err[worst]), "ulp", None)


if __name__ == "__main__":
    main()
