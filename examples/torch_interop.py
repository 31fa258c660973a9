"""Spread points evenly over a disc with a PyTorch optimizer and warp kernels; writes
examples/output/torch_interop.png.

The points are a torch tensor (the optimizer's parameter). ``wp.from_torch`` views it as a
``wp.array`` of ``wp.vec2`` without copying, and its gradient as the array's gradient, so
the warp kernel that computes the energy (pairwise repulsion plus a wall keeping the points in
the unit disc) and ``wp.Tape.backward`` fill ``points.grad`` directly; ``torch.optim.Adam``
then moves the points. No data is copied between the frameworks in the loop. The picture
shows the starting points (grey, a tight cluster) and the final ones (blue). Needs PyTorch
and warp-interop, warp-autodiff (``pip install ".[torch,autodiff]"``). On a GPU, pass
``--device cuda:0``: the tensor, the arrays and the kernels then all live on the GPU.

    python examples/torch_interop.py [--points 300] [--iterations 150] [--size 480] [--out PATH]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import torch

import warp as wp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png import write_png  # noqa: E402

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "output", "torch_interop.png")


@wp.kernel
def energy(points: wp.array(dtype=wp.vec2), strength: float, total: wp.array(dtype=float)):
    i = wp.tid()
    p = points[i]
    e = float(0.0)
    for j in range(points.shape[0]):
        if j != i:
            d = p - points[j]
            e += strength / (wp.dot(d, d) + 1.0e-3)  # repulsion, counted once per ordered pair
    outside = wp.max(wp.length(p) - 1.0, 0.0)
    e += 1.0e3 * outside * outside  # the wall of the unit disc
    wp.atomic_add(total, 0, e)


def spread(
    n: int, iterations: int, device: str = "cpu", seed: int = 1
) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """Start and end positions of ``n`` points, and the energy after each iteration."""
    rng = np.random.default_rng(seed)
    torch_device = wp.device_to_torch(device)
    points = torch.tensor(0.1 * rng.normal(size=(n, 2)), dtype=torch.float32, device=torch_device,
                          requires_grad=True)
    start = points.detach().cpu().numpy().copy()
    optimizer = torch.optim.Adam([points], lr=0.02)
    strength = 1.0 / n**2
    energies = []
    for _ in range(iterations):
        optimizer.zero_grad()
        # zero-copy views; the array's gradient is points.grad (allocated by from_torch)
        p = wp.from_torch(points, dtype=wp.vec2)
        total = wp.zeros(1, dtype=float, device=p.device, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(energy, dim=n, inputs=[p, strength], outputs=[total], device=p.device)
        tape.backward(loss=total)  # writes d(total)/d(points) into points.grad
        optimizer.step()
        energies.append(float(total.numpy()[0]))
    return start, points.detach().cpu().numpy(), energies


def draw(start: np.ndarray, end: np.ndarray, size: int) -> np.ndarray:
    """An RGB picture: the unit circle, the start points (grey) and the end points (blue)."""
    img = np.full((size, size, 3), 250, np.uint8)
    yy, xx = np.mgrid[0:size, 0:size]
    scale = (size - 1) / 2.3
    cx = cy = (size - 1) / 2
    r = np.hypot(yy - cy, xx - cx)
    img[np.abs(r - scale) < 1.0] = (170, 170, 170)
    dot = max(2, size // 160)
    for points, color in ((start, (150, 150, 150)), (end, (30, 80, 200))):
        for x, y in points:
            py, px = int(round(cy - y * scale)), int(round(cx + x * scale))
            img[max(py - dot, 0):py + dot + 1, max(px - dot, 0):px + dot + 1] = color
    return img


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=300)
    parser.add_argument("--iterations", type=int, default=150)
    parser.add_argument("--size", type=int, default=480)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    start, end, energies = spread(args.points, args.iterations, args.device)
    elapsed = time.perf_counter() - t0
    write_png(args.out, draw(start, end, args.size))
    print(
        f"{args.points} points, {args.iterations} Adam steps on '{args.device}' in {elapsed:.2f} s: energy "
        f"{energies[0]:.3f} -> {energies[-1]:.3f}; wrote {args.out}"
    )
    return args.out


if __name__ == "__main__":
    main()
