"""Aim a ball with drag at a target by gradient descent through a simulation; writes
examples/output/optimize_trajectory.png.

A ball is thrown from the origin with an initial velocity ``v0`` and flies under gravity and
quadratic air drag (explicit Euler, one kernel launch per time step, each step writing a new
state array). A ``wp.Tape`` records the launches; ``tape.backward`` gives the gradient of the
squared distance between the ball's final position and the target with respect to ``v0``,
and gradient descent (normalized steps) updates ``v0``. The picture shows the trajectories of
the iterations, from red (first) to green (last), and the target. Needs warp-autodiff
(``pip install ".[autodiff]"``).

    python examples/optimize_trajectory.py [--iterations 60] [--size 480] [--out PATH]
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

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "output", "optimize_trajectory.png")

GRAVITY = wp.constant(wp.vec2(0.0, -9.81))
STEPS = 120
DT = 0.02
TARGET = (8.0, 1.5)


@wp.kernel
def step(
    pos: wp.array(dtype=wp.vec2),
    vel: wp.array(dtype=wp.vec2),
    drag: float,
    dt: float,
    pos_out: wp.array(dtype=wp.vec2),
    vel_out: wp.array(dtype=wp.vec2),
):
    i = wp.tid()
    v = vel[i]
    accel = GRAVITY - drag * wp.length(v) * v
    vel_out[i] = v + accel * dt
    pos_out[i] = pos[i] + v * dt


@wp.kernel
def miss_distance(pos: wp.array(dtype=wp.vec2), target: wp.vec2, loss: wp.array(dtype=float)):
    d = pos[0] - target
    loss[0] = wp.dot(d, d)


def simulate(v0: wp.array, drag: float, tape: wp.Tape | None = None) -> tuple[list[wp.array], wp.array]:
    """Positions after each step (the first is the start) and the loss, recorded on ``tape``."""
    positions = [wp.zeros(1, dtype=wp.vec2, requires_grad=True)]
    velocity = v0
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with tape if tape is not None else _NoTape():
        for _ in range(STEPS):
            pos_next = wp.zeros(1, dtype=wp.vec2, requires_grad=True)
            vel_next = wp.zeros(1, dtype=wp.vec2, requires_grad=True)
            wp.launch(step, dim=1, inputs=[positions[-1], velocity, drag, DT], outputs=[pos_next, vel_next])
            positions.append(pos_next)
            velocity = vel_next
        wp.launch(miss_distance, dim=1, inputs=[positions[-1], wp.vec2(*TARGET)], outputs=[loss])
    return positions, loss


class _NoTape:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def optimize(iterations: int, drag: float = 0.05, rate: float = 0.6) -> tuple[list[np.ndarray], list[float]]:
    """Trajectories (``(STEPS + 1, 2)`` arrays) and losses of each iteration of the descent."""
    v0 = wp.array([wp.vec2(4.0, 4.0)], dtype=wp.vec2, requires_grad=True)
    trajectories, losses = [], []
    for _ in range(iterations):
        tape = wp.Tape()
        positions, loss = simulate(v0, drag, tape)
        tape.backward(loss=loss)
        trajectories.append(np.array([p.numpy()[0] for p in positions]))
        losses.append(float(loss.numpy()[0]))
        g = v0.grad.numpy()[0]
        # normalized gradient steps, shrinking as the miss distance does
        step_size = rate * min(1.0, np.sqrt(losses[-1])) / (np.linalg.norm(g) + 1e-12)
        v0.assign(v0.numpy() - step_size * g[None, :])
        tape.zero()
    return trajectories, losses


def draw(trajectories: list[np.ndarray], size: int) -> np.ndarray:
    """An RGB picture of the trajectories (red to green) and the target (a ring)."""
    img = np.full((size, size, 3), (245, 245, 240), np.uint8)
    lo, hi = np.array([-0.5, -1.5]), np.array([9.5, 8.5])

    def to_px(p: np.ndarray) -> np.ndarray:
        xy = (p - lo) / (hi - lo) * (size - 1)
        return np.stack([size - 1 - xy[..., 1], xy[..., 0]], -1).round().astype(int)

    ground = to_px(np.array([0.0, 0.0]))[0]
    img[ground:ground + 2, :] = (120, 110, 100)
    yy, xx = np.mgrid[0:size, 0:size]
    ty, tx = to_px(np.array(TARGET))
    ring = np.abs(np.hypot(yy - ty, xx - tx) - size / 60) < 1.5
    img[ring] = (30, 30, 200)
    n = len(trajectories)
    for k, path in enumerate(trajectories):
        s = k / max(n - 1, 1)
        color = np.array([220 * (1 - s), 60 + 150 * s, 40])
        dense = np.concatenate([np.linspace(a, b, 6) for a, b in zip(path[:-1], path[1:])])
        px = to_px(dense)
        keep = (px >= 0).all(1) & (px < size).all(1)
        img[px[keep, 0], px[keep, 1]] = color.astype(np.uint8)
    return img


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--size", type=int, default=480)
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    trajectories, losses = optimize(args.iterations)
    elapsed = time.perf_counter() - t0
    write_png(args.out, draw(trajectories, args.size))
    print(
        f"{args.iterations} iterations of {STEPS} steps in {elapsed:.2f} s: miss distance "
        f"{np.sqrt(losses[0]):.3f} -> {np.sqrt(losses[-1]):.4f}; wrote {args.out}"
    )
    return args.out


if __name__ == "__main__":
    main()
