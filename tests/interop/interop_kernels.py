"""Kernels shared by the interop tests (PyTorch, Paddle, JAX, NumPy and per-device files): the
guide's ``saxpy`` and ``loss`` examples and small float kernels launched over converted arrays."""

from __future__ import annotations

import warp as wp


# -- the interoperability guide's examples, as written ------------------------------------------
@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel()
def loss(xs: wp.array(dtype=float, ndim=2), l: wp.array(dtype=float)):
    tid = wp.tid()
    wp.atomic_add(l, 0, xs[tid, 0] ** 2.0 + xs[tid, 1] ** 2.0)


# -- kernels over converted arrays -----------------------------------------------------------------
@wp.kernel
def scale2(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = 2.0 * x[i]


@wp.kernel
def vec_norms(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.length(v[i])


@wp.kernel
def square_sum(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, x[i] * x[i])
