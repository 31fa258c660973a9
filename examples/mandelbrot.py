"""Render the Mandelbrot set with smooth coloring and write it to examples/output/mandelbrot.png.

Everything is computed in one warp kernel launched over a 2-D grid (one thread per pixel):
escape-time iteration with a ``while`` loop and ``break``, a smooth (fractional) iteration
count, 2x2 supersampling and a color ramp read from a small palette array. Only warp-core is
needed (``log2`` is written in the kernel language below); the PNG is written by the tiny
encoder in ``examples/png.py``, so Pillow is not required.

    python examples/mandelbrot.py [--width 1200] [--height 800] [--max-iter 500] [--out PATH]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import warp as wp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png import write_png  # noqa: E402

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "output", "mandelbrot.png")

# Color stops of the ramp (RGB, 0..1), cycled along the smooth iteration count.
PALETTE = [
    (0.00, 0.03, 0.39),
    (0.13, 0.42, 0.80),
    (0.93, 1.00, 1.00),
    (1.00, 0.67, 0.00),
    (0.40, 0.10, 0.05),
    (0.00, 0.01, 0.15),
]


@wp.func
def log2_approx(x: wp.float32) -> wp.float32:
    """log2(x) for x > 0: range reduction to [1, 2), then the atanh series of ln."""
    e = 0.0
    while x >= 2.0:
        x = x * 0.5
        e = e + 1.0
    while x < 1.0:
        x = x * 2.0
        e = e - 1.0
    t = (x - 1.0) / (x + 1.0)
    t2 = t * t
    ln = 2.0 * t * (1.0 + t2 * (0.33333333 + t2 * (0.2 + t2 * (0.14285714 + t2 * 0.11111111))))
    return e + ln * 1.44269504


@wp.func
def escape_count(cx: wp.float32, cy: wp.float32, max_iter: int) -> wp.float32:
    """Smooth iteration count at which z -> z^2 + c escapes, or -1.0 inside the set."""
    # points in the main cardioid or the period-2 bulb never escape: skip their iterations
    q = (cx - 0.25) * (cx - 0.25) + cy * cy
    if q * (q + (cx - 0.25)) <= 0.25 * cy * cy or (cx + 1.0) * (cx + 1.0) + cy * cy <= 0.0625:
        return -1.0
    zx = 0.0
    zy = 0.0
    n = int(0)
    escaped = False
    while n < max_iter:
        zx2 = zx * zx
        zy2 = zy * zy
        if zx2 + zy2 > 65536.0:
            escaped = True
            break
        zy = 2.0 * zx * zy + cy
        zx = zx2 - zy2 + cx
        n += 1
    if not escaped:
        return -1.0
    # |z|^2 = zx^2 + zy^2; nu = n + 1 - log2(log2(|z|))
    log2_abs_z = 0.5 * log2_approx(zx * zx + zy * zy)
    return float(n) + 1.0 - log2_approx(log2_abs_z)


@wp.kernel
def render(
    image: wp.array3d(dtype=wp.uint8),
    palette: wp.array2d(dtype=wp.float32),
    x0: wp.float32,
    y0: wp.float32,
    pixel_size: wp.float32,
    max_iter: int,
    color_scale: wp.float32,
):
    i, j = wp.tid()
    ncolors = palette.shape[0]
    r = 0.0
    g = 0.0
    b = 0.0
    for s in range(4):  # 2x2 supersampling
        cx = x0 + (float(j) + 0.25 + 0.5 * float(s % 2)) * pixel_size
        cy = y0 - (float(i) + 0.25 + 0.5 * float(s / 2)) * pixel_size
        nu = escape_count(cx, cy, max_iter)
        if nu >= 0.0:
            t = nu * color_scale
            t = t - float(int(t / float(ncolors))) * float(ncolors)  # wrap to [0, ncolors)
            k = int(t)
            f = t - float(k)
            k1 = (k + 1) % ncolors
            r += palette[k, 0] + f * (palette[k1, 0] - palette[k, 0])
            g += palette[k, 1] + f * (palette[k1, 1] - palette[k, 1])
            b += palette[k, 2] + f * (palette[k1, 2] - palette[k, 2])
    image[i, j, 0] = wp.uint8(int(r * 0.25 * 255.0 + 0.5))
    image[i, j, 1] = wp.uint8(int(g * 0.25 * 255.0 + 0.5))
    image[i, j, 2] = wp.uint8(int(b * 0.25 * 255.0 + 0.5))


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--max-iter", type=int, default=500)
    parser.add_argument("--center", type=float, nargs=2, default=(-0.65, 0.0), metavar=("X", "Y"))
    parser.add_argument("--span", type=float, default=3.2, help="width of the view in the complex plane")
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    wp.config.quiet = True
    width, height = args.width, args.height
    pixel_size = args.span / width
    x0 = args.center[0] - 0.5 * width * pixel_size
    y0 = args.center[1] + 0.5 * height * pixel_size

    image = wp.zeros((height, width, 3), dtype=wp.uint8)
    palette = wp.array(np.array(PALETTE, dtype=np.float32))
    inputs = [image, palette, x0, y0, pixel_size, args.max_iter, 0.15]

    t0 = time.perf_counter()
    wp.launch(render, dim=(height, width), inputs=inputs)  # compiles (or loads from the cache)
    t1 = time.perf_counter()
    wp.launch(render, dim=(height, width), inputs=inputs)
    t2 = time.perf_counter()

    path = write_png(args.out, image.numpy())
    print(f"wrote {path} ({width}x{height}, max_iter={args.max_iter})")
    print(f"first launch (incl. compile): {(t1 - t0) * 1e3:.1f} ms, second launch: {(t2 - t1) * 1e3:.1f} ms")
    return path


if __name__ == "__main__":
    main()
