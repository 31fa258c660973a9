"""Kernels shared by the interop tests (PyTorch, Paddle, JAX, NumPy and per-device files): the
guide's ``saxpy`` and ``loss`` examples and small float kernels launched over converted arrays;
the guide's optimization loop over ``loss`` (test_torch_examples.py, test_paddle_examples.py)."""

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


def minimize_loss(xs, l, opt, steps: int, read_loss=None) -> list:
    """The guide's optimization loop: ``loss`` of the warp arrays ``xs`` into ``l`` recorded on a
    tape, then ``steps`` times: backward, ``opt.step()`` (the framework's optimizer over the same
    memory as ``xs``), ``loss`` again. Returns ``read_loss()`` after each step (none without it)."""
    tape = wp.Tape()
    with tape:
        wp.launch(loss, dim=len(xs), inputs=[xs], outputs=[l], device=xs.device)
    losses = []
    for _ in range(steps):
        tape.zero()
        tape.backward(loss=l)
        opt.step()
        l.zero_()
        wp.launch(loss, dim=len(xs), inputs=[xs], outputs=[l], device=xs.device)
        if read_loss is not None:
            losses.append(read_loss())
    return losses


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
