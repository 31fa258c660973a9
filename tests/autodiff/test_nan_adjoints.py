"""Adjoints of clamp, min/max and atomic_min/max at NaN follow the forward choice: the builtins drop
a NaN operand (C's fmin/fmax), so the gradient goes to the operand the result came from."""

from __future__ import annotations

import numpy as np

import warp as wp

NAN = float("nan")


@wp.kernel(module="unique")
def _clamp(x: wp.array(dtype=float), a: wp.array(dtype=float), b: wp.array(dtype=float),
           out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.clamp(x[i], a[i], b[i])


@wp.kernel(module="unique")
def _minmax(x: wp.array(dtype=float), y: wp.array(dtype=float), lo: wp.array(dtype=float),
            hi: wp.array(dtype=float)):
    i = wp.tid()
    lo[i] = wp.min(x[i], y[i])
    hi[i] = wp.max(x[i], y[i])


@wp.kernel(module="unique")
def _reduce(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.min(v[i]) + wp.max(v[i])


@wp.kernel(module="unique")
def _atomic(values: wp.array(dtype=float), slots: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_min(slots, i, values[i])


@wp.kernel(module="unique")
def _atomic_max(values: wp.array(dtype=float), slots: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_max(slots, i, values[i])


def _grads(kernel, inputs, outputs):
    with wp.Tape() as tape:
        wp.launch(kernel, len(inputs[0]), inputs=inputs, outputs=outputs)
    tape.backward(grads={o: wp.ones_like(o) for o in outputs})
    return [a.grad.numpy() for a in inputs]


def _arrays(*columns, dtype=float):
    return [wp.array(np.array(c, dtype=np.float32), dtype=dtype, requires_grad=True) for c in columns]


def test_clamp_gradient_goes_to_the_surviving_operand():
    # (x, lo, hi) -> the operand fmin(fmax(lo, x), hi) returns gets the gradient
    rows = {
        (NAN, -1.0, 1.0): (0, 1, 0),  # fmax(-1, NaN) = -1 = lo, below hi
        (NAN, 1.0, -1.0): (0, 0, 1),  # fmin(1, -1) = hi
        (0.5, NAN, 1.0): (1, 0, 0),  # fmax(NaN, 0.5) = x
        (2.0, NAN, 1.0): (0, 0, 1),
        (-2.0, -1.0, NAN): (0, 1, 0),  # fmin(-1, NaN) = -1 = lo
        (0.5, -1.0, 1.0): (1, 0, 0),
    }
    x, a, b = _arrays(*zip(*rows))
    out = wp.zeros(len(rows), dtype=float, requires_grad=True)
    grads = np.stack(_grads(_clamp, [x, a, b], [out]), axis=1)
    np.testing.assert_array_equal(grads, np.array(list(rows.values()), dtype=np.float32))
    forward = np.fmin(np.fmax(a.numpy(), x.numpy()), b.numpy())
    np.testing.assert_array_equal(out.numpy(), forward)


def test_min_max_gradients_skip_nan():
    x, y = _arrays([NAN, 1.0, 2.0], [3.0, NAN, 1.0])
    lo, hi = wp.zeros(3, dtype=float, requires_grad=True), wp.zeros(3, dtype=float, requires_grad=True)
    gx, gy = _grads(_minmax, [x, y], [lo, hi])
    np.testing.assert_array_equal(lo.numpy(), [3.0, 1.0, 1.0])
    np.testing.assert_array_equal(gx, [0.0, 2.0, 1.0])  # min and max each give 1 where x survives
    np.testing.assert_array_equal(gy, [2.0, 0.0, 1.0])


def test_reduction_gradient_avoids_nan_components():
    v = wp.array([[NAN, 2.0, -1.0], [0.0, 0.0, 1.0]], dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    (g,) = _grads(_reduce, [v], [out])
    np.testing.assert_array_equal(g, [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]])


def test_atomic_min_gradient_with_nan():
    values, slots = _arrays([NAN, 2.0, NAN, 2.0, 5.0], [NAN, NAN, 2.0, 5.0, 2.0])
    with wp.Tape() as tape:
        wp.launch(_atomic, 5, inputs=[values, slots])
    slots.grad = wp.ones_like(slots)
    tape.backward()
    np.testing.assert_array_equal(values.grad.numpy(), [1.0, 1.0, 0.0, 1.0, 0.0])


def test_atomic_max_gradient_with_nan():
    values, slots = _arrays([NAN, 2.0, NAN, 2.0, 5.0], [NAN, NAN, 2.0, 5.0, 2.0])
    with wp.Tape() as tape:
        wp.launch(_atomic_max, 5, inputs=[values, slots])
    np.testing.assert_array_equal(slots.numpy()[1:], np.fmax([NAN, 2.0, 5.0, 2.0], [2.0, NAN, 2.0, 5.0]))
    slots.grad = wp.ones_like(slots)
    tape.backward()
    # the value gets the gradient where the maximum is the value (not where the slot kept its own)
    np.testing.assert_array_equal(values.grad.numpy(), [1.0, 1.0, 0.0, 0.0, 1.0])
