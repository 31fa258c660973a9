"""Trilinear interpolation of the eight voxels around an index-space point, in the kernel language:
the cell and nearest-voxel arithmetic of every volume sampling builtin, and the value with its
index-space partials behind ``volume_sample_grad`` of vec3 and wide grids and
``volume_sample_grad_index``.

A caller reads the corners ``f<di><dj><dk>`` = voxel ``(i + di, j + dj, k + dk)`` of the cell
that :func:`cell` gives and passes them with the position ``t`` in the cell. The last argument,
``weights``, a zero of ``wp.float32`` or ``wp.float64``, picks how the weights are applied:

- ``wp.float32``: ``1 - t`` and ``t`` formed in float32, a float64 value multiplied by them
  widened (the float, vec3 and index-addressed builtins);
- ``wp.float64``: ``t`` widened first, ``1 - t`` formed in float64 (the wide grids).

The products and sums run in one fixed order, so two builtins over the same data give the same
bits. The value-only samplers weight each corner pair where they read it instead: composite
arithmetic may be contracted (fused multiply-add), so where the reads stand fixes the bits.
"""

from __future__ import annotations

from typing import Any

import warp as wp


@wp.func
def nearest(x: float) -> int:
    """The index of the voxel nearest to index-space coordinate ``x``."""
    return int(wp.floor(x + 0.5))


@wp.func
def cell(uvw: wp.vec3):
    """(position of ``uvw`` in its cell in [0, 1)^3, then i, j, k of the cell's lower corner)."""
    b = wp.vec3(wp.floor(uvw[0]), wp.floor(uvw[1]), wp.floor(uvw[2]))
    return uvw - b, int(b[0]), int(b[1]), int(b[2])


@wp.func
def _weighted(x: Any, w: float):
    return x * w


@wp.func
def _weighted(x: wp.float64, w: float):  # noqa: F811 (an overload)
    return x * wp.float64(w)


@wp.func
def _weighted(x: wp.vec2d, w: float):  # noqa: F811
    return x * wp.float64(w)


@wp.func
def _weighted(x: wp.vec3d, w: float):  # noqa: F811
    return x * wp.float64(w)


@wp.func
def _weighted(x: wp.vec4d, w: float):  # noqa: F811
    return x * wp.float64(w)


@wp.func
def lerp(a: Any, b: Any, t: float, weights: wp.float32):
    """``a (1 - t) + b t``, the weights formed in float32."""
    return _weighted(a, 1.0 - t) + _weighted(b, t)


@wp.func
def lerp(a: Any, b: Any, t: float, weights: wp.float64):  # noqa: F811 (an overload)
    """``a (1 - t) + b t``, ``t`` widened to float64 first."""
    s = wp.float64(t)
    return a * (wp.float64(1.0) - s) + b * s


@wp.func
def trilinear_partials(
    f000: Any,
    f001: Any,
    f010: Any,
    f011: Any,
    f100: Any,
    f101: Any,
    f110: Any,
    f111: Any,
    t: wp.vec3,
    weights: Any,
):
    """(value, d/du, d/dv, d/dw) of the trilinear interpolant of the corners at ``t``."""
    c00 = lerp(f000, f001, t[2], weights)
    c01 = lerp(f010, f011, t[2], weights)
    c10 = lerp(f100, f101, t[2], weights)
    c11 = lerp(f110, f111, t[2], weights)
    c0 = lerp(c00, c01, t[1], weights)
    c1 = lerp(c10, c11, t[1], weights)
    dx = c1 - c0
    dy = lerp(c01 - c00, c11 - c10, t[0], weights)
    e0 = lerp(f001 - f000, f011 - f010, t[1], weights)
    e1 = lerp(f101 - f100, f111 - f110, t[1], weights)
    dz = lerp(e0, e1, t[0], weights)
    return lerp(c0, c1, t[0], weights), dx, dy, dz
