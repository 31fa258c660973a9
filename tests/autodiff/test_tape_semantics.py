"""Tape semantics: consumed adjoints of overwritten arrays, repeated backward passes, in-place
updates and reused buffers, each checked against central finite differences in float64."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

import warp as wp

from adutil import F, f64

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


def fd_gradient(loss: Callable[[np.ndarray], float], x0: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central finite differences of a scalar function of a float64 vector."""
    g = np.zeros_like(x0)
    for k in range(x0.size):
        xp, xm = x0.copy(), x0.copy()
        xp[k] += eps
        xm[k] -= eps
        g[k] = (loss(xp) - loss(xm)) / (2 * eps)
    return g


@wp.kernel
def square(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def sum_sin(y: wp.array(dtype=F), loss: wp.array(dtype=F)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.sin(y[i]))


@wp.kernel
def sum_scaled(y: wp.array(dtype=F), loss: wp.array(dtype=F)):
    i = wp.tid()
    wp.atomic_add(loss, 0, F(3.0) * y[i])


@wp.kernel
def double_in_place(a: wp.array(dtype=F)):
    i = wp.tid()
    a[i] = a[i] * F(2.0)


@wp.kernel
def sin_in_place(a: wp.array(dtype=F)):
    i = wp.tid()
    a[i] = wp.sin(a[i])


@wp.kernel
def sum_squares(a: wp.array(dtype=F), loss: wp.array(dtype=F)):
    i = wp.tid()
    wp.atomic_add(loss, 0, a[i] * a[i])


XS = np.array([0.3, -0.7, 1.1, 0.45])


def test_intermediate_written_by_two_rounds():
    """y = x1^2 then y = x2^2 on one tape: each round's input gets its own gradient once."""
    x1, x2 = f64(XS, True), f64(XS[::-1] * 0.9, True)
    y, loss = wp.zeros(4, dtype=F, requires_grad=True), wp.zeros(1, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square, 4, inputs=[x1], outputs=[y])
        wp.launch(sum_sin, 4, inputs=[y], outputs=[loss])
        wp.launch(square, 4, inputs=[x2], outputs=[y])
        wp.launch(sum_sin, 4, inputs=[y], outputs=[loss])
    tape.backward(loss=loss)
    a1, a2 = XS, XS[::-1] * 0.9
    np.testing.assert_allclose(x1.grad.numpy(), fd_gradient(lambda v: np.sin(v**2).sum(), a1), rtol=1e-7)
    np.testing.assert_allclose(x2.grad.numpy(), fd_gradient(lambda v: np.sin(v**2).sum(), a2), rtol=1e-7)


def test_two_backward_passes_without_zero_accumulate_twice():
    """Leaf gradients accumulate over backward passes (2x after two), intermediates are consumed."""
    x = f64(XS, True)
    y, loss = wp.zeros(4, dtype=F, requires_grad=True), wp.zeros(1, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square, 4, inputs=[x], outputs=[y])
        wp.launch(sum_scaled, 4, inputs=[y], outputs=[loss])
    tape.backward(loss=loss)
    once = fd_gradient(lambda v: (3 * v**2).sum(), XS)
    np.testing.assert_allclose(x.grad.numpy(), once, rtol=1e-7)
    np.testing.assert_array_equal(y.grad.numpy(), np.zeros(4))  # consumed by square's store
    tape.backward(loss=loss)
    np.testing.assert_allclose(x.grad.numpy(), 2 * once, rtol=1e-7)
    tape.zero()
    tape.backward(loss=loss)
    np.testing.assert_allclose(x.grad.numpy(), once, rtol=1e-7)


def test_linear_in_place_update_is_exact():
    """a[i] = a[i] * 2, then loss = sum(a^2): d loss / d a0 = 8 a0 (was 12 a0)."""
    a, loss = f64(XS, True), wp.zeros(1, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(double_in_place, 4, inputs=[a])
        wp.launch(sum_squares, 4, inputs=[a], outputs=[loss])
    tape.backward(loss=loss)
    np.testing.assert_allclose(a.grad.numpy(), fd_gradient(lambda v: ((2 * v) ** 2).sum(), XS), rtol=1e-7)
    assert tape.saved_bytes == 0  # the linear update needs no copy


def test_repeated_in_place_updates_are_exact():
    a, loss = f64(XS, True), wp.zeros(1, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        for _ in range(3):
            wp.launch(double_in_place, 4, inputs=[a])
        wp.launch(sin_in_place, 4, inputs=[a])
        wp.launch(sum_squares, 4, inputs=[a], outputs=[loss])
    tape.backward(loss=loss)
    expected = fd_gradient(lambda v: (np.sin(8 * v) ** 2).sum(), XS)
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-6)
    assert tape.saved_bytes == 4 * 8  # one copy, for sin_in_place's read of the old values


@wp.kernel
def write_then_read(x: wp.array(dtype=F), a: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    a[i] = x[i] * x[i]
    y[i] = a[i] * a[i]


@wp.kernel
def relax(w: wp.array(dtype=F)):
    i = wp.tid()
    w[i] = F(0.5) * w[i] + F(0.25)


@wp.kernel
def weigh(w: wp.array(dtype=F), x: wp.array(dtype=F), loss: wp.array(dtype=F)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.sin(w[i] * x[i]))


def test_read_after_write_in_one_kernel():
    x, a = f64(XS, True), wp.zeros(4, dtype=F, requires_grad=True)
    y = wp.zeros(4, dtype=F, requires_grad=True)
    loss = wp.zeros(1, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(write_then_read, 4, inputs=[x, a, y])
        wp.launch(sum_sin, 4, inputs=[y], outputs=[loss])
        wp.launch(relax, 4, inputs=[a])  # overwrites a afterwards: the first adjoint needs the old a
    tape.backward(loss=loss)
    np.testing.assert_allclose(x.grad.numpy(), fd_gradient(lambda v: np.sin(v**4).sum(), XS), rtol=1e-6)


def test_buffer_reused_between_reads():
    """w is read (nonlinearly), relaxed in place, read again: both reads see their own values."""
    w0, xv = np.array([0.2, 0.9, -0.4, 1.3]), XS
    w, x, loss = f64(w0, True), f64(xv, True), wp.zeros(1, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(weigh, 4, inputs=[w, x, loss])
        wp.launch(relax, 4, inputs=[w])
        wp.launch(weigh, 4, inputs=[w, x, loss])
    tape.backward(loss=loss)

    def total(v: np.ndarray) -> float:
        return float(np.sin(v * xv).sum() + np.sin((0.5 * v + 0.25) * xv).sum())

    np.testing.assert_allclose(w.grad.numpy(), fd_gradient(total, w0), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), fd_gradient(
        lambda v: float(np.sin(w0 * v).sum() + np.sin((0.5 * w0 + 0.25) * v).sum()), xv), rtol=1e-6)


@wp.kernel
def square_into(src: wp.array(dtype=F), dst: wp.array(dtype=F)):
    i = wp.tid()
    dst[i] = wp.sin(src[i])


def test_same_array_passed_as_input_and_output():
    a, loss = f64(XS, True), wp.zeros(1, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square_into, 4, inputs=[a], outputs=[a])
        wp.launch(sum_squares, 4, inputs=[a], outputs=[loss])
    tape.backward(loss=loss)
    np.testing.assert_allclose(a.grad.numpy(), fd_gradient(lambda v: (np.sin(v) ** 2).sum(), XS), rtol=1e-6)


@wp.kernel
def loop_in_place(a: wp.array(dtype=F), n: int):
    i = wp.tid()
    for _k in range(n):
        a[i] = a[i] * a[i]


def test_loop_reading_overwritten_values_is_refused():
    a, loss = f64(XS, True), wp.zeros(1, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(loop_in_place, 4, inputs=[a, 2])
        wp.launch(sum_squares, 4, inputs=[a], outputs=[loss])
    with pytest.raises(RuntimeError, match=r"loop_in_place.*'a'.*test_tape_semantics.py:\d+"):
        tape.backward(loss=loss)
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros(4))  # nothing ran


def test_reset_forgets_saved_copies():
    a, loss = f64(XS, True), wp.zeros(1, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(sin_in_place, 4, inputs=[a])
        wp.launch(sum_squares, 4, inputs=[a], outputs=[loss])
    assert tape.saved_bytes == 32
    tape.reset()
    assert tape.saved_bytes == 0 and not tape.launches
