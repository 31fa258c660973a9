"""``retain_grad``: the adjoints of writes leave a retained array's gradient in place.

By default the adjoint of a store consumes (zeroes) the gradient of the element it overwrote;
the expected values below are the analytic derivatives of small chains, written out by hand.
"""

import numpy as np
import pytest

import warp as wp


@wp.kernel
def _scale(x: wp.array(dtype=float), y: wp.array(dtype=float), s: float):
    i = wp.tid()
    y[i] = s * x[i]


@wp.kernel
def _plus_one(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] + 1.0


@wp.kernel
def _scale_2d(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    y[i, j] = 2.0 * x[i, j]


@wp.kernel
def _sum(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    wp.atomic_add(loss, 0, x[wp.tid()])


def _two_writes(retain: bool):
    n = 5
    x_a = wp.ones(n, dtype=float, requires_grad=True)
    x_b = wp.ones(n, dtype=float, requires_grad=True)
    y = wp.zeros(n, dtype=float, requires_grad=True, retain_grad=retain)
    with wp.Tape() as tape:
        wp.launch(_scale, dim=n, inputs=[x_a, y, 2.0])
        wp.launch(_scale, dim=n, inputs=[x_b, y, 3.0])
    tape.backward(grads={y: wp.ones_like(y)})
    return x_a.grad.numpy(), x_b.grad.numpy(), y.grad.numpy()


def test_overwritten_array_consumes_its_gradient_by_default():
    ga, gb, gy = _two_writes(retain=False)
    np.testing.assert_array_equal(ga, np.zeros(5))  # the first write is dead
    np.testing.assert_array_equal(gb, np.full(5, 3.0))
    np.testing.assert_array_equal(gy, np.zeros(5))


def test_retained_gradient_reaches_every_write_and_stays():
    ga, gb, gy = _two_writes(retain=True)
    np.testing.assert_array_equal(ga, np.full(5, 2.0))
    np.testing.assert_array_equal(gb, np.full(5, 3.0))
    np.testing.assert_array_equal(gy, np.ones(5))


def test_retained_intermediate_keeps_its_gradient():
    x = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    y = wp.zeros(4, dtype=float, requires_grad=True, retain_grad=True)
    z = wp.zeros(4, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(_scale, dim=4, inputs=[x, y, 2.0])
        wp.launch(_plus_one, dim=4, inputs=[y, z])
    tape.backward(grads={z: wp.ones_like(z)})
    np.testing.assert_array_equal(x.grad.numpy(), np.full(4, 2.0))  # d(2x + 1)/dx
    np.testing.assert_array_equal(y.grad.numpy(), np.ones(4))  # d(y + 1)/dy, kept


def test_retained_2d_gradient():
    x = wp.ones((3, 2), dtype=float, requires_grad=True)
    y = wp.zeros((3, 2), dtype=float, requires_grad=True, retain_grad=True)
    with wp.Tape() as tape:
        wp.launch(_scale_2d, dim=(3, 2), inputs=[x, y])
    tape.backward(grads={y: wp.ones_like(y)})
    np.testing.assert_array_equal(x.grad.numpy(), np.full((3, 2), 2.0))
    np.testing.assert_array_equal(y.grad.numpy(), np.ones((3, 2)))


def test_copy_into_retained_array_keeps_the_dead_writes_gradient():
    n = 4
    x = wp.ones(n, dtype=float, requires_grad=True)
    s = wp.full(n, 5.0, dtype=float, requires_grad=True)
    y = wp.zeros(n, dtype=float, requires_grad=True, retain_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(_scale, dim=n, inputs=[x, y, 2.0])
        wp.copy(y, s)
        wp.launch(_sum, dim=n, inputs=[y, loss])
    tape.backward(loss)
    np.testing.assert_array_equal(s.grad.numpy(), np.ones(n))
    np.testing.assert_array_equal(x.grad.numpy(), np.full(n, 2.0))


def test_retain_grad_needs_requires_grad():
    for make in (wp.zeros, wp.empty, wp.ones):
        with pytest.raises(ValueError, match="retain_grad=True needs requires_grad=True"):
            make(3, dtype=float, retain_grad=True)
    with pytest.raises(ValueError, match="retain_grad=True needs requires_grad=True"):
        wp.array(np.zeros(3, dtype=np.float32), retain_grad=True)
    a = wp.zeros(3, dtype=float)
    with pytest.raises(ValueError, match="needs requires_grad"):
        a.retain_grad = True
    a.requires_grad = True
    a.retain_grad = True
    assert a.retain_grad
    assert a[1:].retain_grad  # views share the setting
    a.requires_grad = False
    assert not a.retain_grad


def test_zeros_accepts_the_older_length_keyword():
    assert wp.zeros(n=3, dtype=float).shape == (3,)
    assert wp.empty(length=2, dtype=wp.int32).shape == (2,)


def test_zeros_takes_a_numpy_shape():
    assert wp.zeros(np.array([2, 3], dtype=np.int32), dtype=float).shape == (2, 3)
    with pytest.raises(TypeError, match="either shape or n/length"):
        wp.zeros((2, 3), n=4)
